#!/usr/bin/env bash
# Regenerates the golden results in tests/golden/ (docs/ci.md "Golden scenarios"): builds the CLI
# and the golden test, runs every shipped scenario with seeds 1 and 2, and writes the normalised
# result JSON over the golden files. Run it on purpose, when the results are meant to change;
# then review `git diff tests/golden` and commit it with a message that says why they changed.
# Usage: tools/update-golden.sh [SCENARIO...]   (names as in scenarios/, without .yaml; default all)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build="${TIDESIM_BUILD_DIR:-build}"
tools/build.sh --target golden_test >/dev/null
filter="Scenarios/Golden.*"
if (($# > 0)); then
  filter=""
  for s in "$@"; do
    s="${s%.yaml}"
    s="${s##*/}"
    filter+="${filter:+:}Scenarios/Golden.*/${s//-/_}"
  done
fi
# CI=true: a scenario whose input is missing (../shared/data) fails instead of being skipped, so
# no golden file is silently left stale.
CI=true TIDESIM_UPDATE_GOLDEN=1 "$build/bin/golden_test" --gtest_filter="$filter" --gtest_brief=1
if ! git diff --quiet -- tests/golden || [[ -n "$(git ls-files --others --exclude-standard tests/golden)" ]]; then
  git status --short -- tests/golden
  git diff --stat -- tests/golden
  echo "Review: git diff tests/golden; then commit saying why the results changed."
else
  echo "tests/golden: unchanged."
fi
