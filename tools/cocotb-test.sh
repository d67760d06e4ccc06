#!/usr/bin/env bash
# `make cocotb-test`: the cocotb example (examples/cocotb/) against the RTL, which must pass and
# say that it checked COUNT results, and against the RTL built with +define+FAULT_STICKY_RZ,
# which must fail with an .rz mismatch. Simulator builds, logs and results.xml go under OUT. MAKE
# is the example's make command (the Makefile builds the models' C++ at -O0 and on every core:
# the runs are short; the example's -O2 on one core took 46 s a build, this 24 s), in simulator
# builds of its own: py-bench times the example's -O2 build.
#
#   cocotb-test.sh OUT COUNT SEED MAKE...     (PATH with the venv's bin first)
set -euo pipefail
usage() { echo "cocotb-test.sh: $1 (usage: cocotb-test.sh OUT COUNT SEED MAKE...)" >&2; exit 2; }
[ $# -ge 4 ] || usage "four arguments or more needed"
out=$1 count=$2 seed=$3
shift 3
[[ $count =~ ^[1-9][0-9]*$ ]] || usage "COUNT (COCOTB_COUNT) must be a positive count, not '$count'"
[[ $seed =~ ^[0-9]+$ ]] || usage "SEED (COCOTB_SEED) must be a number, not '$seed'"
export PTXFMA_COUNT=$count PTXFMA_SEED=$seed
mkdir -p "$out"

echo "== cocotb: ptxfma_top against the ptxfma scoreboard"
"$@" SIM_BUILD="$out/sim_build_test" COCOTB_RESULTS_FILE="$out/results.xml" 2>&1 |
  tee "$out/clean.log" | grep -E 'PTXFMA_COCOTB|MISMATCH|Error|error:' || true
grep -q "PTXFMA_COCOTB checked=$count mismatches=0" "$out/clean.log" ||
  { echo "error: the cocotb run on the RTL failed (log: $out/clean.log)" >&2; exit 1; }
echo "== cocotb: the fault build (+define+FAULT_STICKY_RZ) must fail"
if "$@" FAULT=1 SIM_BUILD="$out/sim_build_test_fault" \
    COCOTB_RESULTS_FILE="$out/results_fault.xml" > "$out/fault.log" 2>&1; then
  echo "error: the cocotb run passed on the fault build (log: $out/fault.log)" >&2; exit 1
fi
grep -E 'PTXFMA_COCOTB' "$out/fault.log" || true
grep -q 'MISMATCH .*\.rz' "$out/fault.log" ||
  { echo "error: the fault build failed without an .rz mismatch (log: $out/fault.log)" >&2; exit 1; }
echo "cocotb-test: clean RTL passed, fault build caught"
