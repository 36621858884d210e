#!/usr/bin/env bash
# The HTML report as a page in a real browser (docs/outputs.md, "HTML report"): the reports of the
# seed benchmark (two seeds), of a job-level study (tests/tools/data/job_level.yaml: FIFO against
# SRTF, five seeds) and of a small sweep are loaded, each with report_page_check.js added before
# </body>, in Debian's headless chromium, which writes its verdict into the page, read back with
# --dump-dom: every chart has a size, no two charts overlap (nor a chart and a heading, table or
# line), every bar and seed's dot lies in its chart's plot area, a bar chart has a bar of some
# height, and the headline charts come before the table of every metric, which is last and folded.
#   usage: report_page_test.sh TIDESIM CHROMIUM WORKDIR   (from the repository root)
# Without chromium it exits 77 (ctest: skipped) with a message, or fails under CI=true, where
# tools/deps.sh installs it.
set -euo pipefail
tidesim=$1
chromium=$2
work=$3
root=$(pwd)

source "$(dirname "${BASH_SOURCE[0]}")/browser_test_lib.sh"
require_chromium

rm -rf "$work"
mkdir -p "$work"

run sb-run.log run scenarios/seed-benchmark.yaml --seed 1 --seed 2 --series full --series-seed 1 \
  -q --output "$work/sb"
run sb-report.log report "$work/sb/result.json" -o "$work/sb.html"
run jl-run.log run tests/tools/data/job_level.yaml -q --output "$work/jl"
run jl-report.log report "$work/jl/result.json" -o "$work/jl.html"
write_sweep
run sweep-run.log sweep "$work/sweep.yaml" --output "$work/sweep" --threads 2
run sweep-report.log report "$work/sweep/result.json" -o "$work/sweep.html"

# A canary the checks must catch, so that they cannot pass by measuring nothing: a bar outside
# its plot area, two charts on one place, and the table before the charts.
bad_svg='<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100" viewBox="0 0 200 100"><rect class="plot" x="20" y="10" width="160" height="70" fill="none"/><rect class="bar" x="30" y="5" width="20" height="75" fill="red"/></svg>'
bad_uri="data:image/svg+xml;base64,$(printf '%s' "$bad_svg" | base64 -w0)"
cat >"$work/canary.html" <<HTML
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"/><title>canary</title></head><body>
<details id="all-metrics-table"><summary>all</summary><table><tr><td>1</td></tr></table></details>
<h2 id="headline">Headline metrics</h2>
<div style="position:relative;height:120px"><img style="position:absolute;left:0;top:0" src="$bad_uri" alt="first"/><img style="position:absolute;left:50px;top:10px" src="$bad_uri" alt="second"/></div>
</body></html>
HTML

status=0
for page in sb jl sweep canary; do
  {
    sed '/<\/body>/,$d' "$work/$page.html"
    echo '<pre id="verdict">not checked</pre><script>'
    cat tests/tools/report_page_check.js
    echo '</script></body></html>'
  } >"$work/$page-checked.html"
  timeout 300 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$work/profile" --window-size=1048,1000 --virtual-time-budget=10000 \
    --dump-dom "file://$work/$page-checked.html" >"$work/$page-dom.html" \
    2>"$work/$page-chromium.log" || {
    echo "FAIL: chromium could not load $page (log: $work/$page-chromium.log)" >&2
    exit 1
  }
  grep -E '^problem: ' "$work/$page-dom.html" | unescape >"$work/$page-problems.txt" || true
  summary=$(grep -E '^checked [0-9]+ charts, [0-9]+ bars, [0-9]+ dots: [0-9]+ problems$' \
    "$work/$page-dom.html" || true)
  echo "$page: ${summary:-no verdict}"
  if [[ -z "$summary" ]]; then
    echo "FAIL: $page: the check did not run" >&2
    status=1
    continue
  fi
  if [[ "$page" == canary ]]; then
    # Exactly these six: the bar above its plot area (in each chart), the two charts on one place,
    # and the table first (before the charts in the page, with charts after it, drawn above them).
    expected=(
      '^problem: first: a bar \[x 30, y 5, w 20, h 75\] outside the plot area \[x 20, y 10, w 160, h 70\]$'
      '^problem: second: a bar \[x 30, y 5, w 20, h 75\] outside the plot area'
      '^problem: overlap: "first" \[.*\] and "second" \[.*\]$'
      '^problem: order: the table of every metric comes before the headline charts$'
      '^problem: order: 2 charts after the table of every metric'
      '^problem: order: the table of every metric is drawn above the first headline chart$'
    )
    for e in "${expected[@]}"; do
      if [[ $(grep -cE "$e" "$work/canary-problems.txt") != 1 ]]; then
        echo "FAIL: the checks did not find the canary's problem $e" >&2
        status=1
      fi
    done
    if [[ "$summary" != *": ${#expected[@]} problems" ]]; then
      echo "FAIL: the canary has other problems than those expected:" >&2
      cat "$work/canary-problems.txt" >&2
      status=1
    fi
    continue
  fi
  if [[ -s "$work/$page-problems.txt" ]]; then
    cat "$work/$page-problems.txt"
    echo "FAIL: $page: the report's page has the problems above" >&2
    status=1
  fi
  # Something was measured: charts, and bars with each seed's dot.
  if [[ ! "$summary" =~ ^checked\ ([0-9]+)\ charts,\ ([0-9]+)\ bars,\ ([0-9]+)\ dots ]] ||
    ((BASH_REMATCH[1] < 5)) || { [[ "$page" != sweep ]] && ((BASH_REMATCH[2] < 4 || BASH_REMATCH[3] < 8)); }; then
    echo "FAIL: $page: too little measured ($summary)" >&2
    status=1
  fi
done
if ((status == 0)); then
  echo "PASS: three reports in chromium: charts sized, in their plot areas, apart; headline first, table last"
fi
exit $status
