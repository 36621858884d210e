#pragma once
/// The admission layer: between the Job controller and the scheduling queue, a job-level policy
/// (sim/admission/job_policy.hpp, by name from job_policy_registry.hpp) decides which jobs run. As
/// with Kueue, a job that is not admitted has no pod in the scheduling queue: its pods are held
/// here until it is admitted, and then handed to the loop, which places them through the scheduling
/// framework. A preemptive policy suspends an admitted job through JobController::interrupt(j,
/// kSuspension): the attempt loses its progress since its last checkpoint, and the new pods the
/// controller creates are held until the job is admitted again. Capacity is the GPUs the cluster's
/// nodes advertise (device-plugin units). Decisions are made when a job's pods are created, when a
/// job ends and, for a policy with an interval (SRTF, Tiresias), every interval while jobs are
/// active (docs/job-scheduling.md). The layer checks each decision (active jobs only, within
/// capacity, known nodes) and stops the run with the policy's name when one is not.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "tidesim/sim/admission/job_policy.hpp"
#include "tidesim/sim/admission/job_policy_registry.hpp"
#include "tidesim/sim/engine/simulation.hpp"
#include "tidesim/sim/model/admission_recovery.hpp"
#include "tidesim/sim/model/job_controller.hpp"
#include "tidesim/sim/model/run_context.hpp"
#include "tidesim/sim/model/topology_admission.hpp"

namespace tidesim {

class Admission {
 public:
  /// `release` hands an admitted job's pod to the scheduling loop. `seed` draws the duration
  /// estimates (stream "duration-estimate") when config.estimate_sigma > 0.
  Admission(RunContext& run, JobController& controller, AdmissionConfig config, std::uint64_t seed,
            std::function<void(std::shared_ptr<const PodSpec>)> release);

  /// The Job controller created `pod`: it goes to the loop when its job is admitted, else waits.
  void enqueue(std::shared_ptr<const PodSpec> pod);
  /// Job `j` ended (succeeded or failed): its GPUs are free.
  void on_ended(int j);

  /// The policy's own metrics (JobPolicy::add_metrics).
  void add_metrics(std::map<std::string, double>& out) const {
    if (policy_) {
      policy_->add_metrics(out);
    }
  }
  /// GPUs the policy admits jobs into.
  std::int64_t capacity() const { return capacity_; }
  /// The estimated run time of job `j` (SJF, SRTF), seconds.
  double estimate_s(int j) const { return estimate_[static_cast<std::size_t>(j)]; }

 private:
  struct Entry {
    JobView job;
    bool active = false;
    TimePoint accounted{};
    /// Pods of the current attempt waiting for admission.
    std::vector<int> held;
    /// Its ClusterQueue (index into config.quotas), -1 without; when last admitted; ever admitted.
    int queue = -1;
    /// Its requests of each resource the queues cover (quota_requests).
    std::vector<std::int64_t> requests;
    /// Its pods' priority (the quota walk's preemption).
    std::int32_t priority = 0;
    TimePoint admitted_at{};
    bool ever_admitted = false;
    /// The flavour of each resource it was last admitted with (QuotaDecision::flavors): its pods
    /// get those flavours' node labels as a nodeSelector.
    std::vector<int> flavors;
    /// The nodes the policy's last decision to admit it named (JobDecision::nodes); empty: any.
    std::vector<std::string> nodes;
    /// Or its node per pod (JobDecision::pod_nodes); empty: none.
    std::vector<std::string> pod_nodes;
  };
  QuotaDecision select_with_queues(OrderedJobPolicy& policy, const JobPolicyState& state);
  JobDecision checked(JobDecision decision, const JobPolicyState& state) const;
  void quota_event(int j, bool admitted);
  void request_decision();
  /// Asks the policy, then resizes, suspends and admits jobs as it decided.
  void decide();
  /// Job `j`'s view as the policy sees it now: progress, pods, placement, step report.
  void refresh_view(int j);
  /// What the policy decides on: every active job's view, refreshed.
  JobPolicyState policy_state(TimePoint now);
  /// Resizes (or moves) the chosen elastic jobs whose size, batch or nodes change.
  void resize_chosen(const JobDecision& decision);
  /// Suspends the admitted jobs not `chosen` (sorted).
  void suspend_unchosen(const std::vector<JobView>& jobs, const std::vector<int>& chosen);
  /// Admits the chosen jobs not yet admitted and releases their held pods.
  void admit_chosen(const JobDecision& decision, const QuotaDecision& quota, TimePoint now);
  void account(TimePoint now);
  /// Entry `e` (job `j`) takes the decision's node hints.
  void hint(Entry& e, const JobDecision& decision, int j);
  void release(int p);
  /// Job `j`'s uncontended seconds per step on `placement` (JobPolicyState::step_seconds).
  double step_seconds(int j, const std::vector<int>& placement) const;
  /// Job `j`'s steps done now, and its progress, steps done / steps in 0..1.
  double done(int j) const;
  double progress(int j) const;
  /// JobPolicyState::remaining_seconds.
  double remaining_seconds(int j, const std::vector<int>& placement, int batch_size) const;

  RunContext& run_;
  JobController& controller_;
  AdmissionConfig config_;
  std::unique_ptr<JobPolicy> policy_;
  std::function<void(std::shared_ptr<const PodSpec>)> release_;
  std::vector<Entry> entries_;
  std::vector<double> estimate_;
  std::int64_t capacity_ = 0;
  std::vector<std::int64_t> queue_usage_;
  /// The index of nvidia.com/gpu in config.quotas->resources; -1 when no queue covers it.
  int gpu_resource_ = -1;
  /// Kueue's topology-aware scheduling, when a flavour names a topology; null otherwise.
  std::unique_ptr<TopologyAdmission> topology_;
  /// Per job: when its topology was first refused (this attempt's wait), and the reason last
  /// emitted.
  std::vector<std::optional<TimePoint>> topology_refused_;
  std::vector<std::string> topology_reason_;
  void topology_event(int j, bool admitted);
  std::int64_t next_order_ = 0;
  bool decision_pending_ = false;
  bool ticking_ = false;
  friend class LayerRecovery;
};

/// The admission layer's answers to the gang failure path (AdmissionRecovery): Kueue's node
/// replacement and eviction for its TAS-admitted jobs (TopologyAdmission::replace_node), and the
/// restarted partitions of a policy that places the held pods of admitted jobs.
class LayerRecovery final : public AdmissionRecovery {
 public:
  explicit LayerRecovery(Admission& admission) : a_(admission) {}
  bool admitted_by_tas(int j) const override;
  bool replace_node(int j, const std::string& node) override;
  void evict(int j, InterruptCause cause, Duration restore) override;
  bool replan_pods(int j, const std::vector<int>& pods) override;

 private:
  Admission& a_;
};

}  // namespace tidesim
