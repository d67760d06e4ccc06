#!/usr/bin/env bash
# Runs a sharded ptxfma regression on Slurm and merges it (what `make farm` runs after building):
#
#   FARM_SHARDS=N FARM_RESULTS=DIR [FARM_BIN=...] farm/farm.sh [fma-cosim run options]
#
#   1. submits farm/ptxfma.sbatch as one job array, `sbatch --array=1-N --chdir=DIR --wait`;
#   2. waits for every task (a task that fails, e.g. on a divergence, does not stop the others;
#      sbatch's own non-zero status only says that some task did);
#   3. merges: `fma-cosim merge DIR/shard-*.json --verify V --json DIR/merged.json --junit
#      DIR/junit.xml` (each shard checked for consistency, and V of its chunks run again here
#      and compared with it), and exits with the merge's status (0 pass, 1 divergence or a shard
#      that a chunk run again disagrees with, 2 missing/duplicate/inconsistent shards or an
#      error).
#
# Environment:
#   FARM_SHARDS       number of shards = array tasks (required)
#   FARM_RESULTS      results directory (required; created). On a real cluster it must be on a
#                     filesystem the compute nodes mount at the same path.
#   FARM_BIN          fma-cosim binary (default DIR/fma-cosim); the tasks and the merge run it
#   FARM_PARTITION    sbatch --partition (default: the cluster's default partition)
#   FARM_TIME         sbatch --time per task (default: ptxfma.sbatch's #SBATCH --time)
#   FARM_CPUS         sbatch --cpus-per-task, passed to fma-cosim as --jobs (default 1)
#   FARM_VERIFY       chunks of each shard the merge runs again (`merge --verify`; default 1,
#                     0: none)
#   FARM_SBATCH_ARGS  more sbatch options, split on spaces (e.g. "--account=dv --qos=regress")
#   SBATCH, SCANCEL   the commands (default sbatch, scancel)
#   FARM_MODE         run (the default: the options are `fma-cosim run`'s) or exhaust (they are
#                     `fma-cosim dut exhaust`'s; the merge is `dut exhaust --merge` into
#                     DIR/merged.json, exit 1 where a sum differs, 2 where a shard is missing
#                     or unfinished; no JUnit, no --verify: every pair is run once)
set -u -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
say() { echo "farm: $*"; }
die() { echo "farm: error: $*" >&2; exit 2; }

shards=${FARM_SHARDS:-}
results=${FARM_RESULTS:-}
case "$shards" in
    '' | *[!0-9]* | 0*) die "FARM_SHARDS must be a positive number (got \`$shards')" ;;
esac
[ -n "$results" ] || die "FARM_RESULTS (the results directory) is not set"
mode=${FARM_MODE:-run}
case "$mode" in
    run | exhaust) ;;
    *) die "FARM_MODE must be run or exhaust (got \`$mode')" ;;
esac
verify=${FARM_VERIFY:-1}
case "$verify" in
    '' | *[!0-9]* | 0?*) die "FARM_VERIFY must be a number of chunks, 0 or more (got \`$verify')" ;;
