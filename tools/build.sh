#!/usr/bin/env bash
# Configures (once) and builds tidesim in build/ (Release). Extra arguments go to cmake --build.
# TIDESIM_SANITIZE=1: the sanitizer build instead, in build-asan/ (ASan + UBSan with UBSan
# findings fatal, -O1 -g, no benchmarks; docs/fuzzing.md).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="${TIDESIM_JOBS:-2}"
configure=(-DCMAKE_BUILD_TYPE=Release)
build="${TIDESIM_BUILD_DIR:-build}"
if [[ "${TIDESIM_SANITIZE:-0}" == 1 ]]; then
  configure=(-DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g" -DTIDESIM_SANITIZE=ON
    -DTIDESIM_BUILD_BENCHMARKS=OFF)
  build="${TIDESIM_BUILD_DIR:-build-asan}"
fi
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  werror=OFF
  # Warnings fail the Release build under CI. Not the sanitizer build: at -O1 with the sanitizers
  # GCC 12 reports a false -Wuninitialized inside Boost.Graph's named_graph.hpp.
  [[ "${CI:-}" == "true" && "${TIDESIM_SANITIZE:-0}" != 1 ]] && werror=ON
  # ccache, when installed (not a dependency), makes a rebuild in another clone or folder cheap.
  if command -v ccache >/dev/null; then
    configure+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  cmake -S . -B "$build" "${configure[@]}" -DTIDESIM_WERROR="$werror" >/dev/null
fi
cmake --build "$build" -j "$jobs" "$@"
