#!/usr/bin/env bash
# Host instructions per RTL cycle (issue 23: target <= 3,000), as cosim/README.md measures them:
# callgrind counting only inside the C++ stepping loop, over CYCLES cycles of the default mix
# (a count of instructions, so the same on every machine of one build). `make
# bench-rtl-instructions`.
#
#   rtl-instructions.sh FMA_COSIM CYCLES        (environment: VALGRIND, default valgrind)
set -euo pipefail
usage() { echo "rtl-instructions.sh: $1 (usage: rtl-instructions.sh FMA_COSIM CYCLES)" >&2; exit 2; }
[ $# -eq 2 ] || usage "two arguments needed"
cosim=$1 cycles=$2
valgrind=${VALGRIND:-valgrind}
[[ $cycles =~ ^[1-9][0-9]*$ ]] || usage "CYCLES (BENCH_SPIN_CYCLES) must be a positive count, not '$cycles'"
[ -x "$cosim" ] || usage "no fma-cosim at $cosim"
out=$("$valgrind" --tool=callgrind --callgrind-out-file=/dev/null \
  --toggle-collect='*SimOf*::spin*' "$cosim" bench --spin-only --count "$cycles" 2>&1) ||
  { echo "$out" >&2; exit 1; }
ir=$(echo "$out" | sed -n 's/.*Collected : *\([0-9][0-9]*\).*/\1/p')
[ -n "$ir" ] || { echo "$out" >&2; echo "error: callgrind counted nothing" >&2; exit 1; }
awk -v ir="$ir" -v n="$cycles" 'BEGIN { r = ir / n;
  printf "  RTL host instructions per cycle   %.0f  %s (target <= 3000; callgrind, %d cycles)\n",
  r, (r <= 3000 ? "MET" : "MISSED"), n }'
