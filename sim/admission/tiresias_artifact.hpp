#pragma once
/// Tiresias as the Pollux artifact runs it (petuum/adaptdl branch osdi21-artifact,
/// simulator/tiresias.py and simulator.py; docs/artifact-policies.md, "Tiresias as the artifact
/// runs it"): the built-in Tiresias' queues (two queues split at 16 GPU-hours, FIFO inside a
/// queue, backfill), but
///  - decisions only at rounds, the instants that are whole multiples of `interval` (60 s) from
///    the start of the run: a job that arrives waits for the next round, the GPUs of a job that
///    ends stay idle until the next round (between rounds the decision keeps every admitted job
///    and admits none);
///  - the artifact's placement: a job admitted at a round is given its GPUs greedily, node by
///    node, from the node with the most free GPUs (the lowest-numbered among equals), taking as
///    many as it still needs or the node has; the jobs it keeps hold what they were given. The
///    nodes go to the framework as the job's placement hint (JobDecision::nodes). A node's free
///    GPUs are its allocatable ones less the kept jobs' (their bound pods, found by the label
///    consolidation gives them, and the unbound rest of their plan): the cluster is assumed to
///    run only the jobs of this policy, as the artifact's.
/// Both can be turned off (`args: {rounds: false}`, `args: {placement: framework}`) to measure
/// each difference on its own.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/admission/artifact_placement.hpp"
#include "tidesim/sim/admission/builtin_job_policies.hpp"
#include "tidesim/sim/admission/job_policy.hpp"

namespace tidesim {

class TiresiasArtifactPolicy final : public JobPolicy {
 public:
  /// Its parameters are `config`'s typed args (job_args<ArtifactArgs>, decode_artifact_args):
  /// `rounds` (true/false, default true), `placement` (`artifact`, default, or `framework`: no
  /// hint).
  explicit TiresiasArtifactPolicy(const AdmissionConfig& config);
  std::string_view name() const override { return "tiresias-artifact"; }
  /// The time from the last decision to the next round (so that ticks fall on rounds even when
  /// they start at a job's arrival); the interval itself without rounds.
  std::optional<Duration> interval() const override;
  JobDecision decide(const JobPolicyState& state) override;

  /// True when `t` is a round: a whole multiple of the interval.
  bool at_round(TimePoint t) const;
  /// The GPUs per node (node index -> GPUs) the policy gave job `id` when it last admitted it;
  /// empty when it holds none.
  std::map<int, int> planned(int id) const { return placement_.planned(id); }
  /// The queues (what Tiresias keeps of each job).
  const TiresiasPolicy& queues() const { return queues_; }

 private:
  TiresiasPolicy queues_;
  ArtifactRounds rounds_;
  bool at_rounds_ = true;
  bool place_ = true;
  ArtifactPlacement placement_;
};

}  // namespace tidesim
