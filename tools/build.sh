#!/usr/bin/env bash
# Configures (once) and builds tidesim in build/ (Release). Extra arguments go to cmake --build.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build="${TIDESIM_BUILD_DIR:-build}"
jobs="${TIDESIM_JOBS:-2}"
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  werror=OFF
  [[ "${CI:-}" == "true" ]] && werror=ON
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DTIDESIM_WERROR="$werror" >/dev/null
fi
cmake --build "$build" -j "$jobs" "$@"
