#!/usr/bin/env bash
# The HTML report's figures in a real browser (docs/outputs.md, "HTML report"): the reports of the
# seed benchmark, of openb-default and of a small sweep are exported with `report --figures`, every
# SVG is inlined into one page with report_browser_check.js, and Debian's headless chromium loads
# it and writes its verdict into the page, read back with --dump-dom: no text box of a figure may
# intersect another, leave the viewBox, or have no size.
#   usage: report_browser_test.sh TIDESIM CHROMIUM WORKDIR   (from the repository root)
# Without chromium it exits 77 (ctest: skipped), or fails under CI=true, where tools/deps.sh
# installs it.
set -euo pipefail
tidesim=$1
chromium=$2
work=$3
root=$(pwd)

source "$(dirname "${BASH_SOURCE[0]}")/browser_test_lib.sh"
require_chromium

rm -rf "$work"
mkdir -p "$work"

# The seed benchmark: two policies, two seeds, the series of seed 1.
run sb-run.log run scenarios/seed-benchmark.yaml --seed 1 --seed 2 --series full --series-seed 1 \
  -q --output "$work/sb"
run sb-report.log report "$work/sb/result.json" -o "$work/sb.html" --figures "$work/figs/sb"
# openb-default: 1,523 nodes, one seed.
run openb-run.log run scenarios/openb-default.yaml --seed 1 -q --output "$work/openb"
run openb-report.log report "$work/openb/result.json" -o "$work/openb.html" \
  --figures "$work/figs/openb"
# A small sweep of the seed benchmark: its merged result.
write_sweep
run sweep-run.log sweep "$work/sweep.yaml" --output "$work/sweep" --threads 2
run sweep-report.log report "$work/sweep/result.json" -o "$work/sweep.html" \
  --figures "$work/figs/sweep"

# A canary the checks must catch, so that they cannot pass by measuring nothing: two texts on one
# place and one past the right edge of its viewBox.
mkdir -p "$work/figs/canary"
cat >"$work/figs/canary/canary.svg" <<'SVG'
<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="200" height="60" viewBox="0 0 200 60" font-family="Helvetica, Arial, sans-serif" font-size="12">
<text x="10" y="20">first label</text>
<text x="30" y="24">second label</text>
<text x="170" y="50">outside</text>
</svg>
SVG

# One page with every figure inline and the checks.
figures=("$work"/figs/*/*.svg)
{
  echo '<!DOCTYPE html>'
  echo '<html lang="en"><head><meta charset="utf-8"/><title>report figures</title>'
  echo '<style>body{margin:0}div.fig{margin:0 0 8px 0;line-height:0}</style><script>'
  cat tests/tools/report_browser_check.js
  echo '</script></head><body>'
  for f in "${figures[@]}"; do
    echo "<div class=\"fig\" data-name=\"${f#"$work"/figs/}\">"
    cat "$f"
    echo '</div>'
  done
  echo '<pre id="verdict">not checked</pre><script>check();</script></body></html>'
} >"$work/page.html"

timeout 300 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
  --user-data-dir="$work/profile" --window-size=1400,1000 --dump-dom "file://$work/page.html" \
  >"$work/dom.html" 2>"$work/chromium.log" || {
  echo "FAIL: chromium could not load the page (log: $work/chromium.log)" >&2
  exit 1
}
# The verdict's lines (the script's own text is indented, so no line of it matches).
grep -E '^problem: ' "$work/dom.html" | unescape >"$work/problems.txt" || true
summary=$(grep -E '^checked [0-9]+ figures, [0-9]+ texts: [0-9]+ problems$' "$work/dom.html" || true)
echo "$summary"
grep -v '^problem: canary/' "$work/problems.txt" || true
status=0
# The canary: its overlap and its text outside the viewBox, and nothing else.
if [[ $(grep -c '^problem: canary/canary.svg: overlap: "first label"' "$work/problems.txt") != 1 ||
  $(grep -c '^problem: canary/canary.svg: outside the viewBox 0 0 200 60: "outside"' \
    "$work/problems.txt") != 1 || $(grep -c '^problem: canary/' "$work/problems.txt") != 2 ]]; then
  echo "FAIL: the checks did not find the canary's overlap and overflow exactly" >&2
  status=1
fi
if [[ "$summary" != "checked ${#figures[@]} figures, "* ]]; then
  echo "FAIL: expected ${#figures[@]} figures checked" >&2
  status=1
fi
if [[ $(grep -vc '^problem: canary/' "$work/problems.txt") != 0 ]]; then
  echo "FAIL: the report's figures have overlapping or overflowing labels (above)" >&2
  status=1
fi
if ((status == 0)); then
  echo "PASS: $((${#figures[@]} - 1)) figures of three reports, no overlap, nothing outside"
fi
exit $status
