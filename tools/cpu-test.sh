#!/usr/bin/env bash
# `make cpu-test`: the lane engine on CPUs other than this one, under user-mode QEMU
# (qemu-x86_64, Debian's qemu-user, which the Makefile installs first): an AMD EPYC Milan (AVX2,
# no AVX-512; QEMU emulates no AVX-512 at all) and a baseline x86-64 (neither). Each runs the
# lane tests and a part of the bulk test and must report exactly the backends that CPU has.
# QEMU's warnings (stderr) are kept apart from the tests' output, which interleaved with them
# under load (and failed the backends check once).
#
#   cpu-test.sh 'CPU:BACKEND,... ...' BUILD...
#
# BUILD is `make test`'s cargo test build (the Makefile's TEST_BUILD); run with --no-run, it
# names the test binaries, which are then taken from there. A CPU spec that is not
# CPU:BACKEND[,BACKEND...] is one line and exit 2.
set -euo pipefail
usage() { echo "cpu-test.sh: $1 (usage: cpu-test.sh 'CPU:BACKEND,... ...' BUILD...)" >&2; exit 2; }
[ $# -ge 2 ] || usage "no CPU list or no build command"
read -r -a specs <<<"$1"
shift
[ ${#specs[@]} -gt 0 ] || usage "the CPU list is empty"
for spec in "${specs[@]}"; do
  [[ $spec =~ ^[A-Za-z0-9_.-]+:[A-Za-z0-9]+(,[A-Za-z0-9]+)*$ ]] ||
    usage "a CPU spec is CPU:BACKEND[,BACKEND...], not '$spec'"
done

exe() { local t=$1; shift; "$@" --no-run 2>&1 | sed -n "s|.*Executable $t (\(.*\))$|\1|p"; }
if ! { lanes=$(exe tests/lanes.rs "$@") && bulk=$(exe tests/bulk.rs "$@") &&
    [ -x "$lanes" ] && [ -x "$bulk" ]; }; then
  echo "error: cannot build the lane tests" >&2
  exit 1
fi
for spec in "${specs[@]}"; do
  cpu=${spec%%:*}
  want="[${spec#*:}]" want=${want//,/, }
  echo "== lane engine on an emulated $cpu (expecting backends $want)"
  out=$(qemu-x86_64 -cpu "$cpu" "$lanes" --nocapture 2>/dev/null) ||
    { echo "$out"; qemu-x86_64 -cpu "$cpu" "$lanes" --nocapture 2>&1 >/dev/null |
        grep -v "TCG doesn't support" || true; exit 1; }
  echo "$out" | grep -E "backends|test result" || true
  echo "$out" | grep -qxF "lane backends this CPU runs: $want" ||
    { echo "error: $cpu: expected backends $want" >&2; exit 1; }
  PTXFMA_VECTORS=40000 qemu-x86_64 -cpu "$cpu" "$bulk" model_matches 2>/dev/null |
    grep -E "^test |FAILED" || exit 1
done
