#!/usr/bin/env bash
# `make silicon`: the three steps of the silicon check on the machine that has the GPU.
#   1. fma-model silicon gen      the vectors of every form this GPU runs, with the model's answers
#   2. ptxfma-silicon             the CUDA program (built here for this GPU) runs them
#   3. fma-model silicon compare  bit for bit; the report is also written to $SILICON_DIR/report.txt,
#                                 every mismatch to mismatches.txt
# Knobs: SILICON_COUNT (vectors per form, default 1000000), SILICON_SEED (default 1),
# SILICON_DIR (default target/silicon), FMA_MODEL (a built fma-model; default: cargo builds it).
# Without nvcc or an NVIDIA GPU it says so in one line and exits 2.
set -euo pipefail
cd "${BASH_SOURCE[0]%/*}/.."
count=${SILICON_COUNT:-1000000}
seed=${SILICON_SEED:-1}
dir=${SILICON_DIR:-target/silicon}

command -v nvcc >/dev/null ||
  { echo "make silicon: no nvcc on PATH (install the CUDA toolkit); nothing was checked" >&2; exit 2; }
cc=$( (nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n1) 2>/dev/null || true)
[[ $cc =~ ^[0-9]+\.[0-9]+$ ]] ||
  { echo "make silicon: no NVIDIA GPU found (nvidia-smi lists none); nothing was checked" >&2; exit 2; }
sm=${cc/./}
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n1)
nvcc_version=$(nvcc --version | sed -n 's/.*release [0-9.]*, V\([0-9.]*\).*/\1/p')

if [[ -z ${FMA_MODEL:-} ]]; then
  cargo build --release --quiet -p fma-model
  FMA_MODEL=target/release/fma-model
fi
mkdir -p "$dir"
echo "silicon: building the CUDA program for sm_$sm while the vectors are generated"
nvcc -O2 -arch="sm_$sm" -DPTXFMA_BUILT_FOR="$sm" -o "$dir/ptxfma-silicon" silicon/ptxfma_silicon.cu &
build=$!
trap 'kill "$build" 2>/dev/null || true' EXIT
"$FMA_MODEL" silicon gen --count "$count" --seed "$seed" --arch "sm_$sm" --out "$dir/vectors.bin"
wait "$build"
"$dir/ptxfma-silicon" "$dir/vectors.bin" "$dir/results.bin" \
  "driver_version=$driver" "nvcc=$nvcc_version"
status=0
"$FMA_MODEL" silicon compare --mismatches "$dir/mismatches.txt" \
  "$dir/vectors.bin" "$dir/results.bin" >"$dir/report.txt" || status=$?
cat "$dir/report.txt"
exit "$status"
