#pragma once
/// The `workload.pollux` source (docs/scenario-workload.md) and its jobs: a workload CSV of the
/// Pollux artifact, or one generated as the artifact generates its own (pollux_generate.hpp), read
/// into jobs over the applications of pollux.hpp, elastic ones over pollux_elastic.hpp.
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/engine/random.hpp"
#include "tidesim/sim/engine/time.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/workloads/job.hpp"

namespace tidesim::workloads {

/// A workload generated as the artifact generated its own (workloads/pollux_generate.hpp).
struct PolluxGenerate {
  /// The Philly trace as the artifact prepared it (timestamp,duration,num_gpus,gpu_time).
  std::string trace;
  int jobs = 160;
  int start_hour = 2;
  int hours = 8;
};

/// The `workload.pollux` source (docs/scenario-workload.md).
struct PolluxSource {
  /// The workload CSV (name,time,application,num_replicas,batch_size), or a generated workload.
  std::string file;
  std::optional<PolluxGenerate> generate;
  /// The applications' folder.
  std::string applications;
  /// Every pod's template (1 GPU each is set here); model/batch/precision only set memory.
  PodSpec pod;
  std::string model = "resnet50";
  int batch_size = 32;
  std::string precision = "amp";
  Duration checkpoint_interval = std::chrono::minutes(30);
  std::optional<GangSpec> gang;
  /// The artifact's whole-second epochs (PolluxSpeed); false: exact step times.
  bool whole_epochs = false;
  /// Elastic jobs (workloads/pollux_elastic.hpp): none (each job at its row's size), `fixed`
  /// (replicas change, the row's batch stays: as the artifact runs Optimus) or `adaptive` (the
  /// batch chosen at each epoch: as it runs Pollux; ncf at 32,768 as the artifact pins it).
  enum class Elastic { kNone, kFixed, kAdaptive };
  Elastic elastic = Elastic::kNone;
  SourceLocation where;
};

/// The jobs of a Pollux workload: one pod of 1 GPU per replica, steps = round(W), and the
/// measured speed; elastic jobs start at the row's replicas (within their range), their steps
/// the application's progress units (pollux_elastic.hpp). InputError naming the CSV's line and
/// column for an unknown application, a batch outside the application's validated range or a
/// replica count it cannot split into. A generated workload (`source.generate`) draws from `rng`.
std::vector<JobSpec> pollux_jobs(const PolluxSource& source, RandomStream& rng);

}  // namespace tidesim::workloads
