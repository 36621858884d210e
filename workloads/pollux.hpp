#pragma once
/// The Pollux artifact's applications and workloads (Qiao et al., "Pollux: Co-adaptive Cluster
/// Scheduling for Goodput-Optimized Deep Learning", OSDI'21; petuum/adaptdl branch
/// osdi21-artifact, simulator/applications.py and simulator.py): each application's measured
/// step and gradient-sync time per placement and local batch, and its training progress per
/// epoch at several total batch sizes. A job of a workload CSV (name,time,application,
/// num_replicas,batch_size) trains its application at a fixed batch size on a fixed number of
/// GPUs, as the artifact's Tiresias+TunedJobs does; its run time is
///   total_time(placement) x W,
/// with total_time the artifact's step time (step + accum_steps x (step - sync)) and W the
/// work in steps: sum over epochs e < max_epochs of (progress(e + 1) - progress(e)) / gain(e),
/// gain(e) = (var + sqr) / (var / scale + sqr) (the artifact's statistical efficiency, from the
/// epoch's gradient statistics). Formulas and differences: docs/pollux.md.
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "tidesim/sim/engine/random.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/workloads/job.hpp"
#include "tidesim/workloads/linear_nd_interpolator.hpp"

namespace tidesim::workloads {

/// One measured configuration: step and gradient-sync seconds at a local batch.
struct PolluxSample {
  double local_bsz = 0;
  double step_time = 0;
  double sync_time = 0;
};

/// One epoch of a validation run at one total batch size.
struct PolluxEpoch {
  double progress = 0;
  double grad_sqr = 0;
  double grad_var = 0;
  /// Iterations (steps at the run's batch) by the epoch's end.
  double iteration = 0;
};

/// One application of the artifact, read from `<dir>/<name>/`.
class PolluxApplication {
 public:
  /// Reads placements.csv, scalability.csv and validation-<bsz>.csv of `dir`; `max_epochs` and
  /// `max_local_bsz` (0: the largest measured) are the artifact's per-application settings.
  /// InputError naming the file, line and column on a malformed file.
  PolluxApplication(const std::string& dir, const std::string& name, int max_epochs,
                    int max_local_bsz);

  const std::string& name() const { return name_; }
  int init_batch_size() const { return validation_.begin()->first; }
  int max_batch_size() const { return validation_.rbegin()->first; }
  int max_epochs() const { return max_epochs_; }
  /// The validation runs, one per validated total batch size, epoch by epoch.
  const std::map<int, std::vector<PolluxEpoch>>& validation() const { return validation_; }
  /// The smallest and largest local (atomic) batch a replica takes (placements.csv's range; the
  /// largest may be set lower, as yolov3's).
  int min_local_bsz() const { return min_local_bsz_; }
  int max_local_bsz() const { return max_local_bsz_; }

  /// The artifact's local batch for `batch_size` over `replicas` GPUs
  /// (Job.update_local_bsz with a target batch size): atomic local batch and accumulation steps.
  struct LocalBatch {
    int atomic = 0;
    int accum_steps = 0;
  };
  LocalBatch local_batch(int batch_size, int replicas) const;

  /// Step and sync seconds for `gpus_per_node` (GPUs of each node used, in the job's rank order:
  /// the order its pods list their nodes) at local batch `local_bsz`: the measured placement
  /// (the counts' smallest rotation, as the artifact normalises them: {4, 4, 2, 2} is "2244",
  /// {2, 4, 2, 4} "2424") interpolated linearly in the local batch; a placement that was not
  /// measured is interpolated linearly in (nodes capped at 16, GPUs, local batch) over the Delaunay
  /// triangulation of the measured configurations (LinearNdInterpolator; docs/pollux.md).
  /// InputError naming placements.csv, the application and the placement when that point lies
  /// outside the measured configurations (the artifact asserts).
  PolluxSample throughput(const std::vector<int>& gpus_per_node, double local_bsz) const;

  /// W: the work in steps of a job at total batch `batch_size` (see the file comment).
  double work_steps(int batch_size) const;
  /// W's terms, one per epoch: (progress(e + 1) - progress(e)) / gain(e), e < max_epochs.
  std::vector<double> epoch_work_steps(int batch_size) const;

