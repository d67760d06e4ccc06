#!/usr/bin/env bash
# The formal tools by the names SBY calls them (yosys, yosys-smtbmc, boolector ...): a wrapper in
# BIN for each TOOL that runs the venv's WebAssembly build VENV_BIN/yowasp-TOOL (make
# formal-tools).
#
#   formal-wrappers.sh BIN VENV_BIN TOOL...
set -euo pipefail
[ $# -ge 3 ] || { echo "formal-wrappers.sh: usage: formal-wrappers.sh BIN VENV_BIN TOOL..." >&2; exit 2; }
bin=$1 venv_bin=$2
shift 2
mkdir -p "$bin"
for t in "$@"; do
  # shellcheck disable=SC2016 # "$@" is for the wrapper, written as it stands
  printf '#!/bin/sh\nexec %s "$@"\n' "$venv_bin/yowasp-$t" > "$bin/$t"
  chmod +x "$bin/$t"
done
