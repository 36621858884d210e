#pragma once
/// The Pollux artifact's placement of the jobs a round admits or resizes (petuum/adaptdl branch
/// osdi21-artifact, simulator/tiresias.py and optimus.py; docs/artifact-policies.md, "Tiresias as
/// the artifact runs it"): each such job, in the order given, takes its GPUs greedily, node by
/// node, from the node with the most free GPUs (the lowest-numbered among equals), as many as it
/// still needs or the node has; the jobs kept as they are hold what they were given. Each pod goes
/// to the framework with its node (JobDecision::pod_nodes, as many pods on a node as the plan
/// gives it GPUs), and the job's nodes as JobDecision::nodes (what a plan that could not hold the
/// whole job falls back to). A node's free GPUs are its
/// allocatable ones less the kept jobs' (their bound pods, found by the label consolidation gives
/// them, and the unbound rest of their plan): the cluster is assumed to run only the jobs of the
/// policy, as the artifact's.
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "tidesim/sim/admission/job_policy.hpp"
#include "tidesim/sim/engine/time.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim {

/// The `args:` of the artifact's Tiresias and Optimus: each difference from the framework's way
/// can be turned off.
struct ArtifactArgs {
  /// `rounds`: decide only at the artifact's rounds (ArtifactRounds).
  bool rounds = true;
  /// `placement: artifact` (true) places the jobs a round admits as the artifact does
  /// (ArtifactPlacement); `framework` leaves them to the scheduling framework.
  bool artifact_placement = true;
};

/// Reads ArtifactArgs from a policy's `args:` (JobPolicyEntry::decode): `rounds` (true or false)
/// and `placement` (artifact or framework); an InputError naming the field otherwise.
ArtifactArgs decode_artifact_args(Fields& args);

/// The artifact's decision rounds (simulator.py: `--interval`, 60 s): the instants that are whole
/// multiples of the interval from the start of the run.
class ArtifactRounds {
 public:
  /// std::invalid_argument (naming `policy`) unless `interval` is positive.
  ArtifactRounds(Duration interval, std::string_view policy);
  /// True when `t` is a round.
  bool at_round(TimePoint t) const;
  /// A decision was made at `t`.
  void mark(TimePoint t) { last_ = t; }
  /// Marks the decision at state.now; with `rounds` and between rounds, fills `decision` with
  /// the admitted jobs (nothing changes: they keep their GPUs, none is admitted) and returns true.
  bool hold(const JobPolicyState& state, bool rounds, JobDecision& decision);
  /// The time from the last decision to the next round (so that ticks fall on rounds even when
  /// they start at a job's arrival).
  Duration to_next() const;
  Duration interval() const { return interval_; }

 private:
  Duration interval_;
  std::optional<TimePoint> last_;
};

class ArtifactPlacement {
 public:
  /// Places `fresh` (a job and the GPUs it is given, in placement order) beside `kept` (jobs
  /// keeping their GPUs), naming each fresh job's nodes in `decision.nodes`. Plans of jobs in
  /// neither are forgotten. Without a cluster view (a state built by hand) nothing is named.
  void place(const JobPolicyState& state, const std::vector<const JobView*>& kept,
             const std::vector<std::pair<const JobView*, int>>& fresh, JobDecision& decision);
  /// The GPUs per node (node index -> GPUs) job `id` was given when last placed; empty when
  /// it holds none.
  std::map<int, int> planned(int id) const;

 private:
  /// Drops the plans of the jobs not in `kept`.
  void forget_unkept(const std::vector<const JobView*>& kept);
  /// Free GPUs per node once the kept jobs hold theirs.
  std::vector<std::int64_t> free_gpus(const std::vector<NodeInfo>& nodes,
                                      const std::vector<const JobView*>& kept);

  std::map<int, std::map<int, int>> planned_;
};

}  // namespace tidesim
