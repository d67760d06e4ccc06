#!/usr/bin/env bash
# The build times of `make bench`: a clean build of the co-simulator (Verilator, runtime, both
# models of the default variant, shim, crate; dependencies already compiled) and the rebuild
# after an RTL edit (target <= 20 s). The edit is made to a copy of rtl/ in a temporary
# directory (a comment appended to its top) that the build reads through PTXFMA_RTL_DIR, so
# Verilator and the models' C++ run again while the runtime just built is reused; both builds
# use a temporary model cache (PTXFMA_RTL_CACHE_DIR). No tracked file and no shared cache entry
# is touched, and a last ordinary build puts the binary back.
#
#   bench-rebuild.sh CARGO...        (the Makefile's CARGO; run from the repository root)
set -euo pipefail
[ $# -ge 1 ] || { echo "bench-rebuild.sh: usage: bench-rebuild.sh CARGO..." >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
build() { "$@" build --release -p ptxfma-cosim 2>/dev/null; }

cp -r "$root/rtl" "$tmp/rtl"
echo "// bench edit" >> "$tmp/rtl/ptxfma_top.sv"
"$@" clean --release -p ptxfma-cosim 2>/dev/null || true
t0=$(now)
PTXFMA_RTL_CACHE_DIR="$tmp/cache" build "$@" || exit 1
t1=$(now)
PTXFMA_RTL_CACHE_DIR="$tmp/cache" PTXFMA_RTL_DIR="$tmp/rtl" build "$@" || exit 1
t2=$(now)
build "$@" || true
rebuild=$(secs "$t1" "$t2")
echo "  clean build of the co-simulator   $(secs "$t0" "$t1") s"
echo "  rebuild after an RTL edit         $rebuild s  $(awk -v r="$rebuild" \
  'BEGIN { print (r <= 20 ? "MET" : "MISSED") }') (target <= 20 s)"
