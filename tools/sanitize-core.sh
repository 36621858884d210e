#!/usr/bin/env bash
# The sanitizer job of the core libraries (docs/fuzzing.md, docs/ci.md): the engine, the API
# types, topologies and workloads, built with ASan + UBSan (UBSan findings fatal) in build-asan/,
# and their tests and parsers' corpus replay run under them. It builds nothing above workloads,
# so it costs a fraction of the whole suite's sanitizer build (tools/test.sh --sanitize).
# Tests that need the `tidesim` CLI (not built here) are skipped; the whole-suite build runs them.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export TIDESIM_SANITIZE=1
build="${TIDESIM_BUILD_DIR:-build-asan}"
tools/deps.sh
start=$SECONDS
TIDESIM_BUILD_DIR="$build" tools/build.sh --target sim_engine_test sim_input_test sim_api_test \
  topologies_test workloads_test fuzz_replay_core
echo "sanitize-core: built in $((SECONDS - start)) s"
export ASAN_OPTIONS="${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=1:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
for t in sim_engine_test sim_input_test sim_api_test topologies_test workloads_test; do
  env -u CI "$build/bin/$t" --gtest_brief=1
done
# The corpora of the core parsers, as tests/fuzz/corpora.txt lists them.
args=()
while read -r target path; do
  case "$target" in
    topology | trace | openb_nodes | manifest) args+=("$target=$path") ;;
  esac
done < <(grep -v '^#' tests/fuzz/corpora.txt)
"$build/bin/fuzz_replay_core" "${args[@]}"
echo "sanitize-core: passed in $((SECONDS - start)) s"
