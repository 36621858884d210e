#pragma once
/// Gavel's and Shockwave's traces as tidesim jobs (docs/gavel.md, "Running the policies"): each
/// trace row is a job of `scale_factor` pods of one GPU whose speed is the throughput table's for
/// its job type on the GPU model of the nodes it runs on; Shockwave's rows also change their batch
/// size by epoch (workloads/shockwave_batch.hpp).
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tidesim/sim/input/error.hpp"
#include "tidesim/workloads/gavel_generate.hpp"
#include "tidesim/workloads/gavel_trace.hpp"
#include "tidesim/workloads/job.hpp"
#include "tidesim/workloads/shockwave_batch.hpp"
#include "tidesim/workloads/throughput_table.hpp"

namespace tidesim::workloads {

/// The `workload.gavel:` section.
struct GavelSource {
  /// A trace in one of gavel_trace.hpp's layouts; or, when `generate` is given, none.
  std::string trace;
  /// Jobs from Gavel's generator instead of a trace (workloads/gavel_generate.hpp).
  std::optional<GavelGenerate> generate;
  /// The throughput table (Gavel's simulation_throughputs.json layout).
  std::string throughputs;
  /// The cluster's GPU models (a node group's `gpu`) and the table's names for them.
  std::map<std::string, std::string> gpu_types = {{"V100-SXM2-16", "v100"}, {"P100", "p100"}};
  /// The GPU model whose throughput gives a job's run time alone (Gavel's and Shockwave's
  /// finish-time fairness reference: v100).
  std::string reference_gpu = "V100-SXM2-16";
  /// Shockwave's batch sizes by epoch for rows of mode accordion/gns; false: every job static.
  bool dynamic_batch = true;
  /// Gavel's whole steps (`whole_steps: 360s`; 0: off): a job of Gavel's layout progresses
  /// int(throughput x round) steps a round, as Gavel's simulator runs it (`_get_num_steps`), so
  /// it computes at int(throughput x round) / round steps per second, alone and in a pair; the
  /// policies still see the table's throughputs.
  double whole_steps_round_s = 0.0;
  /// Every pod's template (1 GPU each is set here).
  PodSpec pod;
  SourceLocation where;
};

/// A range of a job's work at one speed: up to `end` units, `seconds` a unit, and the table's steps
/// (at the batch of the range) a unit: dataset / (units an epoch x batch), 1 at the initial batch.
struct SpeedSegment {
  double end = 0.0;
  double seconds = 0.0;
  double steps_per_unit = 1.0;
  friend bool operator==(const SpeedSegment&, const SpeedSegment&) = default;
};

/// What jobs of Gavel's layout read for space sharing: the throughput table (its pair entries)
/// and the table's type of each GPU model.
struct GavelPairs {
  std::shared_ptr<const ThroughputTable> table;
  std::map<std::string, std::string> gpu_types;
  /// GavelSource::whole_steps_round_s.
  double whole_steps_round_s = 0.0;
};

/// A Shockwave row's batch for the rounds that change it (sim/admission/gavel_batch.hpp): its
/// model at its initial batch, its mode (`static`, `accordion`, `gns`), its GPUs, its batch now,
/// its trace's total steps, and the table and types its speed at another batch is read from.
struct ShockwaveBatch {
  ShockwaveModel model;
  std::string mode;
  int scale_factor = 1;
  int batch = 0;
  std::int64_t total_steps = 0;
  std::shared_ptr<const GavelPairs> tables;
};

/// One job's speed: per GPU model, seconds per unit of work by epoch. A unit is a step at the
/// job's initial batch; a Shockwave job has ceil(dataset / batch) units per epoch, and an epoch
/// at batch b on model g takes (dataset / b) / throughput_g(b) seconds (utils.py get_metric).
class GavelSpeed final : public MeasuredSpeed {
 public:
  /// `segments[g]`: its ranges, ascending; `reference`: the model whose ranges give
  /// steps_left_at(); step_seconds() is the mean over the job alone there.
  /// `pairs` and `key`: the job's table and key, for colocated_on() (null for a Shockwave row,
  /// whose batch changes).
  /// `priority_weight` and `slo`: the row's (Gavel's priority_weight, 1 unless given; its SLO, a
  /// multiple of the run time alone, <= 0: none), for the policies.
  GavelSpeed(std::map<std::string, std::vector<SpeedSegment>> segments, std::string reference,
             double exclusive_s, double units, EpochProfile profile = {},
             std::shared_ptr<const GavelPairs> pairs = nullptr, JobTypeKey key = {},
             double priority_weight = 1.0, double slo = -1.0);
  double step_seconds(const std::vector<int>& gpus_per_node) const override;
  double compute_seconds(const std::vector<int>& gpus_per_node) const override;
  /// False: the table gives no memory (docs/gavel.md, "Pairs in runs").
  bool holds_memory() const override { return false; }
  double step_seconds_on(const std::string& gpu, const std::vector<int>& gpus_per_node,
                         double done) const override;
  double compute_seconds_on(const std::string& gpu, const std::vector<int>& gpus_per_node,
                            double done) const override;
  std::optional<double> next_change(double done) const override;
  /// The table's steps per second at the batch of the epoch now (what Gavel's and Shockwave's
  /// policies are given), per GPU model.
  std::vector<std::pair<std::string, double>> throughputs_at(double done) const override;
  /// The steps left in the table's steps at the batch now (Shockwave rescales a job's steps when
  /// its batch changes, keeping its epochs).
  double steps_left_at(double done, double total) const override;
  /// The run time alone on the reference model (Shockwave's exclusive time: its planning profile).
  double exclusive_seconds() const { return exclusive_s_; }
  /// A Shockwave row's planning profile (the planning batches and their epochs' seconds on the
  /// reference model); null for a row of Gavel's layout.
  const EpochProfile* epoch_profile() const override {
    return profile_.batch.empty() ? nullptr : &profile_;
  }
  /// Space sharing: the steps per second of this job and of `other` while they share their GPUs
  /// of model `gpu`: the table's pair entry of this job's key and `other`'s on `gpu`'s table
  /// type; nullopt where the table has none, or unless both are jobs of one table with a key.
  std::optional<std::pair<double, double>> colocated_on(const std::string& gpu,
                                                        const GavelSpeed& other) const;
  /// The steps per second the pair runs at: colocated_on's, each made whole steps a round
  /// (GavelSource::whole_steps_round_s).
  std::optional<std::pair<double, double>> colocated_run_on(const std::string& gpu,
                                                            const GavelSpeed& other) const;
  /// `throughput` as whole steps a round: int(throughput x round) / round when the source asks
  /// for whole steps and that is at least one step; `throughput` otherwise.
  double whole_steps(double throughput) const;
  /// Gavel's priority weight of the row (trace column priority_weight, the generator's 5 for a
  /// high-priority job; 1 otherwise): the weight of max-min fairness.
  double priority_weight() const { return priority_weight_; }
  /// Gavel's SLO of the row: the deadline is the arrival + slo x the run time alone on the
  /// reference (Gavel's duration); <= 0: none.
  double slo() const { return slo_; }
  /// A Shockwave row's batch (set by set_shockwave_batch); null for a row of Gavel's layout.
  const ShockwaveBatch* shockwave_batch() const { return shockwave_ ? &*shockwave_ : nullptr; }
  void set_shockwave_batch(ShockwaveBatch batch) { shockwave_ = std::move(batch); }
  /// A Shockwave row's speed at batch `batch` for work of `steps` units, a unit a step at that
  /// batch (1 / its throughput on each GPU type, as Shockwave's simulator counts a job's steps at
  /// its batch now), everything else this speed's; null when the table lacks the batch on a type
  /// the job runs on (the simulator refuses such a change and keeps the batch).
  /// std::logic_error for a row of Gavel's layout.
  std::shared_ptr<const GavelSpeed> at_batch(int batch, double steps) const;

