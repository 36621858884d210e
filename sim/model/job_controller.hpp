#pragma once
/// The Job controller and the kubelet's restarts: a submitted job gets its pods (replicas of the
/// template), they go to the scheduling loop, and when all are bound the containers start after
/// `run.pod_startup`. When an attempt fails (OOM), the job's restartPolicy decides:
///  - Never: the pods fail and are deleted; after the Job controller's back-off (10 s doubling,
///    6 min cap) new pods are created and scheduled afresh;
///  - OnFailure: the pods stay bound to their node and cards; the kubelet restarts the
///    containers in place after CrashLoopBackOff (10 s doubling, 5 min cap, reset after 10 min
///    of running).
/// Either way the job resumes from its last checkpoint, and each failure counts against
/// backoffLimit; past it the job fails and its pods are deleted. A multi-pod job's attempt is
/// all its pods: one worker's failure stops the others (a collective cannot go on without it).
///
/// An interruption (interrupt(): preemption) is not a failure: the attempt stops, its progress
/// since the last checkpoint is lost, its pods are deleted and replaced at once, whatever the
/// restartPolicy (the pods were deleted, so the kubelet cannot restart them in place), and it
/// does not count against backoffLimit (a Job's podFailurePolicy commonly says
/// `action: Ignore` for pods with the DisruptionTarget condition, which preemption sets).
#include <functional>
#include <string>
#include <vector>

#include "tidesim/sim/admission/job_policy.hpp"
#include "tidesim/sim/model/execution.hpp"
#include "tidesim/sim/model/run_context.hpp"

namespace tidesim {

/// Why a job's attempt is stopped from outside (JobController::interrupt), not by its own failure.
enum class InterruptCause {
  kPreemption,   ///< a victim of DefaultPreemption, deleted after its grace period
  kNodeFailure,  ///< the node went down
  kCardFailure,  ///< an XID-style error on one of the job's cards
  kDrain,        ///< a planned drain of the node
  kMigration,    ///< evicted by a descheduler to run elsewhere
  kSuspension,   ///< suspended by the job-level admission policy (SRTF, Tiresias, quota reclaim)
  kResize,       ///< an elastic job resized by the job-level policy (it checkpoints first)
};

/// "preemption", "node-failure", "card-failure", "drain", "migration", "suspension", "resize".
const char* to_string(InterruptCause cause);

class JobController final : public ExecutionListener {
 public:
  /// `enqueue` hands a new pod to the scheduling loop; `cluster_event` tells it that resources
  /// were freed on the nodes it names (the ClusterView changed there and nowhere else); `all_done`
  /// is called once every job has ended, or every job of `run.job_window` has.
  JobController(RunContext& run, std::function<void(std::shared_ptr<const PodSpec>)> enqueue,
                std::function<void(const std::set<int>&)> cluster_event,
                std::function<void()> all_done);

  /// Wires the execution model (constructed after the controller, which is its listener).
  void set_execution(Execution& execution) { execution_ = &execution; }

  /// Job `j` is submitted now: its pods are created and queued.
  void submit(int j);
  /// Pod `p` was bound to `cards` of its node; starts the job once all its pods are bound.
  void on_bound(int p);

  void on_finished(int j) override;
  void on_oom(int j) override;

  /// Stops job `j`'s attempt from outside: each bound pod is evicted (a kEvicted event naming
  /// `cause`), progress goes back to the last checkpoint, the pods are deleted and the Job
  /// controller creates new ones at once, to be scheduled afresh (whatever the restartPolicy: the
  /// node or card is gone). Unlike an OOM kill it does not count against backoffLimit (as a
  /// Kubernetes podFailurePolicy that ignores DisruptionTarget). A job that is not submitted,
  /// already waiting for new pods, or ended is left alone. `restore`: once the next attempt's
  /// pods are bound, its work resumes after run.pod_startup plus this long (a migrated job
  /// loading its checkpoint; docs/descheduling.md).
  void interrupt(int j, InterruptCause cause, Duration restore = Duration::zero());

  /// One pod of a job to replace: its index `k` in the job's pods, and the node the new one must
  /// go to (its name; empty: wherever the scheduler places it).
  struct PodReplacement {
    int k = 0;
    std::string node;
  };
  /// Replaces pods of running job `j` whose node failed (or whose partition restarts): the
  /// attempt stops (progress back to the last checkpoint), each of those pods is evicted (a
  /// kEvicted event naming `cause`, the job's loss on the first) and deleted, and a new pod of
  /// the job's template is queued in its place, with a required node affinity on its `node` when
  /// one is named; the other pods stay bound. Once every pod is bound again the job restarts after
  /// run.pod_startup plus `restore` (Kueue's TASFailedNodeReplacement, hot spares, Volcano's
  /// RestartPartition: sim/model/gang_failures.hpp). Not counted against backoffLimit. The new
  /// pods carry no PodGroup label: the gang's other members are bound already.
  void replace_pods(int j, const std::vector<PodReplacement>& pods, InterruptCause cause,
                    Duration restore);
  /// Restarts running job `j`'s containers in place after `delay` (a software failure, planned
  /// maintenance: sim/model/gang_failures.hpp); progress goes back to the last checkpoint, the
  /// pods stay bound. Not counted against backoffLimit.
  void restart_in_place(int j, Duration delay);

