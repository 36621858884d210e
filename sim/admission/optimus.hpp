#pragma once
/// Optimus (Peng et al., EuroSys'18) as the Pollux artifact runs it (petuum/adaptdl branch
/// osdi21-artifact, simulator/optimus.py; docs/artifact-policies.md, "Optimus"): at each round every
/// active job gets one GPU (in submission order, while GPUs last; a job of a fixed size gets its
/// size or none), then the GPUs left go one at a time to the elastic job with the largest marginal
/// gain
///   gain(j) = T_j(r) - T_j(r + 1),
/// T_j(r) its remaining seconds on r GPUs packed onto as few nodes as they fill (the artifact's
/// predicted step time x remaining iterations; JobPolicyState::remaining_seconds), the first such
/// job on ties, until no gain is positive or no GPU is left; a job is not grown past its
/// max_replicas. Jobs whose count changed and new jobs are placed by the artifact's greedy
/// placement (artifact_placement.hpp), fewest GPUs first; the others keep their GPUs.
/// Parameters (`args:`): `rounds` (true/false, default true: decisions only at rounds of
/// `interval`, as tiresias-artifact), `placement` (`artifact`, default, or `framework`).
#include <optional>
#include <string_view>

#include "tidesim/sim/admission/artifact_placement.hpp"
#include "tidesim/sim/admission/job_policy.hpp"

namespace tidesim {

class OptimusPolicy final : public JobPolicy {
 public:
  /// Its parameters are `config`'s typed args (job_args<ArtifactArgs>, decode_artifact_args).
  explicit OptimusPolicy(const AdmissionConfig& config);
  std::string_view name() const override { return "optimus"; }
  std::optional<Duration> interval() const override;
  JobDecision decide(const JobPolicyState& state) override;

  /// The placement the marginal gains are computed on: `gpus` packed onto nodes of
  /// `gpus_per_node`, full nodes first (optimus.py predict_step_time).
  static std::vector<int> packed(int gpus, int gpus_per_node);

 private:
  ArtifactRounds rounds_;
  bool at_rounds_ = true;
  bool place_ = true;
  ArtifactPlacement placement_;
};

}  // namespace tidesim
