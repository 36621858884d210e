#pragma once
/// The FGD paper's fill experiment (Weng et al., ATC '23; pkg/simulator/core.go:Simulate of
/// hkust-adsl/kubernetes-scheduler-simulator @8f3d641; docs/fgd.md): pods of a workload arrive one
/// by one on an openb node list and never leave; a pod that fits nowhere fails and is dropped.
/// Optionally the workload is first tuned up to a multiple of the cluster's GPU capacity. Its
/// output is the allocation curve (sim/experiments/allocation_curve.hpp).
///
/// A lean driver: no event loop, no telemetry, no execution model. Placement calls the policies'
/// Score plugins (policies/plugins/gpu_share_plugins.hpp, made through the plugin registry) on
/// the policies' node state, and scores only what changed: a node's verdict for a pod key
/// (cpu, memory-free, gm, ng, models) is kept until that node changes.
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "tidesim/policies/plugins/gpu_share.hpp"
#include "tidesim/sim/experiments/allocation_curve.hpp"
#include "tidesim/sim/experiments/run_estimate.hpp"
#include "tidesim/sim/scenario/scenario.hpp"
#include "tidesim/workloads/trace.hpp"

namespace tidesim {

struct FillOptions {
  /// Tune the workload to this multiple of the cluster's GPU capacity (1.3 in the paper): clones
  /// of random pods are appended while below it, random pods removed while above it; 0: no
  /// tuning.
  double tune = 1.3;
  FillRandomness randomness = FillRandomness::kTidesim;
  /// FGD's popularity threshold for typical pods.
  double typical_threshold = 0.95;
  /// Keep the arrival order's pod names (tests).
  bool keep_names = false;
  /// The run's budget (docs/robustness.md, "Resource guards"): tuning that would make more pods
  /// than this stops the run with an error (0: no limit).
  std::int64_t max_pods = 0;
  /// Checked before each arrival (a wall-clock --timeout): once set, the run stops and is marked
  /// interrupted.
  const std::atomic<bool>* interrupt = nullptr;
};

/// The inputs of the experiment: an openb node list and pod list.
struct FillInput {
  std::vector<workloads::OpenbNode> nodes;
  std::vector<workloads::TraceRecord> pods;
};

/// What one run (one policy, one seed) produced.
struct FillRun {
  policies::gpushare::Policy policy{};
  std::int64_t seed = 0;
  std::int64_t total_gpus = 0;
  /// Pods that arrived (workload plus tuning clones, minus pods tuned away), the clones, and the
  /// pods that failed.
  std::int64_t pods = 0;
  std::int64_t clones = 0;
  std::int64_t failed = 0;
  /// Per arriving pod: milli-GPU requested so far and allocated after it.
  std::vector<std::int64_t> arrived;
  std::vector<std::int64_t> used;
  /// Nodes scored (a verdict computed) and verdicts reused from the cache.
  std::int64_t verdicts_computed = 0;
  std::int64_t verdicts_reused = 0;
  /// FillOptions::interrupt stopped the run: the rows and the curve are incomplete.
  bool interrupted = false;
  /// Arrival order (only with FillOptions::keep_names).
  std::vector<std::string> names;
  AllocationCurve curve;
};

/// Runs the experiment for `policy` and `seed`.
FillRun run_fill(const FillInput& input, policies::gpushare::Policy policy, std::int64_t seed,
                 const FillOptions& options);

/// A scenario in fill mode (`run.mode: fill`): its inputs (the openb node list of
/// `cluster.nodes_from`, the openb pod list of `workload.trace`), options (`run.tune`,
/// `run.randomness`) and the workload's name (the pod list's file name without extension).
/// Throws InputError at `run.mode` when the scenario lacks either list.
struct FillScenario {
  FillInput input;
  FillOptions options;
  std::string workload;
  /// Where `run.tune` is, for errors about tuning.
  SourceLocation tune_where;
};
/// Also throws InputError at `run.tune` when tuning could never reach its target: no pod of the
/// workload requests a GPU, so clones would be appended without end.
FillScenario fill_scenario(const Scenario& scenario);

/// What `runs` runs of the experiment cost, `concurrent` of them at once (docs/robustness.md,
/// "Resource guards"). Per run: `pods` arrive (the workload, or when tuned up its expected size:
/// the GPU requests short of the target over the mean GPU request of a pick, plus the pods the
/// last picks add); each arrival filters every node, so `events` = pods x nodes; memory holds
/// the inputs, each finished run's curve rows (16 bytes per pod) and each running run's arrival
/// order, node state and verdict cache (distinct pod keys x nodes).
RunEstimate estimate_fill(const FillScenario& fill, std::int64_t runs, std::int64_t concurrent);

/// The policy of a scenario policy in fill mode (its scheduler must be one of the built-in
/// GPU-sharing profiles: random, dot-product, gpu-clustering, gpu-packing, best-fit, fgd);
/// InputError at `policies` otherwise.
policies::gpushare::Policy fill_policy(const Scenario& scenario, const PolicyConfig& policy);

/// Runs every (policy, seed) pair on `threads` threads; results in policy order, then seed
/// order, independent of the thread count.
std::vector<FillRun> run_fill_sweep(const FillInput& input,
                                    const std::vector<policies::gpushare::Policy>& policies,
                                    const std::vector<std::uint64_t>& seeds,
                                    const FillOptions& options, int threads);

}  // namespace tidesim
