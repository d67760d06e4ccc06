#!/usr/bin/env bash
# A PNG of what a person sees: `screenshot.sh gtkwave SAVE.gtkw OUT.png` (GTKWave under Xvfb,
# the root window grabbed with xwd) or `screenshot.sh html PAGE.html OUT.png` (headless
# Chromium). Xvfb and GTKWave are stopped by the pids recorded here, also on failure.
set -euo pipefail
kind=$1 src=$2 out=$3
width=${SHOT_WIDTH:-1600} height=${SHOT_HEIGHT:-1000}
for tool in Xvfb gtkwave xwd xwdtopnm pnmtopng chromium; do
  case "$kind:$tool" in
    html:Xvfb|html:gtkwave|html:xwd|html:xwdtopnm|html:pnmtopng|gtkwave:chromium) continue ;;
  esac
  command -v "$tool" >/dev/null || { echo "screenshot.sh: $tool is missing (make screenshot-deps)" >&2; exit 2; }
done
[ -f "$src" ] || { echo "screenshot.sh: no such file: $src" >&2; exit 2; }
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
case "$kind" in
  gtkwave)
    # A display number of our own: the first free one from 90.
    d=90
    while [ -e "/tmp/.X11-unix/X$d" ] || [ -e "/tmp/.X$d-lock" ]; do d=$((d + 1)); done
    Xvfb ":$d" -screen 0 "${width}x${height}x24" -nolisten tcp >"$tmp/xvfb.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X$d" ] && break; sleep 0.1; done
    DISPLAY=":$d" gtkwave "$src" >"$tmp/gtkwave.log" 2>&1 &
    pids+=($!)
    sleep "${SHOT_WAIT:-4}"
    kill -0 "${pids[1]}" 2>/dev/null || { cat "$tmp/gtkwave.log" >&2; echo "screenshot.sh: gtkwave exited" >&2; exit 1; }
    DISPLAY=":$d" xwd -root -silent >"$tmp/shot.xwd"
    xwdtopnm "$tmp/shot.xwd" 2>/dev/null | pnmtopng >"$tmp/shot.png"
    ;;
  html)
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
      --window-size="${width},${height}" --screenshot="$tmp/shot.png" "file://$(realpath "$src")" \
      >"$tmp/chromium.log" 2>&1 || { cat "$tmp/chromium.log" >&2; exit 1; }
    ;;
  *) echo "screenshot.sh: the kind is gtkwave or html, not $kind" >&2; exit 2 ;;
esac
mkdir -p "$(dirname "$out")"
mv "$tmp/shot.png" "$out"
echo "wrote $out"
