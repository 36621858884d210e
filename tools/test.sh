#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite. Exits non-zero on any failure.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
tools/deps.sh
tools/build.sh
cd "${TIDESIM_BUILD_DIR:-build}"
ctest --output-on-failure -j "${TIDESIM_JOBS:-2}" "$@"
