#!/usr/bin/env bash
# The timeline pictures (SVG and HTML) rendered by headless Chromium must show something:
# screenshots checked by png_check.py, next to a blank page that must be found blank.
#   tests/trace/plot_chromium.sh <g16>
# Exit 77 (skipped) without chromium or python3, unless G16_REQUIRE_CHROMIUM=1.
set -euo pipefail
g16=$1
here=$(cd "$(dirname "$0")" && pwd)
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ] || ! command -v python3 > /dev/null; then
  if [ "${G16_REQUIRE_CHROMIUM:-0}" = 1 ]; then
    echo "plot_chromium: chromium and python3 are required (tools/install-deps.sh test)"
    exit 1
  fi
  echo "plot_chromium: SKIPPED: no chromium or python3 (apt-get install chromium python3)"
  exit 77
fi
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT

"$g16" bench --constraints 2048 --partitions 3 --trace "$d/t.trace" > /dev/null
"$g16" trace plot "$d/t.trace" -o "$d/timeline.svg"
"$g16" trace plot "$d/t.trace" -o "$d/timeline.html"
echo '<!DOCTYPE html><html><body style="background:#fff"></body></html>' > "$d/blank.html"

shot() {
  # A container has no sandbox, no GPU and no D-Bus: Chromium's complaints go to a log.
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --no-first-run --user-data-dir="$d/profile" --window-size=1240,420 \
    --screenshot="$d/$1.png" "file://$d/$1" > "$d/$1.log" 2>&1 ||
    { cat "$d/$1.log"; echo "plot_chromium: chromium failed on $1"; exit 1; }
  test -s "$d/$1.png" || { cat "$d/$1.log"; echo "plot_chromium: no screenshot of $1"; exit 1; }
}
shot timeline.svg
shot timeline.html
shot blank.html
python3 "$here/png_check.py" "$d/timeline.svg.png"
python3 "$here/png_check.py" "$d/timeline.html.png"
if python3 "$here/png_check.py" "$d/blank.html.png"; then
  echo "plot_chromium: the checker took a blank page for a picture"
  exit 1
fi
echo "plot_chromium: ok"
