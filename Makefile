# ptxfma: top-level commands.
#
#   make cosim     install what is missing, build, co-simulate >= 1,000,000 operations
#   make test      format check, clippy, RTL lint, every test, the injected-fault test
#   make lint      verilator --lint-only -Wall over rtl/
#   make bench     model speed (tick and run, against apfloat and the host FMA), co-simulation
#                  speed, and clean / incremental build times
#   make regress   a longer co-simulation (every core), results as JSON and JUnit
#   make coverage  RTL line and toggle coverage of a co-simulation (a separate coverage build)
#   make farm      the regression as a Slurm job array of FARM_SHARDS shards, merged
#
# Knobs (make VAR=value): COSIM_COUNT, COSIM_SEED, COSIM_FILTER, COSIM_WINDOW, COSIM_JOBS,
# COSIM_ARGS, WAVES_DIR, RESULTS_DIR, REGRESS_COUNT, REGRESS_SEED, BENCH_COUNT,
# MODEL_BENCH_OPS, COVERAGE_COUNT, COVERAGE_SEED, COVERAGE_DIR; the farm's knobs are listed at
# its target.

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

# Packages first: every other file imports them.
RTL_PKGS := $(sort $(wildcard rtl/*_pkg.sv))
RTL_SRCS := $(RTL_PKGS) $(sort $(filter-out $(RTL_PKGS),$(wildcard rtl/*.sv)))
LINT_FLAGS := --lint-only -Wall --top-module ptxfma_top

COSIM := $(CARGO) run --quiet --release -p ptxfma-cosim --bin fma-cosim --
# Operations of `make coverage` (default: as many as `make cosim`), its seed, and where it
# writes rtl.dat (merged counts), rtl.info (lcov) and annotated/ (sources with counts).
COVERAGE_COUNT ?= $(COSIM_COUNT)
COVERAGE_SEED ?= $(COSIM_SEED)
COVERAGE_DIR ?= $(RESULTS_DIR)/rtl-coverage
COSIM_COV := $(CARGO) run --quiet --release -p ptxfma-cosim --features rtl-coverage \
  --bin fma-cosim --

.PHONY: all deps cosim test lint fmt-check clippy cargo-test fault-test cosim-test bench \
        regress clean coverage random-init-test rtl-coverage-test

all: test

# Verilator 5.006 (Debian 12's package) and a C++ compiler. Installed with apt-get when
# missing and this user is root or has password-less sudo; otherwise a message says how.
deps:
	@ok() { command -v $(VERILATOR) >/dev/null 2>&1 && command -v c++ >/dev/null 2>&1 && \
	        $(VERILATOR) --version | grep -q '^Verilator $(VERILATOR_VERSION) '; }; \
	if ok; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then SUDO=; \
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; \
	else \
	  echo "error: Verilator $(VERILATOR_VERSION) and a C++ compiler are required." >&2; \
	  echo "  Install them as root:  apt-get update && apt-get install -y verilator g++" >&2; \
	  echo "  (or set VERILATOR=/path/to/verilator for a 5.x build elsewhere)" >&2; \
	  exit 1; \
	fi; \
	echo "installing Verilator $(VERILATOR_VERSION) and g++ with apt-get"; \
	$$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive \
	  apt-get install -y -qq verilator g++ >/dev/null || exit 1; \
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
# $(RESULTS_DIR)/cosim-coverage.json --html cov.html` for the report).
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
test: deps fmt-check clippy lint cargo-test fault-test random-init-test rtl-coverage-test \
      $(if $(filter 1,$(TEST_COSIM)),cosim-test) farm-test

fmt-check:
	$(CARGO) fmt --all -- --check

clippy:
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO) clippy --workspace --all-targets --features ptxfma-cosim/fault-sticky \
	  --features ptxfma-cosim/rtl-coverage --features ptxfma-cosim/random-init -- -D warnings

# The pipe, the pipe with each injected fault, and the co-simulator's wrapper (rtl/sim/).
lint: deps
	$(VERILATOR) $(LINT_FLAGS) $(RTL_SRCS)
	$(VERILATOR) $(LINT_FLAGS) -DFAULT_STICKY_RZ $(RTL_SRCS)
	$(VERILATOR) $(LINT_FLAGS) -DFAULT_S1_TAG_NO_RESET $(RTL_SRCS)
	$(VERILATOR) --lint-only -Wall --top-module ptxfma_sim_top $(RTL_SRCS) \
	  $(sort $(wildcard rtl/sim/*.sv))

cargo-test:
	$(CARGO) test --workspace --release

# The injected fault (RTL built with +define+FAULT_STICKY_RZ) must be caught, with the right
# stage named and the marker in the VCD; and found the same way by any number of jobs and
# shards, in the JSON, the merge and the JUnit XML.
fault-test:
	$(CARGO) test --workspace --release --features ptxfma-cosim/fault-sticky --test fault \
	  --test regress

# Both tests below build the same features, so the second reuses the first's build.
TEST_FEATURES := --features rtl-coverage,random-init

# Random initial state (RTL Verilated with --x-initial unique, `run --random-init SEED`): the
# clean RTL agrees on several seeds; a flop left out of the reset (FAULT_S1_TAG_NO_RESET) passes
# from zero and is caught from random initial values.
random-init-test:
	$(CARGO) test --release -p ptxfma-cosim $(TEST_FEATURES) --test random_init

# A short run of the coverage build: the merged .dat, verilator_coverage's lcov file, and line
# and toggle figures of the design above measured floors.
rtl-coverage-test:
	$(CARGO) test --release -p ptxfma-cosim $(TEST_FEATURES) --test rtl_coverage

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

cosim-test: deps
	$(COSIM) run --count $(TEST_COSIM_COUNT) --seed 7 --waves-dir $(WAVES_DIR) --progress lines

# Speed: RTL alone (pure C++ loop), lockstep co-simulation, model alone, each target with its
# verdict; then the build times: a clean build of the co-simulator (Verilator, runtime, both
# models of the default variant, shim, crate; dependencies already compiled) and the rebuild
# after an RTL edit. The edit is made to a copy of rtl/ in a temporary directory (a comment
# appended to its top) that the build reads through PTXFMA_RTL_DIR, so Verilator and the models'
# C++ run again while the runtime just built is reused; both builds use a temporary model cache
# (PTXFMA_RTL_CACHE_DIR). No tracked file and no shared cache entry is touched, and a last
# ordinary build puts the binary back.
bench: deps
	BENCH_OPS=$(MODEL_BENCH_OPS) $(CARGO) bench -q -p ptxfma-model --bench model
	$(CARGO) build --release -p ptxfma-cosim
	$(COSIM) bench --count $(BENCH_COUNT) --jobs 2 $(BENCH_ARGS)
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
# filesystem: nothing is built or copied), FARM_SBATCH_ARGS (more sbatch options).
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

farm: $(if $(FARM_BIN),,deps)
	@set -e; results='$(abspath $(FARM_RESULTS))'; mkdir -p "$$results"; \
	if [ -n '$(FARM_RESULTS_DEFAULT)' ] && [ ! -e farm-results/.gitignore ]; then \
	  echo '*' > farm-results/.gitignore; \
	fi; \
	if [ -z '$(FARM_BIN)' ]; then \
	  echo "$(CARGO) build --release -p ptxfma-cosim $(FARM_FEATURES)"; \
	  $(CARGO) build --release -p ptxfma-cosim $(FARM_FEATURES); \
	  target=$$($(CARGO) metadata --format-version 1 --no-deps | \
	            sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p'); \
	  cp -f "$$target/release/fma-cosim" "$$results/fma-cosim"; \
	fi; \
	FARM_SHARDS='$(FARM_SHARDS)' FARM_RESULTS="$$results" FARM_BIN='$(FARM_BIN)' \
	FARM_PARTITION='$(FARM_PARTITION)' FARM_TIME='$(FARM_TIME)' FARM_CPUS='$(FARM_CPUS)' \
	FARM_SBATCH_ARGS='$(FARM_SBATCH_ARGS)' \
	  farm/farm.sh --seed '$(COSIM_SEED)' --count '$(COSIM_COUNT)' --filter '$(COSIM_FILTER)' \
	    --rtl '$(COSIM_RTL)' $(if $(FARM_CHUNK),--chunk-size '$(FARM_CHUNK)')

farm-test:
	tests/farm/local-slurm.sh
