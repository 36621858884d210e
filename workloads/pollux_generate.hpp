#pragma once
/// Pollux workloads generated as the artifact generated its own (petuum/adaptdl branch
/// osdi21-artifact, simulator/workload.py; docs/pollux.md, "Job loads"): jobs sampled
/// from the Microsoft Philly trace as the artifact prepared it (../shared/data/traces/
/// pollux_philly.csv), each given an application by its GPU time and a size and batch from that
/// application's configurations. Its eight workloads have 160 jobs in 8 hours ("job load" 1.0);
/// 80, 240 and 320 are its loads 0.5, 1.5 and 2.0. The rules are the artifact's; the random
/// draws are tidesim's (the run's seed), so a seed gives a workload like the artifact's, not one
/// of its eight.
#include <string>
#include <vector>

#include "tidesim/sim/engine/random.hpp"
#include "tidesim/workloads/pollux.hpp"

namespace tidesim::workloads {

/// One row of a Pollux workload (name,time,application,num_replicas,batch_size).
struct PolluxRow {
  std::string name;
  double time = 0;  ///< seconds from the start
  std::string application;
  int replicas = 0;
  int batch_size = 0;
};

/// A size the artifact's generator may give a job of `app`: `replicas` GPUs at total batch
/// `batch_size`, the job's run time there `seconds`.
struct PolluxConfiguration {
  int replicas = 0;
  int batch_size = 0;
  double seconds = 0;
};

/// The artifact's Application.get_configurations(lo_util, hi_util), on 16 nodes of 4 GPUs: for R
/// in 1, 2, 4, 6, 8, 12, 16, 24, 32, 48 (while R x min_local <= max_batch), packed 4 GPUs a node,
/// the validated batch B with the shortest run, iterations(B, last epoch) x (step + accum x
/// (step - sync)) at local ceil(B / R) (split as Job.update_local_bsz without its one-replica
/// rule); R = 1 is the base, and R > 1 is kept when its run is under 12 hours and its scaling
/// efficiency base / (run x R) lies strictly between lo_util and hi_util. None kept: the base.
std::vector<PolluxConfiguration> pollux_configurations(const PolluxApplication& app,
                                                       double lo_util = 0.5, double hi_util = 0.8);

/// The artifact's `generate` rules (workload.py), with `rng`: the trace's jobs of at least a
/// minute and under 1,000 GPU-hours, their timestamps moved `start_hour` hours back, those in the
/// first `hours` hours of a day; `jobs` of them drawn without replacement; each job's time its
/// moved time of day; its application by GPU time (under 1 h: cifar10 or ncf, evenly; under
/// 10 h: deepspeech2, half of them bert, drawn from a stream of their own; under 100 h: yolov3;
/// else imagenet); its size and batch one of its application's configurations, evenly; named
/// application-index in time order (ties in draw order). InputError naming the trace's line and
/// column on a malformed row, or `where` when fewer jobs qualify than asked.
std::vector<PolluxRow> generate_pollux_rows(
    const std::string& trace, int jobs, int start_hour, int hours,
    const std::map<std::string, std::shared_ptr<const PolluxApplication>>& apps, RandomStream& rng,
    const SourceLocation& where);

}  // namespace tidesim::workloads
