#!/usr/bin/env bash
# Times whole `tidesim run` invocations.
#
# tools/macro-bench.sh [REPS] [SCENARIO...]
#   REPS runs of each scenario (default: 5 runs of the seed benchmarks), reporting the median and
#   the spread of wall-clock seconds (the machine may be shared: read ratios and medians).
# tools/macro-bench.sh --scale [REPS]
#   The scaling table of docs/performance.md: REPS (default 3) runs of each scale scenario
#   (scenarios/scale/) and of openb-default, `--threads 1`, printed as a Markdown table of the
#   median CPU time (user + sys) and the median peak RSS, with the load average before and
#   after. CPU time, not wall time, because the machine may be shared.
#   TIDESIM_SCALE_LONG=1 adds the full frontier run, 12,500 nodes x 1,000,000 jobs (precise
#   queueing hints), without and with the SuperPOD fabric: 8.6-8.8 minutes of CPU and 11.1 GiB
#   each when measured once (docs/performance.md, "Where the targets stand"); it needs a machine
#   with more than 12 GB of memory.
# tools/macro-bench.sh --pollux [DIR] [REPS]
#   Pollux' search (docs/performance.md, "Pollux' search"): `--policy pollux` on
#   scenarios/pollux-workload-6.yaml, workload-6 from ../shared or, when DIR is given, each
#   DIR/workload-*.csv (the Pollux artifact's simulator/workloads/), all of them at once,
#   $(nproc) at a time, REPS (default 3) times: the median wall-clock seconds of the whole set and
#   each workload's median CPU seconds (user + sys).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bin="${TIDESIM_BUILD_DIR:-build}/bin/tidesim"
[[ -x "$bin" ]] || tools/build.sh --target tidesim >/dev/null

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

if [[ "${1:-}" == "--scale" ]]; then
  reps="${2:-3}"
  # label | scenario | extra arguments
  runs=(
    "1k jobs, 1,000 nodes|scenarios/scale/jobs1k-nodes1000.yaml|"
    "10k jobs, 1,000 nodes|scenarios/scale/jobs10k-nodes1000.yaml|"
    "100k jobs, 1,000 nodes|scenarios/scale/jobs100k-nodes1000.yaml|"
    "10k jobs, 100 nodes|scenarios/scale/jobs10k-nodes100.yaml|"
    "10k jobs, 4,000 nodes|scenarios/scale/jobs10k-nodes4000.yaml|"
    "10k jobs, 4,000 nodes, load-aware|scenarios/scale/jobs10k-nodes4000.yaml|--policy load-aware"
    "75% load, 10k jobs, 1,000 nodes|scenarios/scale/load75-jobs10k-nodes1000.yaml|"
    "75% load, 30k jobs, 1,000 nodes|scenarios/scale/load75-jobs30k-nodes1000.yaml|"
    "75% load, 100k jobs, 1,000 nodes|scenarios/scale/load75-jobs100k-nodes1000.yaml|"
    "75% load, heavy tail, 10k jobs|scenarios/scale/load75-tail-jobs10k-nodes1000.yaml|"
    "75% load, heavy tail, 30k jobs|scenarios/scale/load75-tail-jobs30k-nodes1000.yaml|"
    "75% load, heavy tail, 10k jobs, precise hints|scenarios/scale/load75-tail-jobs10k-nodes1000.yaml|--set run.queueing_hints=precise"
    "75% load, heavy tail, 100k jobs, precise hints|scenarios/scale/load75-tail-jobs30k-nodes1000.yaml|--set workload.arrivals.count=100000 --set run.queueing_hints=precise"
    "frontier, 12,500 nodes, first 2k jobs|scenarios/scale/frontier-jobs1m-nodes12500.yaml|--set workload.arrivals.count=2000"
    "frontier, 12,500 nodes, first 10k jobs, precise hints|scenarios/scale/frontier-jobs1m-nodes12500.yaml|--set workload.arrivals.count=10000 --set run.queueing_hints=precise"
    "frontier, 12,500 nodes, first 40k jobs, precise hints|scenarios/scale/frontier-jobs1m-nodes12500.yaml|--set workload.arrivals.count=40000 --set run.queueing_hints=precise"
    "frontier, 12,500 nodes, first 100k jobs, precise hints|scenarios/scale/frontier-jobs1m-nodes12500.yaml|--set workload.arrivals.count=100000 --set run.queueing_hints=precise"
    "frontier mix, 1,250 nodes, first 10k jobs, precise hints|scenarios/scale/frontier-jobs100k-nodes1250.yaml|--set workload.arrivals.count=10000 --set run.queueing_hints=precise"
    "frontier mix, 1,250 nodes, 100k jobs, precise hints|scenarios/scale/frontier-jobs100k-nodes1250.yaml|--set run.queueing_hints=precise"
    "frontier on the SuperPOD fabric, 12,500 nodes, first 10k jobs, precise hints|scenarios/scale/frontier-fabric-jobs1m-nodes12500.yaml|--set workload.arrivals.count=10000 --set run.queueing_hints=precise"
    "frontier on the SuperPOD fabric, 12,500 nodes, first 100k jobs, precise hints|scenarios/scale/frontier-fabric-jobs1m-nodes12500.yaml|--set workload.arrivals.count=100000 --set run.queueing_hints=precise"
    "frontier mix on the SuperPOD fabric, 1,250 nodes, 100k jobs, precise hints|scenarios/scale/frontier-fabric-jobs100k-nodes1250.yaml|--set run.queueing_hints=precise"
    "openb-default, 2 policies|scenarios/openb-default.yaml|"
  )
  if [[ "${TIDESIM_SCALE_LONG:-0}" == 1 ]]; then
    runs+=(
      "frontier, 12,500 nodes, 1M jobs, precise hints|scenarios/scale/frontier-jobs1m-nodes12500.yaml|--set run.queueing_hints=precise"
      "frontier on the SuperPOD fabric, 12,500 nodes, 1M jobs, precise hints|scenarios/scale/frontier-fabric-jobs1m-nodes12500.yaml|--set run.queueing_hints=precise"
    )
  fi
  [[ -n "${TIDESIM_SCALE_ONLY:-}" ]] && mapfile -t runs < <(printf '%s\n' "${runs[@]}" | grep -E "$TIDESIM_SCALE_ONLY")
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; $reps runs each, --threads 1"
  echo
  echo "| run | CPU s (median) | CPU s (min-max) | max RSS MB (median) |"
  echo "|---|---:|---:|---:|"
  for entry in "${runs[@]}"; do
    IFS='|' read -r label scenario extra <<<"$entry"
    cpu=()
    rss=()
    for ((i = 0; i < reps; i++)); do
      # shellcheck disable=SC2086
      # --force: kept from when the estimate put the scale scenarios over run's event budget.
      out=$({ /usr/bin/time -f '%U %S %M' "$bin" run "$scenario" --threads 1 --force -q $extra \
        >/dev/null; } 2>&1 | tail -1)
      read -r user sys kb <<<"$out"
      cpu+=("$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')")
      rss+=("$((kb / 1024))")
    done
    med=$(printf '%s\n' "${cpu[@]}" | median)
    lo=$(printf '%s\n' "${cpu[@]}" | sort -g | head -1)
    hi=$(printf '%s\n' "${cpu[@]}" | sort -g | tail -1)
    mrss=$(printf '%s\n' "${rss[@]}" | median)
    printf '| %s | %.2f | %.2f-%.2f | %d |\n' "$label" "$med" "$lo" "$hi" "$mrss"
  done
  echo
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  exit 0
fi

