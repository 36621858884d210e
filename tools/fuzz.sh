#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang (ASan + UBSan, in build-fuzz/) and runs
# each for a while from its seed corpus (docs/fuzzing.md).
#
#   tools/fuzz.sh [TARGET...] [-- LIBFUZZER_FLAG...]
#
# TARGET: scenario topology trace openb_nodes manifest scheduler_config kube_objects result
# job_policy gavel kueue_admit cluster_snapshot slurm_trace pai_trace gfs_trace
# (default: all). TIDESIM_FUZZ_SECONDS (default 60) per target; TIDESIM_FUZZ_BUILD_DIR (default
# build-fuzz). New inputs accumulate in BUILD/corpus/TARGET, crashes in BUILD/artifacts/TARGET.
# Exits non-zero when a target found a crash, a leak, a timeout or an out-of-memory.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build="${TIDESIM_FUZZ_BUILD_DIR:-build-fuzz}"
seconds="${TIDESIM_FUZZ_SECONDS:-60}"
all=(scenario topology trace openb_nodes manifest scheduler_config kube_objects result job_policy gavel
  kueue_admit cluster_snapshot slurm_trace pai_trace gfs_trace)

targets=()
while (($# > 0)) && [[ "$1" != "--" ]]; do
  targets+=("$1")
  shift
done
[[ "${1:-}" == "--" ]] && shift
((${#targets[@]} == 0)) && targets=("${all[@]}")

if ! command -v clang++ >/dev/null; then
  echo "tidesim: fuzzing needs clang and libFuzzer: apt-get install clang libclang-rt-14-dev" >&2
  exit 1
fi
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" -DTIDESIM_FUZZ=ON -DTIDESIM_BUILD_BENCHMARKS=OFF >/dev/null
fi
targets_to_build=()
for t in "${targets[@]}"; do targets_to_build+=(--target "fuzz_$t"); done
cmake --build "$build" -j "${TIDESIM_JOBS:-2}" "${targets_to_build[@]}"

failed=()
for t in "${targets[@]}"; do
  # libFuzzer reads seed folders: gather the files corpora.txt lists for $t into one.
  seeds="$build/seeds/$t"
  rm -rf "$seeds"
  mkdir -p "$seeds" "$build/corpus/$t" "$build/artifacts/$t"
  while read -r target path; do
    [[ "$target" == "$t" ]] || continue
    find "$path" -type f | while read -r f; do cp "$f" "$seeds/$(echo "$f" | tr / _)"; done
  done < <(grep -v '^#' tests/fuzz/corpora.txt)
  echo "== fuzz_$t: ${seconds} s" >&2
  if ! "$build/bin/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$build/artifacts/$t/" "$@" \
    "$build/corpus/$t" "$seeds"; then
    failed+=("$t")
  fi
done
if ((${#failed[@]} > 0)); then
  echo "tidesim: findings in ${failed[*]}: see $build/artifacts/" >&2
  exit 1
fi