 private:
  std::map<std::string, std::vector<SpeedSegment>> segments_;
  std::string reference_;
  double exclusive_s_;
  double units_;
  EpochProfile profile_;
  std::shared_ptr<const GavelPairs> pairs_;
  JobTypeKey key_;
  double priority_weight_;
  double slo_;
  std::optional<ShockwaveBatch> shockwave_;
};

/// GavelSpeed::priority_weight of a GavelSpeed; 1 for any other speed.
double gavel_priority_weight(const MeasuredSpeed& speed);
/// Seconds from a job's arrival to its SLO's deadline (GavelSpeed::slo x exclusive_seconds);
/// nullopt without an SLO or for any other speed.
std::optional<double> gavel_slo_seconds(const MeasuredSpeed& speed);

/// GavelSpeed::colocated_on when both speeds are GavelSpeeds; nullopt otherwise.
std::optional<std::pair<double, double>> gavel_colocated(const MeasuredSpeed& a,
                                                         const MeasuredSpeed& b,
                                                         const std::string& gpu);
/// GavelSpeed::colocated_run_on (what the pair runs at) when both are GavelSpeeds.
std::optional<std::pair<double, double>> gavel_colocated_run(const MeasuredSpeed& a,
                                                             const MeasuredSpeed& b,
                                                             const std::string& gpu);

/// A Gavel job as an elastic job of one size: so that a round's preemption checkpoints it (Gavel's
/// jobs save their state when a lease ends) and a move to other GPUs resumes where it stopped
/// (JobDecision::move). Its replicas and batch never change.
class GavelFixedSize final : public ElasticModel {
 public:
  GavelFixedSize(int replicas, std::shared_ptr<const MeasuredSpeed> speed)
      : replicas_(replicas), speed_(std::move(speed)) {}
  int min_replicas() const override { return replicas_; }
  int max_replicas() const override { return replicas_; }
  int min_batch_size() const override { return 1; }
  int max_batch_size() const override { return 1; }
  std::shared_ptr<const MeasuredSpeed> speed(int replicas, int batch_size) const override {
    (void)replicas;
    (void)batch_size;
    return speed_;
  }

 private:
  int replicas_;
  std::shared_ptr<const MeasuredSpeed> speed_;
};

/// The jobs of `source` (one per trace row, named "<line>" in the trace's order, `job_class` the
/// job type), sorted by arrival. InputError naming the trace's line for a job type the table lacks
/// on every listed GPU type or with throughput 0 on all of them, or missing on the reference.
/// Generated jobs (`source.generate`) are named by Gavel's job id ("0", "1", ...) and drawn with
/// `generate.seed`, or `run_seed` when it has none.
std::vector<JobSpec> gavel_jobs(const GavelSource& source, std::uint64_t run_seed = 0);

}  // namespace tidesim::workloads