if [[ "${1:-}" == "--pollux" ]]; then
  shift
  dir=""
  if [[ $# -gt 0 && -d "$1" ]]; then
    dir="$1"
    shift
  fi
  reps="${1:-3}"
  scenario=scenarios/pollux-workload-6.yaml
  labels=("workload-6 (../shared)")
  files=("")
  if [[ -n "$dir" ]]; then
    # The artifact's workloads (workload-6 among them): the set the issue times.
    labels=()
    files=()
    for f in "$dir"/workload-*.csv; do
      [[ -f "$f" ]] || continue
      labels+=("$(basename "$f" .csv)")
      files+=("$f")
    done
  fi
  cores=$(nproc)
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $cores cores; ${#labels[@]} runs" \
    "$cores at a time, $reps times"
  walls=()
  for ((r = 0; r < reps; r++)); do
    start=$(date +%s%N)
    running=0
    for i in "${!labels[@]}"; do
      extra=()
      [[ -n "${files[$i]}" ]] && extra=(--set "workload.pollux.file=${files[$i]}")
      /usr/bin/time -f '%U %S' -o "$tmp/$r.$i" "$bin" run "$scenario" --policy pollux \
        "${extra[@]}" --records none --force -q --format json >/dev/null &
      running=$((running + 1))
      if ((running >= cores)); then
        wait -n
        running=$((running - 1))
      fi
    done
    wait
    end=$(date +%s%N)
    walls+=("$(awk -v a="$start" -v b="$end" 'BEGIN { print (b - a) / 1e9 }')")
  done
  echo
  echo "| workload | CPU s (median) | CPU s (min-max) |"
  echo "|---|---:|---:|"
  total=0
  for i in "${!labels[@]}"; do
    cpu=()
    for ((r = 0; r < reps; r++)); do
      cpu+=("$(awk '{ print $1 + $2 }' "$tmp/$r.$i")")
    done
    med=$(printf '%s\n' "${cpu[@]}" | median)
    total=$(awk -v t="$total" -v m="$med" 'BEGIN { print t + m }')
    printf '| %s | %.2f | %.2f-%.2f |\n' "${labels[$i]}" "$med" \
      "$(printf '%s\n' "${cpu[@]}" | sort -g | head -1)" "$(printf '%s\n' "${cpu[@]}" | sort -g | tail -1)"
  done
  printf '| all (sum of medians) | %.2f | |\n' "$total"
  echo
  printf 'the set, wall-clock: median %.2f s, min %.2f s, max %.2f s over %d runs\n' \
    "$(printf '%s\n' "${walls[@]}" | median)" "$(printf '%s\n' "${walls[@]}" | sort -g | head -1)" \
    "$(printf '%s\n' "${walls[@]}" | sort -g | tail -1)" "$reps"
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  exit 0
fi

reps="${1:-5}"
shift || true
scenarios=("$@")
if ((${#scenarios[@]} == 0)); then
  scenarios=(scenarios/seed-benchmark.yaml scenarios/seed-benchmark-pcie.yaml)
fi
for s in "${scenarios[@]}"; do
  times=()
  for ((i = 0; i < reps; i++)); do
    start=$(date +%s%N)
    "$bin" run "$s" --format json --threads "${TIDESIM_THREADS:-1}" >/dev/null
    end=$(date +%s%N)
    times+=("$((end - start))")
  done
  printf '%s\n' "${times[@]}" | sort -g | awk -v s="$s" -v n="$reps" '
    { t[NR] = $1 / 1e9 }
    END {
      med = (n % 2) ? t[(n + 1) / 2] : (t[n / 2] + t[n / 2 + 1]) / 2
      printf "%s: median %.3f s, min %.3f s, max %.3f s over %d runs\n", s, med, t[1], t[n], n
    }'
done
