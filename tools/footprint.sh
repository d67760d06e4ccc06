#!/usr/bin/env bash
# A worker's footprint (issue 23): cachegrind's simulated misses per checked operation of
# `fma-cosim run --jobs 1 --golden-thread inline` (one worker, the model in its thread, as on a
# machine with no spare core) for several `--batch` sizes, with the last-level cache set to
# this core's L2, so "LL misses" counts what leaves the core. Counts of a simulated cache: the
# same on every run of one build and one L2 geometry.
#
#   footprint.sh FMA_COSIM [OPS] [BATCH...]
set -euo pipefail
cosim=${1:?usage: footprint.sh FMA_COSIM [OPS] [BATCH...]}
ops=${2:-50000}
shift $(($# < 2 ? $# : 2))
batches=("$@")
[ ${#batches[@]} -gt 0 ] || batches=(128 512 2048 4096)
valgrind=${VALGRIND:-valgrind}
command -v "$valgrind" >/dev/null || { echo "footprint.sh: $valgrind is missing (make bench-deps)" >&2; exit 2; }
[ -x "$cosim" ] || { echo "footprint.sh: no fma-cosim at $cosim" >&2; exit 2; }
[[ $ops =~ ^[1-9][0-9]*$ ]] || { echo "footprint.sh: OPS must be a positive count, not '$ops'" >&2; exit 2; }
for b in "${batches[@]}"; do
  [[ $b =~ ^[1-9][0-9]*$ ]] || { echo "footprint.sh: a batch must be a positive count, not '$b'" >&2; exit 2; }
done

# The L2 of cpu0 (size, ways, line), as cachegrind's --LL takes it.
l2=
for d in /sys/devices/system/cpu/cpu0/cache/index*; do
  [ "$(cat "$d/level" 2>/dev/null)" = 2 ] || continue
  size=$(cat "$d/size")
  case $size in
    *K) size=$((${size%K} * 1024)) ;;
    *M) size=$((${size%M} * 1024 * 1024)) ;;
  esac
  l2="$size,$(cat "$d/ways_of_associativity"),$(cat "$d/coherency_line_size")"
done
[ -n "$l2" ] || { echo "footprint.sh: this machine does not say its L2 (/sys/devices/system/cpu/cpu0/cache)" >&2; exit 2; }

# A count from cachegrind's summary line "==pid== NAME: 1,234 (...)".
count() { sed -n "s/^==[0-9]*== $1: *\([0-9,]*\).*/\1/p" "$2" | tr -d ,; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "  worker footprint: cachegrind, last level = this core's L2 ($l2: bytes,ways,line), $ops operations of the default mix, run --jobs 1 --golden-thread inline"
printf '  %8s %14s %14s %14s\n' "--batch" "instr/op" "D1 misses/op" "L2 misses/op"
for b in "${batches[@]}"; do
  log="$tmp/cg.$b"
  if ! "$valgrind" --tool=cachegrind --cache-sim=yes --LL="$l2" --cachegrind-out-file=/dev/null \
      "$cosim" run --count "$ops" --jobs 1 --golden-thread inline --batch "$b" >"$log" 2>&1; then
    cat "$log" >&2
    echo "footprint.sh: the run with --batch $b failed" >&2
    exit 1
  fi
  grep -q "PASSED" "$log" || { cat "$log" >&2; echo "footprint.sh: the run with --batch $b did not pass" >&2; exit 1; }
  ir=$(count "I   refs" "$log") d1=$(count "D1  misses" "$log") ll=$(count "LL misses" "$log")
  [ -n "$ir" ] && [ -n "$d1" ] && [ -n "$ll" ] || { cat "$log" >&2; echo "footprint.sh: no cachegrind summary" >&2; exit 1; }
  awk -v b="$b" -v ir="$ir" -v d1="$d1" -v ll="$ll" -v n="$ops" \
    'BEGIN { printf "  %8d %14.0f %14.2f %14.2f\n", b, ir / n, d1 / n, ll / n }'
done
