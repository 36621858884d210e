#pragma once
/// The built-in job-level policies, on the public interface (job_policy.hpp;
/// docs/job-scheduling.md, "Job-level policies"):
///  - FIFO: by submission (non-preemptive).
///  - SJF: shortest estimated run time first (non-preemptive).
///  - SRTF: shortest estimated remaining time first (preemptive); Schrage & Miller, "The queue
///    M/G/1 with the shortest remaining processing time discipline", Oper. Res. 14(4), 1966.
///  - Tiresias: discretised two-dimensional least-attained-service (attained service = GPUs x
///    running time), K queues split by thresholds, FIFO inside a queue, starvation promotion
///    (STARVELIMIT), preemptive; Gu et al., "Tiresias: A GPU Cluster Manager for Distributed
///    Deep Learning", NSDI'19, sections 3.2-3.3 and 4.
#include <cstdint>
#include <vector>

#include "tidesim/sim/admission/job_policy.hpp"

namespace tidesim {

class FifoPolicy final : public OrderedJobPolicy {
 public:
  explicit FifoPolicy(bool backfill = true) : OrderedJobPolicy(false, backfill) {}
  std::string_view name() const override { return "fifo"; }
  bool before(const JobView& a, const JobView& b) const override;
};

class SjfPolicy final : public OrderedJobPolicy {
 public:
  explicit SjfPolicy(bool backfill = true) : OrderedJobPolicy(false, backfill) {}
  std::string_view name() const override { return "sjf"; }
  bool before(const JobView& a, const JobView& b) const override;
};

class SrtfPolicy final : public OrderedJobPolicy {
 public:
  explicit SrtfPolicy(bool backfill = true, Duration interval = std::chrono::seconds(60))
      : OrderedJobPolicy(true, backfill), interval_(interval) {}
  std::string_view name() const override { return "srtf"; }
  std::optional<Duration> interval() const override { return interval_; }
  bool before(const JobView& a, const JobView& b) const override;

 private:
  Duration interval_;
};

/// Tiresias keeps, per job, its queue, its place in it and its times since it last entered queue
/// 0, accounted at each decision from the jobs' admitted state since the one before.
class TiresiasPolicy final : public OrderedJobPolicy {
 public:
  /// What Tiresias keeps of one job.
  struct Entry {
    bool known = false;
    /// Its queue (0 = highest priority) and its place in it (smaller = earlier).
    int queue = 0;
    std::int64_t queue_seq = 0;
    /// Since it last entered queue 0: GPU-seconds attained (the artifact's executed_time x
    /// GPUs) and seconds admitted; seconds waiting since then, once it has run.
    double service_gpu_s = 0.0;
    double executed_s = 0.0;
    double starving_s = 0.0;
    TimePoint accounted{};
  };

  explicit TiresiasPolicy(const AdmissionConfig& config);
  std::string_view name() const override { return "tiresias"; }
  std::optional<Duration> interval() const override { return interval_; }
  /// Accounts the times since the last decision, gives new jobs their place at the back of
  /// queue 0 (in submission order), then moves jobs: a job in queue k whose service reaches
  /// thresholds[k] is demoted to the last queue whose threshold it reached, at its back; with
  /// starvation_limit > 0 a waiting job outside queue 0 that ran before and has starved for
  /// >= limit x executed_s is promoted to the back of queue 0, its times reset.
  void prepare(const JobPolicyState& state) override;
  bool before(const JobView& a, const JobView& b) const override;

  /// Jobs moved (demoted or promoted) by the last prepare().
  int moved() const { return moved_; }
  const Entry& entry(int id) const { return entries_.at(static_cast<std::size_t>(id)); }
  /// Sets what Tiresias keeps of job `id` (a unit test's starting point).
  void set_entry(int id, const Entry& e);

 private:
  Entry& at(int id);

  std::vector<double> thresholds_;
  double starvation_limit_;
  Duration interval_;
  std::vector<Entry> entries_;
  std::int64_t next_seq_ = 0;
  int moved_ = 0;
};

}  // namespace tidesim
