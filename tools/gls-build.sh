#!/usr/bin/env bash
# The netlist's model for `make gls` and `gls-test`, built into DIR (by COMMAND, `fma-cosim dut
# build ... --out DIR`) when DIR/dut.json is missing or older than the netlist or than fma-cosim:
# `run --dut` refuses a build older than its sources or made by another fma-cosim. DIR is the
# kit's own (under target/): an out-of-date build there is removed first, since `dut build`
# replaces only a build of its own record's version, unchanged.
#
#   gls-build.sh DIR NETLIST FMA_COSIM COMMAND...
set -euo pipefail
[ $# -ge 4 ] || { echo "gls-build.sh: usage: gls-build.sh DIR NETLIST FMA_COSIM COMMAND..." >&2; exit 2; }
dir=$1 netlist=$2 cosim=$3
shift 3
b=$dir/dut.json
if [ ! -e "$b" ] || [ "$netlist" -nt "$b" ] || [ "$cosim" -nt "$b" ]; then
  rm -rf "$dir"
  echo "$*"
  "$@"
else
  echo "$dir: the netlist's model is up to date"
fi
