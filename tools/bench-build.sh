#!/usr/bin/env bash
# `make bench-build` (issue 48): what the model's build costs, in a fresh target directory so
# that nothing already built hides a compile.
#
#   1. ptxfma-model's release compile alone (its dependencies built first), best of ROUNDS;
#   2. the Rust builds of `make cosim` and `make test` (the co-simulator, the workspace's tests
#      with the test features, the C library, the Python module), then how many times they
#      compiled ptxfma-model: its libraries and its test harnesses in the target directory.
#
# Usage: tools/bench-build.sh DIR   (DIR: the fresh target directory, removed before and after)
# Environment: CARGO, TEST_FEATURES (the Makefile's), MATURIN (the venv's), ROUNDS (default 2),
# BENCH_BUILD_PLAN=0 to skip part 2.
set -euo pipefail

dir=${1:?usage: tools/bench-build.sh DIR}
cargo=${CARGO:-cargo}
rounds=${ROUNDS:-2}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

rm -rf "$dir"
trap 'rm -rf "$dir"' EXIT
export CARGO_TARGET_DIR=$dir

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

echo "== the model's release build (a fresh target directory: $dir)"
"$cargo" build -q --release -p ptxfma-model
best=
for _ in $(seq "$rounds"); do
  "$cargo" clean -q --release -p ptxfma-model
  t0=$(now)
  "$cargo" build -q --release -p ptxfma-model
  t=$(secs "$t0" "$(now)")
  echo "  round: $t s"
  best=$(awk -v b="$best" -v t="$t" 'BEGIN { print (b == "" || t < b) ? t : b }')
done
awk -v t="$best" -v n="$rounds" 'BEGIN {
  printf "  ptxfma-model release build       %.1f s  %s (target <= 60 s; best of %d)\n", t,
    (t <= 60 ? "MET" : "MISSED"), n }'

if [ "${BENCH_BUILD_PLAN:-1}" = 0 ]; then
  exit 0
fi
echo "== the Rust builds of make cosim and make test"
t0=$(now)
"$cargo" build -q --release -p ptxfma-cosim
# shellcheck disable=SC2086 # TEST_FEATURES is a list of options
"$cargo" test -q --workspace --release ${TEST_FEATURES:-} --no-run 2>/dev/null
"$cargo" build -q --release -p ptxfma-ffi
if [ -n "${MATURIN:-}" ]; then
  "$MATURIN" build -q --release -m python/Cargo.toml -o "$dir/wheels" >/dev/null
else
  echo "  (no MATURIN: the Python module's build is not counted)"
fi
echo "  built in $(secs "$t0" "$(now)") s"
libs=$(find "$dir/release/deps" -maxdepth 1 -name 'libptxfma_model-*.rlib' | wc -l)
harnesses=$(find "$dir/release/deps" -maxdepth 1 -type f -executable -name 'ptxfma_model-*' | wc -l)
echo "  ptxfma-model compiled            $libs time(s) $([ "$libs" = 1 ] && echo MET || echo MISSED) (target 1), plus $harnesses test harness(es)"
