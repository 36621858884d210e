#!/usr/bin/env bash
# Times whole `tidesim run` invocations: REPS runs of each scenario, reporting the median and
# the spread of wall-clock seconds (the machine may be shared: read ratios and medians).
# Usage: tools/macro-bench.sh [REPS] [SCENARIO...]   (default: 5 runs of the seed benchmarks)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
reps="${1:-5}"
shift || true
scenarios=("$@")
if ((${#scenarios[@]} == 0)); then
  scenarios=(scenarios/seed-benchmark.yaml scenarios/seed-benchmark-pcie.yaml)
fi
bin="${TIDESIM_BUILD_DIR:-build}/bin/tidesim"
[[ -x "$bin" ]] || tools/build.sh --target tidesim >/dev/null
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