  /// The gradient's squared norm and variance in `epoch` at total batch `batch_size`: linear
  /// between the validated batch sizes around it (get_grad_stats).
  std::pair<double, double> grad_stats(double batch_size, int epoch) const;
  /// The progress (steps at the initial batch) by the start of `epoch`, 0..max_epochs:
  /// the least any validation run made by the end of the epoch before (get_progress).
  double progress(int epoch) const;
  /// The statistical efficiency of one step at total batch `batch_size` in `epoch`, in progress
  /// per step: (var + sqr) / (var / scale + sqr), scale = batch_size / init_batch_size.
  double gain(double batch_size, int epoch) const;

 private:
  std::string name_;
  int max_epochs_ = 0;
  int min_local_bsz_ = 0;
  int max_local_bsz_ = 0;
  std::map<int, std::vector<PolluxEpoch>> validation_;
  /// Measured placements ("24", "1123", ...) -> samples sorted by local batch.
  std::map<std::string, std::vector<PolluxSample>> placements_;
  /// Over (nodes, GPUs, local batch) -> (step, sync): the placements' means per (nodes, GPUs,
  /// local batch), in that order, then the scalability runs in the file's order (the artifact's
  /// points); null with `configurations_error_` when they span no volume.
  std::shared_ptr<const LinearNdInterpolator> configurations_;
  std::string configurations_error_;
  /// The interpolated (step, sync) of each (nodes, GPUs, local batch) asked: the queries repeat
  /// (an adaptive job asks 50 batches at each epoch), the walk through the simplices is the cost.
  /// The runs of a process share the application (load_pollux_applications) across threads,
  /// hence the lock.
  struct Memo {
    std::mutex lock;
    std::map<std::tuple<int, int, double>, std::array<double, 2>> values;
  };
  std::unique_ptr<Memo> memo_ = std::make_unique<Memo>();
  std::string placements_file_;
};

/// The artifact's six applications with its settings (simulator/applications.py: max_epochs
/// bert 2, cifar10 100, deepspeech2 80, imagenet 90, ncf 10, yolov3 50; yolov3's max local batch
/// 8), read from `dir` (the artifact's simulator/traces/, ../shared/data/pollux/). A later call
/// for the same folder, its files unchanged (paths, sizes, modification times), returns the same
/// applications without reading them again.
std::map<std::string, std::shared_ptr<const PolluxApplication>> load_pollux_applications(
    const std::string& dir);

/// A job's speed from its application's measurements (JobSpec::measured).
class PolluxSpeed final : public MeasuredSpeed {
 public:
  /// With `whole_epochs` (`workload.pollux.whole_epochs`), the artifact's rounding of each
  /// epoch to whole seconds (simulator.py Job.step: `delta = round(...)` at each epoch's end):
  /// step_seconds on a placement is sum_e round(W_e x total_time) / `steps` (W_e: the epoch's
  /// work, epoch_work_steps), so that `steps` steps take the artifact's time.
  PolluxSpeed(std::shared_ptr<const PolluxApplication> app, int batch_size, int replicas,
              bool whole_epochs = false, std::int64_t steps = 0);
  double step_seconds(const std::vector<int>& gpus_per_node) const override;
  /// (step_time - sync_time) x (1 + accum_steps): every step but the sync, the last one's
  /// included (with whole epochs, the same share of the rounded step).
  double compute_seconds(const std::vector<int>& gpus_per_node) const override;
  const PolluxApplication& application() const { return *app_; }
  PolluxApplication::LocalBatch local() const { return local_; }

 private:
  /// total_time on a placement (the artifact's step time, before whole epochs).
  double total_seconds(const std::vector<int>& gpus_per_node) const;

  std::shared_ptr<const PolluxApplication> app_;
  PolluxApplication::LocalBatch local_;
  /// With whole epochs: each epoch's work and the job's steps; empty: exact.
  std::vector<double> epoch_work_;
  std::int64_t steps_ = 0;
};

}  // namespace tidesim::workloads
