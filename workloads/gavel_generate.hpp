#pragma once
/// Gavel's job generator (stanford-futuredata/gavel, scheduler/utils.py: generate_job,
/// scheduler/job_table.py, scheduler/scheduler.py: simulate), drawing from CPython's `random`
/// streams exactly as Gavel seeds them (docs/gavel.md, "The job generator").
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/input/error.hpp"
#include "tidesim/workloads/gavel_trace.hpp"
#include "tidesim/workloads/throughput_table.hpp"

namespace tidesim::workloads {

/// `workload.gavel.generate:`.
struct GavelGenerate {
  /// Gavel's experiments: "continuous-single" (every job on one GPU), "continuous-multiple"
  /// (scale factors 1, 2, 4, 8: `--generate-multi-gpu-jobs`), "static-multiple" (multi-GPU, every
  /// job at time 0).
  std::string mode = "continuous-single";
  /// Poisson arrivals, jobs per hour (continuous modes): inter-arrival times of mean 3600 / rate s.
  double rate_per_hour = 1.0;
  /// Jobs generated (ids 0 .. jobs - 1, in arrival order).
  int jobs = 1;
  /// Gavel's seed; absent: the run's seed.
  std::optional<std::uint64_t> seed;
  /// `--generate-multi-priority-jobs`: one job in five (a draw <= 0.2) of weight 5.
  bool multi_priority = false;
  /// `--assign_SLOs`: each job's SLO drawn from the stream seeded seed + 6 (Gavel's
  /// SLO_generator): uniform(0, 1) < 0.33 gives 1.2, < 0.67 gives 2, else 10.
  bool slos = false;
  /// The order of job_table.py's templates, which maps each `choice` draw to a job type:
  /// kCurrent, Gavel's since its commit 19a0dd2 (2020-08-29; c4fa400 has it): ResNet-18, ResNet-50,
  /// Transformer, LM, Recommendation, A3C, CycleGAN; kBefore2020_08_29, its order from May to
  /// August 2020: A3C after the Transformers, CycleGAN last.
  enum class JobTable { kCurrent, kBefore2020_08_29 };
  JobTable job_table = JobTable::kCurrent;
  SourceLocation where;
};

/// Gavel's 26 job templates (job_table.py) in the order `order` gives: the job type and whether
/// it may run on several GPUs ("distributed").
struct GavelTemplate {
  std::string job_type;
  bool distributed = false;
};
const std::vector<GavelTemplate>& gavel_job_table(
    GavelGenerate::JobTable order = GavelGenerate::JobTable::kCurrent);

/// The jobs Gavel's simulator generates with seed `seed` (job id i is element i, `line` i + 1):
/// per job from the stream seeded seed + 2, the scale factor (always drawn; 1 unless multi-GPU),
/// the duration on one `reference_type` GPU, the template of `g.job_table`'s order (redrawn until
/// distributed when the scale factor is above 1), steps = duration x the table's throughput of
/// (type, scale factor) on `reference_type` (rounded to the nearest integer, at least 1), the
/// weight when asked; the arrivals from the stream seeded seed + 3: 0 for the first job, then each
/// gap -ln(1 - random()) / (1 / (3600 / rate)) (0 in static mode). InputError (at `g.where`) when
/// the table lacks a drawn (type, scale factor) on `reference_type` or gives it throughput 0.
std::vector<GavelTraceJob> generate_gavel_jobs(const GavelGenerate& g, std::uint64_t seed,
                                               const ThroughputTable& table,
                                               const std::string& reference_type);

}  // namespace tidesim::workloads
