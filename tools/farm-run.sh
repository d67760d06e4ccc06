#!/usr/bin/env bash
# `make farm` (farm/README.md): builds fma-cosim and copies it into the results directory
# (unless FARM_BIN names a pre-built one: then nothing is built or copied), then runs
# farm/farm.sh, which submits one job array of FARM_SHARDS shards (farm/ptxfma.sbatch) with
# `sbatch --wait` and merges the shards' JSON into merged.json and junit.xml there; the merge
# decides the exit status (a failed or missing shard is reported, it does not stop the merge).
#
#   farm-run.sh [farm/farm.sh options: --seed, --count, --filter, --rtl, --chunk-size ...]
# Environment: FARM_RESULTS (the results directory, created), FARM_SHARDS, FARM_BIN,
# FARM_PARTITION, FARM_TIME, FARM_CPUS, FARM_SBATCH_ARGS, FARM_VERIFY (as farm/farm.sh reads
# them);
# FARM_BUILD_CMD (the shell command that builds fma-cosim), CARGO (finds cargo's target
# directory), FARM_GITIGNORE=1 (the results are under farm-results/, the default: a .gitignore
# there keeps them out of git). A bad FARM_SHARDS or no FARM_RESULTS is one line and exit 2,
# before anything is built.
set -euo pipefail
die() { echo "farm-run.sh: $*" >&2; exit 2; }
results=${FARM_RESULTS:-}
[ -n "$results" ] || die "FARM_RESULTS (the results directory) is not set"
case "${FARM_SHARDS:-}" in
  '' | *[!0-9]* | 0*) die "FARM_SHARDS must be a positive number (got '${FARM_SHARDS:-}')" ;;
esac
[ -n "${FARM_BIN:-}" ] || [ -n "${FARM_BUILD_CMD:-}" ] || die "FARM_BUILD_CMD (or FARM_BIN) is not set"

mkdir -p "$results"
if [ -n "${FARM_GITIGNORE:-}" ] && [ ! -e farm-results/.gitignore ]; then
  echo '*' > farm-results/.gitignore
fi
if [ -z "${FARM_BIN:-}" ]; then
  echo "$FARM_BUILD_CMD"
  eval "$FARM_BUILD_CMD"
  target=$(eval "${CARGO:-cargo} metadata --format-version 1 --no-deps" |
    sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
  cp -f "$target/release/fma-cosim" "$results/fma-cosim"
fi
exec "$(dirname "$0")/../farm/farm.sh" "$@"
