#!/usr/bin/env bash
# `make screenshots`: the README's pictures (docs/img/), redone whenever the output changes:
# GTKWave under Xvfb opened on a planted divergence (the `fault_sticky_rz` variant drops an .rz
# sticky bit) with the save file the run wrote, and headless Chromium on the HTML report of the
# divergence and of a passing run (tools/screenshot.sh takes each picture). The runs go to DIR.
#
#   screenshots.sh DIR FMA_COSIM      (FMA_COSIM: built with the fault-sticky feature)
set -euo pipefail
[ $# -eq 2 ] || { echo "screenshots.sh: usage: screenshots.sh DIR FMA_COSIM" >&2; exit 2; }
dir=$1 cosim=$2
case $cosim in /*) ;; *) cosim=$PWD/$cosim ;; esac
[ -x "$cosim" ] || { echo "screenshots.sh: no fma-cosim at $cosim" >&2; exit 2; }
shot=$(cd "$(dirname "$0")" && pwd)/screenshot.sh
run() { echo "$*"; "$@"; }

rm -rf "$dir" && mkdir -p "$dir"
echo "cd $dir && $cosim run --rtl fault_sticky_rz ... --html divergence.html (must find the divergence)"
rc=0
(cd "$dir" && "$cosim" run --rtl fault_sticky_rz --filter f64 --count 200000 --seed 3 \
  --progress off --html divergence.html > divergence.txt) || rc=$?
[ "$rc" = 1 ] || { echo "error: the planted divergence run exited $rc, not 1" >&2; exit 1; }
SHOT_WIDTH=1920 SHOT_HEIGHT=1080 run "$shot" gtkwave "$dir/waves/f64-seed3-cycle27.gtkw" \
  docs/img/gtkwave-divergence.png
SHOT_HEIGHT=1100 run "$shot" html "$dir/divergence.html" docs/img/run-divergence.png
echo "cd $dir && $cosim run --count 1000000 --seed 1 --progress off --html run.html"
(cd "$dir" && "$cosim" run --count 1000000 --seed 1 --progress off --html run.html > run.txt)
SHOT_HEIGHT=2000 run "$shot" html "$dir/run.html" docs/img/run-report.png
