#pragma once
/// The offered load of a scenario's workload: the GPU-seconds its jobs ask over what the cluster
/// offers while they arrive, capacity (GPUs) x arrival window (first to last submission). Each
/// job asks its GPUs (every pod of a gang; a GPU share counts as its fraction) for its run time
/// alone on its reference placement, the time the model gives it (its steps x its reference step,
/// sim/model/reference_speed.hpp; docs/model-workloads.md, "Run times"). Over 100% the queue
/// grows for as long as jobs arrive and the run lasts past the arrivals. `validate` and `run`
/// print it (docs/scenarios.md, "Offered load").
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tidesim/sim/experiments/run.hpp"

namespace tidesim {

/// One job class: the jobs of one mix entry (their names less the arrival index, "resnet-12" ->
/// "resnet").
struct JobClassLoad {
  std::string name;
  std::int64_t jobs = 0;
  /// Sums over its jobs of GPUs, of run time alone (s) and of GPUs x run time.
  double gpus = 0;
  double run_seconds = 0;
  double gpu_seconds = 0;
  /// The GPU model its run times are measured on (workloads::reference_gpu_of), "" when none.
  std::string reference_gpu;
};

struct OfferedLoad {
  std::int64_t jobs = 0;
  /// Jobs whose run time alone is not known (measured elastic jobs, models without a profile on
  /// their reference GPU): left out of the sums.
  std::int64_t unknown = 0;
  double gpu_seconds = 0;
  /// GPUs of the cluster (cards of every node).
  double capacity_gpus = 0;
  double first_submit_s = 0;
  double last_submit_s = 0;
  /// In order of GPU-seconds asked, the largest first.
  std::vector<JobClassLoad> classes;

  double window_s() const { return last_submit_s - first_submit_s; }
  /// gpu_seconds / (capacity_gpus x window_s); nullopt when the jobs arrive at once or the
  /// cluster has no GPUs.
  std::optional<double> load() const;
  /// gpu_seconds / capacity_gpus: the time the whole cluster needs for the work, the shortest
  /// makespan from the first arrival.
  double drain_s() const;
};

/// The offered load of `workload` (one seed's jobs, make_jobs) on the cluster of `scenario`.
OfferedLoad offered_load(const Scenario& scenario, const Workload& workload);

/// Lines for people: the load and what it is made of, then one line per job class (at most
/// `max_classes`, then how many more) with its jobs, GPUs, mean run time and reference GPU.
std::vector<std::string> offered_load_lines(const OfferedLoad& load, std::size_t max_classes = 8);

/// The warning when the load is over 100%; nullopt otherwise.
std::optional<std::string> overload_warning(const OfferedLoad& load);

/// The makespans of a run (per policy, seconds; `unfinished` when some job never ended, the time
/// the run stopped) against the arrival window, or with jobs that arrive at once against the
/// time the whole cluster needs for the work: "makespan against the arrival window (24.0 h):
/// fifo 5.1 d (5.1 x), srtf 4.0 d (4.0 x)".
struct PolicyMakespan {
  std::string policy;
  double seconds = 0;
  bool unfinished = false;
};
std::string makespan_line(const OfferedLoad& load, const std::vector<PolicyMakespan>& makespans);

}  // namespace tidesim