  /// Suspends job `j` for its job-level admission policy: interrupt(kSuspension), and an elastic
  /// job checkpoints first (AdaptDL checkpoints whenever its scheduler takes its GPUs: a
  /// suspension loses nothing, as a resize); any other job loses the work since its last
  /// checkpoint.
  void suspend(int j);
  /// Job `j`'s next start waits `delay` more once its pods are bound (beyond run.pod_startup and
  /// any restore time an interrupt gave it: the longer of the two): a policy's start delay
  /// (JobDecision::start_delay).
  void delay_next_start(int j, Duration delay);

  /// Resizes elastic job `j` to `replicas` at total batch `batch_size` (0: its own rule): a running
  /// job checkpoints (AdaptDL checkpoints when it is rescaled: nothing is lost), its attempt stops
  /// as interrupt(kResize) stops it, and its next attempt's pods are `replicas` of its template,
  /// at its speed for that size (ElasticModel::speed). A job that is not elastic, or ended, is
  /// refused (std::logic_error).
  void resize(int j, int replicas, int batch_size);
  /// Job `j` (active) continues at `change.speed` from now (and with `change.elastic` when
  /// given), its work `change.done` of `change.steps` (checkpointed), without a restart: a
  /// running job is re-rated, a stopped one resumes there (JobDecision::speed_change).
  void change_speed(int j, const SpeedChange& change);

  /// Called with a job's index each time its pods are about to be created (each attempt), so the
  /// run can declare the job's PodGroup to the scheduling loop first.
  void set_on_new_pods(std::function<void(int)> hook) { on_new_pods_ = std::move(hook); }
  /// Labels each pod it creates with its job (tidesim.io/job: the job's name; tidesim.io/job-kind:
  /// catalogue, measured, elastic or llm; tidesim.io/model: its model), for plugins that read them
  /// (the Python Node view's pods; docs/python.md). Off by default: a label per pod costs memory.
  void set_job_labels(bool on) { job_labels_ = on; }
  /// Called with a job's index when it ends (succeeded, or failed past backoffLimit), after its
  /// pods are deleted: the admission layer (sim/model/admission_controller.hpp) frees its GPUs.
  void set_on_ended(std::function<void(int)> hook) { on_ended_ = std::move(hook); }

  /// Jobs that have not ended.
  int unfinished() const { return unfinished_; }

 private:
  void create_pods(int j);
  // A new pod of job j's template, its replica `r` of the current attempt, in run_.pods (the
  // leader's template for r == replicas when the job has one).
  int make_pod(int j, int r, bool group_label);
  // Ends the current attempt (progress back to the last checkpoint) and restarts the job:
  // `counted` failures count against backoffLimit and may restart in place (OnFailure).
  void end_attempt(int j, bool counted);
  // Deletes the job's pods: cards, view, flows. Tells the loop that resources were freed.
  // `touched`: nodes to re-rate besides the pods' (any order, repeats allowed).
  void delete_pods(int j, std::vector<int> touched);
  // backoffLimit exceeded: the job is failed.
  void fail(int j);
  // Job j waits in `waiting` for `delay`, then begins its next attempt with `restart`.
  void restart_after(int j, JobPhase waiting, Duration delay, std::function<void()> restart);
  // Job j ended for good: counts it, and calls all_done_ when every job (or the window's) ended.
  void terminal(int j);

  RunContext& run_;
  std::function<void(std::shared_ptr<const PodSpec>)> enqueue_;
  std::function<void(const std::set<int>&)> cluster_event_;
  std::function<void()> all_done_;
  Execution* execution_ = nullptr;
  std::function<void(int)> on_new_pods_;
  bool job_labels_ = false;
  std::function<void(int)> on_ended_;
  int unfinished_ = 0;
  // run.job_window: the window's jobs not yet ended, jobs submitted so far, and per job whether
  // it is in the window (empty without one).
  long window_left_ = 0;
  long submitted_ = 0;
  std::vector<bool> in_window_;
  // Per job: the restore time its next start waits for (interrupt's `restore`).
  std::vector<Duration> restore_;
  // The most GPUs a node has (at least 1): the placement of a job's uncontended run time.
  int node_gpus_ = 1;
};

}  // namespace tidesim
