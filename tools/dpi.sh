#!/usr/bin/env bash
# DPI-C (dpi/README.md): `make dpi-test` and `make dpi-bench`, once the Makefile has built
# libptxfma (crate ffi/). Builds go to DIR, never into the source tree; Verilator is $VERILATOR
# (default verilator). The static library, so the binaries need no LD_LIBRARY_PATH or rpath.
#
#   dpi.sh test FFI_LIB DIR SEED COUNT RTL_SOURCE...
#     the library used from C (static) and C++ (shared), then the self-checking SystemVerilog
#     testbench dpi/tb/ built twice: on the RTL, where every retired result must match the DPI
#     golden model (a clean result count), and with +define+FAULT_STICKY_RZ, where the run must
#     fail with result mismatches. Its generated C++ at -O0: it builds in half the time of
#     Verilator's default -Os (about 1 minute instead of 2+ here), and its few tens of thousands
#     of cycles still run in about a second. Logs: DIR/*.log.
#   dpi.sh bench FFI_LIB DIR CALLS
#     a Verilator-built SystemVerilog loop of single ptxfma_eval DPI-C calls (no RTL): calls per
#     second from the difference between a run of CALLS calls and an empty one (start-up), best
#     of three (target >= 5 M calls/s).
#
# Each build command is printed before it runs, as make would. Bad input (a missing argument, a
# SEED, COUNT or CALLS that is not a number) is one line and exit 2.
set -euo pipefail
usage() {
  echo "dpi.sh: $1 (usage: dpi.sh test FFI_LIB DIR SEED COUNT RTL_SOURCE... | dpi.sh bench FFI_LIB DIR CALLS)" >&2
  exit 2
}
count() { [[ $2 =~ ^[1-9][0-9]*$ ]] || usage "$1 must be a positive count, not '$2'"; }
verb=${1:-}
case $verb in
  test) [ $# -ge 6 ] || usage "test needs FFI_LIB DIR SEED COUNT RTL_SOURCE..." ;;
  bench) [ $# -eq 4 ] || usage "bench needs FFI_LIB DIR CALLS" ;;
  *) usage "unknown verb '$verb'" ;;
esac
lib=$2 dir=$3
shift 3
verilator=${VERILATOR:-verilator}
pkg=dpi/ptxfma_dpi_pkg.sv
vflags=(--binary -j 2 -Wno-fatal -Wno-lint -Wno-style "$lib")
run() { echo "$*"; "$@"; }
# A long build quietly: its output to LOG, and only when it fails the last 30 lines of LOG.
logged() { local log=$1; shift; "$@" >"$log" 2>&1 || { tail -30 "$log"; exit 1; }; }

if [ "$verb" = bench ]; then
  n=$1
  count "CALLS (DPI_BENCH_CALLS)" "$n"
  bin=$dir/bench/ptxfma_dpi_bench
  mkdir -p "$dir"
  rm -f "$bin"
  logged "$dir/bench-build.log" "$verilator" "${vflags[@]}" -O3 --top-module ptxfma_dpi_bench \
    -o ptxfma_dpi_bench -Mdir "$dir/bench" "$pkg" dpi/bench/ptxfma_dpi_bench.sv
  now() { date +%s.%N; }
  best() {
    local b='' t0 t1
    for _ in 1 2 3; do
      t0=$(now); "$bin" +n="$1" >/dev/null || exit 1; t1=$(now)
      b=$(awk -v a="$t0" -v c="$t1" -v b="$b" 'BEGIN { d = c - a; print ((b == "" || d < b) ? d : b) }')
    done
    echo "$b"
  }
  empty=$(best 0)
  full=$(best "$n")
  awk -v n="$n" -v e="$empty" -v f="$full" 'BEGIN { r = n / (f - e) / 1e6;
    printf "DPI-C single ptxfma_eval calls from SystemVerilog (Verilator, %d calls, ", n;
    printf "best of 3)\n";
    printf "  %.2f M calls/s  %s (target >= 5 M calls/s)\n", r, (r >= 5 ? "MET" : "MISSED") }'
  exit 0
fi

seed=$1 n=$2
shift 2
[[ $seed =~ ^[0-9]+$ ]] || usage "SEED (DPI_SEED) must be a number, not '$seed'"
count "COUNT (DPI_COUNT)" "$n"
rtl=("$@")
srcs=("$pkg" dpi/tb/ptxfma_scoreboard_pkg.sv dpi/tb/ptxfma_dpi_tb.sv)
tbflags=("${vflags[@]}" --timing --top-module ptxfma_dpi_tb -o ptxfma_dpi_tb
  -MAKEFLAGS "OPT_FAST=-O0 OPT_SLOW=-O0" "${rtl[@]}" "${srcs[@]}")
libdir=$(dirname "$lib")
mkdir -p "$dir"
run cc -std=c99 -pedantic -Wall -Wextra -Werror -Iffi/include ffi/tests/c/ptxfma_smoke.c \
  "$lib" -lm -o "$dir/smoke-c"
run "$dir/smoke-c"
run c++ -std=c++17 -Wall -Wextra -Werror -Iffi/include -x c++ ffi/tests/c/ptxfma_smoke.c -x none \
  -L"$libdir" -lptxfma -Wl,-rpath,"$libdir" -o "$dir/smoke-cxx"
run "$dir/smoke-cxx"
run "$verilator" --lint-only -Wall --timing --top-module ptxfma_dpi_tb "${rtl[@]}" "${srcs[@]}"
# Verilator's makefile does not relink when only the library changed: force the link.
rm -f "$dir/rtl/ptxfma_dpi_tb" "$dir/fault/ptxfma_dpi_tb"
echo "$verilator ${tbflags[*]} -Mdir $dir/rtl"
logged "$dir/rtl-build.log" "$verilator" "${tbflags[@]}" -Mdir "$dir/rtl"
echo "$verilator ${tbflags[*]} -DFAULT_STICKY_RZ -Mdir $dir/fault"
logged "$dir/fault-build.log" "$verilator" "${tbflags[@]}" -DFAULT_STICKY_RZ -Mdir "$dir/fault"

args=("+seed=$seed" "+count=$n")
echo "== DPI-C testbench on the RTL (must pass)"
"$dir/rtl/ptxfma_dpi_tb" "${args[@]}" | tee "$dir/rtl.log" || exit 1
grep -q '^checked [1-9][0-9]* results, 0 mismatches$' "$dir/rtl.log" ||
  { echo "error: no clean result count in the RTL run" >&2; exit 1; }
echo "== DPI-C testbench on the RTL with FAULT_STICKY_RZ (must fail)"
if (ulimit -c 0; exec "$dir/fault/ptxfma_dpi_tb" "${args[@]}") >"$dir/fault.log" 2>&1; then
  cat "$dir/fault.log"; echo "error: the injected fault was not detected" >&2; exit 1
fi
grep -E '^(MISMATCH|LOCKSTEP)' "$dir/fault.log" | head -6 || true
grep -E '^(checked|lockstep)' "$dir/fault.log" || true
grep -q '^checked [0-9]* results, [1-9][0-9]* mismatches$' "$dir/fault.log" ||
  { echo "error: the faulty RTL failed without result mismatches" >&2; exit 1; }
echo "dpi-test: the RTL passed and the injected fault was caught"
