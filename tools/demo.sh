#!/usr/bin/env bash
# Installs what is missing, builds in Release (the CLI, and the Python module into build/python:
# docs/python.md), and runs the main job: the seed benchmark, default-k8s vs load-aware, printed
# side by side. The build shows its progress on stderr (steps
# done, elapsed time and an estimate of the time left); its full log is printed only if it fails.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
TIDESIM_WITH_PROMTOOL=0 TIDESIM_WITH_CHROMIUM=0 tools/deps.sh
build="${TIDESIM_BUILD_DIR:-build}"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

# Reads the build's output (ninja's "[n/N]" or make's "[ p%]"), keeps it in $log, and shows the
# progress: redrawn in place on a terminal, a line per 10% otherwise.
show_build_progress() {
  local line pct label elapsed left last=-1 start=$SECONDS
  while IFS= read -r line; do
    printf '%s\n' "$line" >>"$log"
    if [[ $line =~ ^\[([0-9]+)/([0-9]+)\] ]]; then
      local n=${BASH_REMATCH[1]} total=${BASH_REMATCH[2]}
      pct=$((100 * n / total))
      label="$n/$total steps ($pct%)"
    elif [[ $line =~ ^\[\ *([0-9]+)%\] ]]; then
      pct=${BASH_REMATCH[1]}
      label="$pct%"
    else
      continue
    fi
    elapsed=$((SECONDS - start))
    left="?"
    if ((pct > 0)); then
      left="$((elapsed * (100 - pct) / pct / 60))m$(printf '%02d' $((elapsed * (100 - pct) / pct % 60)))s"
    fi
    if [[ -t 2 ]]; then
      printf '\rtidesim: building %s, %dm%02ds elapsed, about %s left   ' "$label" \
        $((elapsed / 60)) $((elapsed % 60)) "$left" >&2
    elif ((pct / 10 > last)); then
      last=$((pct / 10))
      printf 'tidesim: building %s, %dm%02ds elapsed, about %s left\n' "$label" \
        $((elapsed / 60)) $((elapsed % 60)) "$left" >&2
    fi
  done
  [[ -t 2 ]] && printf '\n' >&2
  return 0
}

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  echo "tidesim: first build (Release, ${TIDESIM_JOBS:-2} parallel jobs): about 10 minutes on" \
    "2 cores; later builds only recompile what changed" >&2
else
  echo "tidesim: building (Release)..." >&2
fi
start=$SECONDS
if ! tools/build.sh --target tidesim tidesim_python 2>&1 | show_build_progress; then
  cat "$log" >&2
  exit 1
fi
echo "tidesim: built in $(((SECONDS - start) / 60))m$(printf '%02d' $(((SECONDS - start) % 60)))s" >&2
exec "$build/bin/tidesim" run "$@"
