#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite. Exits non-zero on any failure.
#   tools/test.sh [--sanitize] [CTEST_ARG...]
# --sanitize (or TIDESIM_SANITIZE=1): the same suite built with ASan + UBSan in build-asan/
# (docs/fuzzing.md); any sanitizer report fails the test that triggered it. Other arguments go to
# ctest, e.g. `-L parser` or `-R Scenario`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [[ "${1:-}" == "--sanitize" ]]; then
  export TIDESIM_SANITIZE=1
  shift
fi
tools/deps.sh
tools/build.sh
build="${TIDESIM_BUILD_DIR:-build}"
if [[ "${TIDESIM_SANITIZE:-0}" == 1 ]]; then
  build="${TIDESIM_BUILD_DIR:-build-asan}"
  # Stop at the first report, with a stack; UBSan's are already fatal (-fno-sanitize-recover).
  export ASAN_OPTIONS="${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=1:detect_leaks=1}"
  export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
fi
cd "$build"
ctest --output-on-failure -j "${TIDESIM_JOBS:-2}" "$@"
