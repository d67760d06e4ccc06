# ptxfma: top-level commands.
#
#   make cosim     install what is missing, build, co-simulate >= 1,000,000 operations
#   make test      format check, clippy, RTL lint, every test, the injected-fault test
#   make lint      verilator --lint-only -Wall over rtl/
#   make bench     model speed (tick and run, against apfloat and the host FMA), co-simulation
#                  speed, and clean / incremental build times
#   make regress   a longer co-simulation over several seeds
#
# Knobs (make VAR=value): COSIM_COUNT, COSIM_SEED, COSIM_FILTER, COSIM_WINDOW, WAVES_DIR,
# REGRESS_COUNT, REGRESS_SEEDS, BENCH_COUNT, MODEL_BENCH_OPS.

SHELL := /bin/bash
CARGO ?= cargo
VERILATOR ?= verilator
# build.rs reads it too.
export VERILATOR
VERILATOR_VERSION := 5.006

COSIM_COUNT ?= 1000000
COSIM_SEED ?= 1
COSIM_FILTER ?= all
COSIM_WINDOW ?= 32
WAVES_DIR ?= waves
# Operations of the co-simulation inside `make test` (the real datapath is required; see
# TEST_COSIM below).
TEST_COSIM_COUNT ?= 100000
REGRESS_COUNT ?= 4000000
REGRESS_SEEDS ?= 2 3 4 5
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

.PHONY: all deps cosim test lint fmt-check clippy cargo-test fault-test cosim-test bench \
        regress clean

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

# The main job: a default regression over every family, rounding mode and modifier. Exits
# non-zero on any divergence, after writing the report and the VCD to $(WAVES_DIR).
cosim: deps
	$(CARGO) build --release -p ptxfma-cosim
	$(COSIM) run --count $(COSIM_COUNT) --seed $(COSIM_SEED) --filter $(COSIM_FILTER) \
	  --window $(COSIM_WINDOW) --waves-dir $(WAVES_DIR)

# TEST_COSIM=1 adds the $(TEST_COSIM_COUNT)-operation co-simulation of the RTL against the
# golden model to `make test` (on by default).
TEST_COSIM ?= 1
test: deps fmt-check clippy lint cargo-test fault-test $(if $(filter 1,$(TEST_COSIM)),cosim-test)

fmt-check:
	$(CARGO) fmt --all -- --check

clippy:
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO) clippy --workspace --all-targets --features ptxfma-cosim/fault-sticky -- -D warnings

lint: deps
	$(VERILATOR) $(LINT_FLAGS) $(RTL_SRCS)
	$(VERILATOR) $(LINT_FLAGS) -DFAULT_STICKY_RZ $(RTL_SRCS)

cargo-test:
	$(CARGO) test --workspace --release

# The injected fault (RTL built with +define+FAULT_STICKY_RZ) must be caught, with the right
# stage named and the marker in the VCD.
fault-test:
	$(CARGO) test --workspace --release --features ptxfma-cosim/fault-sticky --test fault

cosim-test: deps
	$(COSIM) run --count $(TEST_COSIM_COUNT) --seed 7 --waves-dir $(WAVES_DIR)

# Speed: RTL alone (pure C++ loop), lockstep co-simulation, model alone; then the build times:
# a clean build of the co-simulator (Verilator, runtime, model C++, shim, crate; dependencies
# already compiled) and the rebuild after an RTL edit (a comment appended to the top, so
# Verilator and the model's C++ run again while the cached runtime is reused).
bench: deps
	BENCH_OPS=$(MODEL_BENCH_OPS) $(CARGO) bench -q -p ptxfma-model --bench model
	$(CARGO) build --release -p ptxfma-cosim
	$(COSIM) bench --count $(BENCH_COUNT) $(BENCH_ARGS)
	@target=$$($(CARGO) metadata --format-version 1 --no-deps | \
	           sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p'); \
	now() { date +%s.%N; }; \
	secs() { awk -v a="$$1" -v b="$$2" 'BEGIN { printf "%.1f", b - a }'; }; \
	rm -rf "$$target/ptxfma-rtl-cache"; \
	$(CARGO) clean --release -p ptxfma-cosim 2>/dev/null; \
	t0=$$(now); $(CARGO) build --release -p ptxfma-cosim 2>/dev/null || exit 1; t1=$$(now); \
	top=rtl/ptxfma_top.sv; cp "$$top" "$$top.bench-orig"; \
	trap 'mv -f "$$top.bench-orig" "$$top"' EXIT; \
	echo "// bench edit $$(date +%s%N)" >> "$$top"; \
	t2=$$(now); $(CARGO) build --release -p ptxfma-cosim 2>/dev/null || exit 1; t3=$$(now); \
	mv -f "$$top.bench-orig" "$$top"; trap - EXIT; \
	$(CARGO) build --release -p ptxfma-cosim 2>/dev/null; \
	echo "  clean build of the co-simulator   $$(secs $$t0 $$t1) s"; \
	echo "  rebuild after an RTL edit         $$(secs $$t2 $$t3) s"

# Longer: REGRESS_COUNT operations for each seed in REGRESS_SEEDS.
regress: deps
	$(CARGO) build --release -p ptxfma-cosim
	@for s in $(REGRESS_SEEDS); do \
	  echo "== seed $$s"; \
	  $(COSIM) run --count $(REGRESS_COUNT) --seed $$s --filter $(COSIM_FILTER) \
	    --window $(COSIM_WINDOW) --waves-dir $(WAVES_DIR) || exit 1; \
	done

clean:
	$(CARGO) clean
