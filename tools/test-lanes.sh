#!/usr/bin/env bash
# `make test`'s two lanes (issue 48): most of the tests use one cargo build and run one after
# another; a few are single-threaded tools that need nothing of that build until late (Yosys's
# synthesis of the netlist, the proofs). On two cores they run side by side: the main lane
# prints as it goes, the side lane writes its log and prints it when it ends. A lane that fails
# stops the other; Ctrl-C or TERM stops both. Each lane is a `make -j1` of its targets, in a
# process group of its own, stopped by the pid recorded here.
#
# Usage: tools/test-lanes.sh LOG_DIR "MAIN TARGETS" "SIDE TARGETS" [MAKE VARIABLES...]
set -uo pipefail

logs=${1:?usage: tools/test-lanes.sh LOG_DIR MAIN SIDE [VAR=VALUE...]}
main_targets=${2:?}
side_targets=${3:?}
shift 3
make=${MAKE:-make}
mkdir -p "$logs"
side_log=$logs/side-lane.log

main_pid=
side_pid=
stop() {
  for p in $main_pid $side_pid; do
    kill -TERM -- "-$p" 2>/dev/null
  done
}
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM

echo "test lanes: side lane ($side_targets) in the background, log $side_log"
# shellcheck disable=SC2086 # the targets are lists
setsid "$make" --no-print-directory -j1 "$@" $side_targets >"$side_log" 2>&1 &
side_pid=$!
# shellcheck disable=SC2086
setsid "$make" --no-print-directory -j1 "$@" $main_targets &
main_pid=$!

# The first lane to end decides whether the other goes on.
wait -n "$main_pid" "$side_pid"
first=$?
if kill -0 "$main_pid" 2>/dev/null; then
  ended=side
else
  ended=main
fi
if [ "$first" != 0 ]; then
  echo "test lanes: the $ended lane failed (exit $first); stopping the other" >&2
  stop
  wait 2>/dev/null
  if [ "$ended" = side ]; then
    cat "$side_log"
  fi
  exit 1
fi
if [ "$ended" = side ]; then
  wait "$main_pid"
  rc=$?
else
  wait "$side_pid"
  rc=$?
fi
echo "== side lane ($side_targets), log $side_log"
cat "$side_log"
if [ "$rc" != 0 ]; then
  echo "test lanes: the $([ "$ended" = side ] && echo main || echo side) lane failed (exit $rc)" >&2
  exit 1
fi
echo "test lanes: both lanes passed"
