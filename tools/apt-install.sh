#!/usr/bin/env bash
# Debian packages, installed when missing: the one place of the kit that runs apt-get (make
# deps, cpu-test, the Python venv, bench-deps, screenshot-deps).
#
#   apt-install.sh [--need 'COMMAND...']... [--no-recommends] [--warn] --for WHAT PACKAGE...
#
# Nothing is done when every --need COMMAND is on PATH (one --need may name several). Otherwise the PACKAGEs that dpkg does
# not list as installed (all of them where there is no dpkg) are installed with apt-get (update,
# then install -y) when this user is root or has password-less sudo; else one line says how, on
# stderr, and the exit status is 1 (with --warn it is a warning and 0: the caller can go on
# without them). A failed apt-get is exit 1 too. --no-recommends passes apt-get's
# --no-install-recommends. Two steps that run side by side must not both install: apt-get
# takes a lock. Bad usage (no --for, no PACKAGE, an unknown option) is one line and exit 2.
set -euo pipefail

usage() {
  echo "apt-install.sh: $1 (usage: apt-install.sh [--need COMMAND]... [--no-recommends] [--warn] --for WHAT PACKAGE...)" >&2
  exit 2
}
needs=() packages=() what='' warn='' recommends=()
while [ $# -gt 0 ]; do
  case $1 in
    --need)
      { [ $# -ge 2 ] && [ -n "${2// /}" ]; } || usage "--need takes a COMMAND"
      read -r -a more <<<"$2"; needs+=("${more[@]}"); shift 2 ;;
    --for) { [ $# -ge 2 ] && [ -n "$2" ]; } || usage "--for takes a WHAT"; what=$2; shift 2 ;;
    --warn) warn=1; shift ;;
    --no-recommends) recommends=(--no-install-recommends); shift ;;
    -*) usage "unknown option $1" ;;
    *) packages+=("$1"); shift ;;
  esac
done
[ -n "$what" ] || usage "--for WHAT is missing"
[ ${#packages[@]} -gt 0 ] || usage "no PACKAGE named"

if [ ${#needs[@]} -gt 0 ]; then
  found=1
  for c in "${needs[@]}"; do command -v "$c" >/dev/null 2>&1 || found=; done
  [ -z "$found" ] || exit 0
fi
missing=()
for p in "${packages[@]}"; do
  if command -v dpkg-query >/dev/null 2>&1 &&
      dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q ' installed$'; then
    continue
  fi
  missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0

if [ "$(id -u)" = 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  how="$what needs ${missing[*]}; as root: apt-get install -y ${missing[*]}"
  if [ -n "$warn" ]; then echo "warning: $how" >&2; exit 0; fi
  echo "error: $how" >&2
  exit 1
fi
echo "installing ${missing[*]} with apt-get for $what"
{ "${sudo[@]}" apt-get update -qq &&
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq "${recommends[@]}" "${missing[@]}" >/dev/null; } ||
  { echo "error: apt-get could not install ${missing[*]} for $what" >&2; exit 1; }
