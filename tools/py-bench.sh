#!/usr/bin/env bash
# `make py-bench`, the speed of the Python way in one run (python/bench/bench_ptxfma.py): single
# `ptxfma.eval` calls/s, `eval_array` against the model's `Pipeline::run` (timed in Rust in the
# same process), and the cocotb example beside `fma-cosim run` on one family (f32, one job
# each), i.e. what driving the RTL from Python costs; and `fma-cosim run --jobs 1
# --golden-thread inline` on PY_BENCH_BEST_FAMILY against cocotb's best case
# (PTXFMA_BEST_CASE=1, that family) and its most flattering case (=held: fma.rn.f64, control
# word held, the GPI clock), one core each, best of three interleaved rounds: target >= 50x the
# most flattering case (issue 39). Logs and results under OUT.
#
#   py-bench.sh OUT PYTHON FMA_COSIM...   (PYTHON: the venv's; FMA_COSIM: how to run fma-cosim)
# Environment (the Makefile's knobs): PY_BENCH_COCOTB_COUNT (operations of a cocotb run),
# PY_BENCH_BEST_FAMILY, BENCH_COUNT (operations of an fma-cosim run), MODEL_BENCH_OPS; MAKE.
set -euo pipefail
usage() { echo "py-bench.sh: $1 (usage: py-bench.sh OUT PYTHON FMA_COSIM...)" >&2; exit 2; }
[ $# -ge 3 ] || usage "three arguments or more needed"
out=$1 py=$2
shift 2
cocotb_count=${PY_BENCH_COCOTB_COUNT:-20000} family=${PY_BENCH_BEST_FAMILY:-f64}
count=${BENCH_COUNT:-300000} ops=${MODEL_BENCH_OPS:-1000000}
for v in PY_BENCH_COCOTB_COUNT:$cocotb_count BENCH_COUNT:$count MODEL_BENCH_OPS:$ops; do
  [[ ${v#*:} =~ ^[1-9][0-9]*$ ]] || usage "${v%%:*} must be a positive count, not '${v#*:}'"
done
[[ $family =~ ^[A-Za-z0-9_.,-]+$ ]] || usage "PY_BENCH_BEST_FAMILY must be a family such as f64, not '$family'"
[ -x "$py" ] || usage "no Python at $py (make py-env)"
read -r -a make <<<"${MAKE:-make}"
venv_bin=$(dirname "$py")
mkdir -p "$out"
exec 3>&2
cocotb() {
  PATH=$venv_bin:$PATH PTXFMA_COUNT=$cocotb_count \
    "${make[@]}" --no-print-directory -C examples/cocotb SIM_BUILD="$out/sim_build" "$@" ||
    { echo "error: the cocotb bench run failed (log under $out)" >&3; exit 1; }
}

PTXFMA_FAMILY=f32 cocotb COCOTB_RESULTS_FILE="$out/results_bench.xml" > "$out/bench.log" 2>&1
"$@" run --filter f32 --count "$count" --jobs 1 --json "$out/cosim-bench.json" > /dev/null 2>&1
best=()
for r in 1 2 3; do
  PTXFMA_FAMILY=$family PTXFMA_BEST_CASE=1 \
    cocotb COCOTB_RESULTS_FILE="$out/results_best.xml" > "$out/best$r.log" 2>&1
  PTXFMA_BEST_CASE=held \
    cocotb COCOTB_RESULTS_FILE="$out/results_held.xml" > "$out/held$r.log" 2>&1
  "$@" run --filter "$family" --count "$count" --jobs 1 \
    --golden-thread inline --json "$out/cosim-best$r.json" > /dev/null 2>&1
  best+=(--cocotb-best-log "$out/best$r.log" --cocotb-held-log "$out/held$r.log")
  best+=(--cosim-best-json "$out/cosim-best$r.json")
done
"$py" python/bench/bench_ptxfma.py --ops "$ops" --cocotb-log "$out/bench.log" \
  --cosim-json "$out/cosim-bench.json" "${best[@]}"
