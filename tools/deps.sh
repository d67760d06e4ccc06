#!/usr/bin/env bash
# `make deps`: Verilator (Debian 12's package, VERSION), a C++ compiler, and clang, which
# compiles the fast RTL build to about 20% fewer host instructions per cycle than GCC
# (cosim/README.md; without it the build falls back to c++). Installed with apt-get when missing
# and this user is root or has password-less sudo (tools/apt-install.sh); otherwise a message
# says how (clang alone missing: a warning, and the build goes on with c++).
#
#   deps.sh VERILATOR VERSION       (the Makefile's VERILATOR and VERILATOR_VERSION)
set -euo pipefail
{ [ $# -eq 2 ] && [ -n "$1" ] && [[ $2 =~ ^[0-9]+\.[0-9]+$ ]]; } ||
  { echo "deps.sh: usage: deps.sh VERILATOR VERSION (a version such as 5.006)" >&2; exit 2; }
verilator=$1 version=$2
here=$(dirname "$0")

ok() {
  command -v "$verilator" >/dev/null 2>&1 && command -v c++ >/dev/null 2>&1 &&
    "$verilator" --version | grep -q "^Verilator $version "
}
has_clang() { command -v clang++ >/dev/null 2>&1; }

if ok; then
  has_clang && exit 0
  exec "$here/apt-install.sh" --warn --for "the fast RTL build (else c++, slower)" clang
fi
"$here/apt-install.sh" --for "the kit (Verilator $version and a C++ compiler)" verilator g++ clang ||
  { echo "  (or set VERILATOR=/path/to/verilator for a 5.x build elsewhere)" >&2; exit 1; }
if ! ok; then
  v=$("$verilator" --version 2>/dev/null || true)
  case "$v" in
    "Verilator 5."*) echo "warning: $v installed; tested with $version" >&2 ;;
    *) echo "error: no Verilator 5 at $verilator (got: ${v:-nothing})" >&2; exit 1 ;;
  esac
fi