esac
mkdir -p "$results" || die "cannot create the results directory $results"
results=$(cd "$results" && pwd)
bin=${FARM_BIN:-$results/fma-cosim}
case "$bin" in /*) ;; *) bin=$PWD/$bin ;; esac
[ -x "$bin" ] || die "fma-cosim binary $bin is missing or not executable (set FARM_BIN)"
sbatch=${SBATCH:-sbatch}
scancel=${SCANCEL:-scancel}
command -v "$sbatch" >/dev/null || die "\`$sbatch' not found: is this a Slurm submit host?"

# A results directory used before: drop the previous run's shards so that they cannot be merged
# with this one's.
rm -f "$results"/shard-*.json "$results"/shard-*.xml "$results"/shard-*.log \
      "$results/merged.json" "$results/junit.xml" "$results/job-id"
mkdir -p "$results/waves"

args=(--array="1-$shards" --chdir="$results" --parsable --wait)
# Only when given, so that a site's SBATCH_EXPORT policy stays in force otherwise.
[ -n "${FARM_BIN:-}" ] && args+=(--export="ALL,FARM_BIN=$bin")
[ -n "${FARM_PARTITION:-}" ] && args+=(--partition="$FARM_PARTITION")
[ -n "${FARM_TIME:-}" ] && args+=(--time="$FARM_TIME")
[ -n "${FARM_CPUS:-}" ] && args+=(--cpus-per-task="$FARM_CPUS")
# shellcheck disable=SC2206 # split on purpose
[ -n "${FARM_SBATCH_ARGS:-}" ] && args+=($FARM_SBATCH_ARGS)

say "submitting $shards shard(s) to Slurm, results in $results"
say "$sbatch ${args[*]} $here/ptxfma.sbatch $([ "$mode" = exhaust ] && echo 'exhaust ')$*"
start=$(date +%s.%N)
# In the background so that an interrupt can cancel the job: sbatch --wait leaves it queued.
task=("$here/ptxfma.sbatch")
[ "$mode" = exhaust ] && task+=(exhaust)
"$sbatch" "${args[@]}" "${task[@]}" "$@" > "$results/job-id" &
sbatch_pid=$!
job_id() { local id=; [ -s "$results/job-id" ] && id=$(head -n 1 "$results/job-id"); echo "${id%%;*}"; }
# shellcheck disable=SC2317 # a trap handler
interrupted() {
    local id; id=$(job_id)
    if [ -n "$id" ]; then
        say "interrupted: cancelling job $id"
        timeout 30 "$scancel" "$id"
    fi
    kill "$sbatch_pid" 2>/dev/null
    wait "$sbatch_pid" 2>/dev/null
    exit 130
}
trap interrupted INT TERM HUP
wait "$sbatch_pid"
sbatch_rc=$?
trap - INT TERM HUP
elapsed=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
id=$(job_id)
if [ -z "$id" ]; then
    die "sbatch did not submit the job (exit status $sbatch_rc)"
fi
say "job $id finished in $elapsed s; sbatch exit status $sbatch_rc (the highest of the tasks':" \
    "0 pass, 1 divergence, 2 error); merging"

# Every shard that wrote no result: say so with the end of its log (the merge names it too).
for ((k = 1; k <= shards; k++)); do
    if [ ! -s "$results/shard-$k.json" ]; then
        say "shard $k/$shards wrote no result ($results/shard-$k.json); end of its log:"
        tail -n 15 "$results/shard-$k.log" 2>/dev/null | sed 's/^/    /' ||
            echo "    (no log: the task did not start)"
    fi
done

shopt -s nullglob
files=("$results"/shard-*.json)
shopt -u nullglob
if [ ${#files[@]} = 0 ]; then
    die "no shard wrote a result; see the logs $results/shard-*.log"
fi
if [ "$mode" = exhaust ]; then
    say "merging the shards' exhaustions"
    "$bin" dut exhaust --merge "${files[@]}" --json "$results/merged.json"
    rc=$?
    if [ -s "$results/merged.json" ]; then
        say "merge exit status $rc; wrote $results/merged.json"
    else
        say "merge exit status $rc; it wrote no merged result"
    fi
    exit $rc
fi
verify_args=()
if [ "$verify" != 0 ]; then
    say "merging, each shard checked and $verify of its chunk(s) run again here (FARM_VERIFY)"
    verify_args=(--verify "$verify")
fi
"$bin" merge "${files[@]}" ${verify_args[@]+"${verify_args[@]}"} --json "$results/merged.json" \
    --junit "$results/junit.xml"
rc=$?
if [ -s "$results/merged.json" ] && [ -s "$results/junit.xml" ]; then
    say "merge exit status $rc; wrote $results/merged.json and $results/junit.xml"
else
    say "merge exit status $rc; it wrote no merged result"
fi
exit $rc
