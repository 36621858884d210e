#pragma once
/// Elastic jobs of the Pollux applications (docs/pollux.md, "Elastic jobs"): a job whose
/// replica count and batch size change at run time, as AdaptDL's (Qiao et al., OSDI'21; the
/// artifact's simulator.py Job). Its work is counted in its application's progress units (steps
/// at the initial batch: the validation runs' `progress`), so a resize keeps it. In epoch e, on a
/// placement, at total batch B (atomic batch a, accumulation steps k) it makes
///   gain(B, e) / total_time       progress units per second,
///   total_time = step(a) + k x (step(a) - sync(a))
/// (PolluxApplication::gain, throughput), and the epoch ends at progress(e + 1); the job ends at
/// progress(max_epochs). The batch is either fixed (the job's; Optimus runs jobs so) or adaptive:
/// chosen at each epoch and placement as AdaptDL chooses it, the goodput-best of 50 total batch
/// sizes spaced geometrically from max(init, min_local x replicas) to the application's largest,
/// each split as the artifact splits it (GoodputFunction.optimize, accumulation on). AdaptDL
/// chooses with the throughput model it fitted to its own measurements; tidesim with the
/// measurements themselves (an assumption: docs/pollux.md says what it changes).
#include <memory>
#include <optional>
#include <vector>

#include "tidesim/workloads/job.hpp"
#include "tidesim/workloads/pollux.hpp"

namespace tidesim::workloads {

/// The configuration an elastic Pollux job runs at on a placement in an epoch.
struct PolluxConfig {
  int batch_size = 0;
  PolluxApplication::LocalBatch local;
  /// Seconds per step (total_time) and its computed part, (step - sync) x (1 + accum).
  double step_seconds = 0;
  double compute_seconds = 0;
  /// Progress units per second: gain / step_seconds.
  double goodput = 0;
};

/// The job's configuration on `gpus_per_node` in `epoch`: at `batch_size`, or adaptive (0).
PolluxConfig pollux_config(const PolluxApplication& app, const std::vector<int>& gpus_per_node,
                           int epoch, int batch_size);

/// An elastic job's speed at one replica count, in seconds per progress unit.
class PolluxElasticSpeed final : public MeasuredSpeed {
 public:
  /// `batch_size` 0: adaptive. With `whole_epochs` (`workload.pollux.whole_epochs`), the
  /// artifact's rounding of each epoch's end to a whole second (simulator.py Job.step: `delta =
  /// round((next_progress - progress) / goodput)`): from `done` in epoch e, the time to the
  /// epoch's end is round((progress(e + 1) - done) / goodput) seconds, spread evenly over the
  /// units left (step_seconds_at); the averages (step_seconds, compute_seconds) stay exact.
  PolluxElasticSpeed(std::shared_ptr<const PolluxApplication> app, int batch_size,
                     bool whole_epochs = false);
  /// The mean over the whole job (every epoch at its own speed): steps x this = its run time.
  double step_seconds(const std::vector<int>& gpus_per_node) const override;
  double compute_seconds(const std::vector<int>& gpus_per_node) const override;
  /// In the epoch that holds `done`.
  double step_seconds_at(const std::vector<int>& gpus_per_node, double done) const override;
  double compute_seconds_at(const std::vector<int>& gpus_per_node, double done) const override;
  /// The end of the epoch that holds `done` (nullopt in the last).
  std::optional<double> next_change(double done) const override;
  /// The configuration in the epoch that holds `done`, its measured step and sync (the
  /// placement's, at its atomic batch) and the gradient statistics at its batch.
  std::optional<StepReport> report(const std::vector<int>& gpus_per_node,
                                   double done) const override;
  /// The epoch that holds `done` progress units.
  int epoch_at(double done) const;

 private:
  /// Seconds per unit from `done` to the end of its epoch: 1 / goodput, or with whole epochs
  /// the rounded time over the units left.
  double seconds_per_unit(const PolluxConfig& c, double done) const;

  std::shared_ptr<const PolluxApplication> app_;
  int batch_size_;
  bool whole_epochs_;
};

class PolluxElastic final : public ElasticModel {
 public:
  /// `batch_size` 0: adaptive; `max_replicas` 0: the most the application's largest batch can
  /// split into (max_batch / min_local); `adaptive_batch`: the batch it runs at when asked to
  /// adapt (kAdaptiveBatch), 0: it adapts (ncf's 32,768: the artifact pins it under Pollux);
  /// `whole_epochs`: its speeds end each epoch at a whole second (PolluxElasticSpeed).
  PolluxElastic(std::shared_ptr<const PolluxApplication> app, int batch_size, int min_replicas,
                int max_replicas, int adaptive_batch = 0, bool whole_epochs = false);
  int min_replicas() const override { return min_replicas_; }
  int max_replicas() const override { return max_replicas_; }
  int min_batch_size() const override { return app_->init_batch_size(); }
  int max_batch_size() const override { return app_->max_batch_size(); }
  int min_atomic_batch() const override { return app_->min_local_bsz(); }
  int max_atomic_batch() const override { return app_->max_local_bsz(); }
  std::shared_ptr<const MeasuredSpeed> speed(int replicas, int batch_size) const override;
  /// The job's work: progress(max_epochs), rounded to whole units.
  std::int64_t steps() const;

 private:
  std::shared_ptr<const PolluxApplication> app_;
  int batch_size_;
  int min_replicas_;
  int max_replicas_;
  int adaptive_batch_;
  bool whole_epochs_;
};

}  // namespace tidesim::workloads
