#!/usr/bin/env bash
# Installs tidesim (cmake --install) into a prefix inside the build folder, builds
# examples/out-of-tree-plugin against the installed package (find_package(tidesim)), and runs the
# plugin program: the stock CLI knows neither the Score plugin FewestPods nor the job-level policy
# LargestFirst; the plugin program knows both.
# Usage: out_of_tree_plugin_test.sh CMAKE GENERATOR BUILD_DIR WORK_DIR [CMAKE_ARG...] (from the
# repository root); the CMAKE_ARGs go to the example's configure (its compiler, sanitizer flags).
set -euo pipefail
cmake="$1" generator="$2" build="$3" work="$4"
shift 4
rm -rf "$work"
mkdir -p "$work"
step() {  # runs a step quietly; on failure prints its log
  local name="$1"
  shift
  if ! "$@" >"$work/$name.log" 2>&1; then
    echo "out_of_tree_plugin: $name failed: $*" >&2
    cat "$work/$name.log" >&2
    exit 1
  fi
}
step install "$cmake" --install "$build" --prefix "$work/prefix"
# Headers are installed under include/tidesim/ alone: a plugin's include path gets no generic
# top-level names (policies/, sim/), and the example includes only <tidesim/...>.
if [[ "$(ls "$work/prefix/include")" != tidesim ]]; then
  echo "out_of_tree_plugin: include/ holds more than tidesim/: $(ls "$work/prefix/include")" >&2
  exit 1
fi
# Only the public headers are installed (cmake/public_headers.cmake): the plugin API, job
# policies, runs and results, not the simulator's inside (the scheduler, its queue and loop, the
# model): the installed set is the configured list, header for header.
if ! diff <(sort "$build/generated/public_headers.txt") \
  <(cd "$work/prefix/include/tidesim" && find . -type f | sed 's|^\./||' | sort); then
  echo "out_of_tree_plugin: the installed headers are not the public ones (< listed, > installed)" >&2
  exit 1
fi
for private in policies/scheduler.hpp policies/queue.hpp policies/scheduling_loop.hpp \
  sim/model/cluster.hpp sim/engine/fluid.hpp; do
  if [[ -e "$work/prefix/include/tidesim/$private" ]]; then
    echo "out_of_tree_plugin: a private header is installed: $private" >&2
    exit 1
  fi
done
if grep -n '#include' examples/out-of-tree-plugin/*.[ch]pp |
  grep -v -e '<tidesim/' -e '#include <[a-z_]*>' -e '#include "fewest_pods.hpp"' \
    -e '#include "largest_first.hpp"'; then
  echo "out_of_tree_plugin: the example includes a header other than <tidesim/...> or the standard library" >&2
  exit 1
fi
step configure "$cmake" -S examples/out-of-tree-plugin -B "$work/build" -G "$generator" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix" "$@"
step build "$cmake" --build "$work/build" -j 2
plugin="$work/build/tidesim-fewest-pods"
config=examples/out-of-tree-plugin/fewest-pods.yaml

# The installed CLI runs, and does not know the plugin (exit 2 naming it).
"$work/prefix/bin/tidesim" --version
if "$work/prefix/bin/tidesim" validate "$config" >"$work/stock.log" 2>&1; then
  echo "out_of_tree_plugin: the stock tidesim accepted $config" >&2
  exit 1
fi
grep -q "FewestPods" "$work/stock.log"

# The plugin program knows it: validate, explain (its score on each node) and run.
step validate "$plugin" validate "$config"
step explain "$plugin" explain scenarios/explain/three-nodes.yaml -s "$config"
grep -q "FewestPods" "$work/explain.log" || { cat "$work/explain.log" >&2; exit 1; }
step run "$plugin" run tests/tools/data/two_rings.yaml --policy default-k8s \
  --policy fewest="$config" --format csv --quiet
grep -q "fewest" "$work/run.log" || { cat "$work/run.log" >&2; exit 1; }

# The job-level policy: the stock CLI refuses the scenario that names it (exit 2, with its place);
# the plugin program runs it beside FIFO, and the policies' results differ.
scenario=examples/out-of-tree-plugin/largest-first.yaml
if "$work/prefix/bin/tidesim" validate "$scenario" >"$work/stock-policy.log" 2>&1; then
  echo "out_of_tree_plugin: the stock tidesim accepted $scenario" >&2
  exit 1
fi
grep -q "largest-first.yaml:[0-9]*:[0-9]*: policies\[1\].admission.policy: 'largest-first'" \
  "$work/stock-policy.log" || { cat "$work/stock-policy.log" >&2; exit 1; }
step job_policy "$plugin" run "$scenario" --format csv --quiet
# The mean wait's paired difference to FIFO (the CSV's difference_vs_first): not 0.
difference=$(grep '^mean_wait_s,s,lower,largest-first,' "$work/job_policy.log" | cut -d, -f9)
if [[ -z "$difference" || "$difference" == 0 ]]; then
  echo "out_of_tree_plugin: largest-first's mean wait does not differ from FIFO's" >&2
  cat "$work/job_policy.log" >&2
  exit 1
fi
echo "out_of_tree_plugin: ok"
