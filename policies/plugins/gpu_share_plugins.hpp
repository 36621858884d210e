#pragma once
/// The six GPU-sharing policies of the FGD paper as Score plugins (rules in gpu_share.hpp,
/// formulas in docs/policies.md "GPU-sharing policies"): RandomScore, DotProductScore,
/// GpuClusteringScore, GpuPackingScore, BestFitScore, FGDScore. Each also decides which cards of
/// the chosen node the pod gets (CardChooserPlugin), which the binder honours.
///
/// The plugins read the per-card state of NodeInfo::gpu_milli_left, the node's GPU model from its
/// label `tidesim.io/gpu-model` (or `nvidia.com/gpu.product`), and a pod's allowed models from a
/// required node-affinity term on `tidesim.io/gpu-model` (how openb's gpu_spec is carried).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tidesim/policies/plugins/gpu_share.hpp"
#include "tidesim/policies/framework.hpp"
#include "tidesim/policies/plugin_args.hpp"

namespace tidesim::policies {

/// Numbers GPU model names for the policies' model masks (at most 64 models).
class GpuModelIds {
 public:
  /// The id of `name` (assigned on first sight); -1 for an empty name or past 64 models.
  int id(const std::string& name);
  /// The mask of a '|'-separated list of models (empty: 0, any model).
  std::uint64_t mask(const std::string& spec);

 private:
  std::map<std::string, int, std::less<>> ids_;
};

/// What the fill experiment and the framework both call: one policy's rules on the policies'
/// node state.
class GpuShareScorer : public ScorePlugin, public PreScorePlugin, public CardChooserPlugin {
 public:
  explicit GpuShareScorer(gpushare::Policy policy) : policy_(policy) {}

  /// The policy.
  gpushare::Policy policy() const { return policy_; }
  /// The verdict on `node` (BestFit: the raw score, before normalisation).
  gpushare::Verdict verdict(const gpushare::NodeState& node, const gpushare::PodReq& pod) const {
    return gpushare::score(policy_, node, pod, typical_);
  }
  /// FGD's typical pods (empty for the other policies).
  void set_typical_pods(std::vector<gpushare::TypicalPod> typical) {
    typical_ = std::move(typical);
  }
  std::span<const gpushare::TypicalPod> typical_pods() const { return typical_; }
  /// FGD's popularity threshold for typical pods (0.95).
  void set_threshold(double t) { threshold_ = t; }
  double threshold() const { return threshold_; }
  /// True for FGD: the plugin wants the workload's typical pods.
  bool wants_workload() const override { return policy_ == gpushare::Policy::kFgd; }
  void observe_workload(std::span<const PodSpec> pods) override;

  // ---- framework ----
  Status pre_score(CycleContext& ctx, const PodSpec& pod, std::span<const int> feasible) override;
  std::int64_t score(CycleContext& ctx, const PodSpec& pod, int node_index) override;
  bool has_normalize() const override { return policy_ == gpushare::Policy::kBestFit; }
  void normalize(const CycleContext& ctx, const PodSpec& pod, std::span<const int> feasible,
                 std::span<std::int64_t> scores) override;
  std::vector<int> choose_cards(CycleContext& ctx, const PodSpec& pod, int node_index) override;
  std::string_view name() const override;

  /// The policies' view of node `node_index` of `cluster`.
  gpushare::NodeState node_state(const ClusterView& cluster, int node_index);
  /// The policies' view of `pod`.
  gpushare::PodReq pod_req(const PodSpec& pod);

 private:
  gpushare::Policy policy_;
  std::vector<gpushare::TypicalPod> typical_;
  GpuModelIds models_;
  gpushare::PodReq cycle_pod_;
  double threshold_ = 0.95;
};

/// Factories of the scores that take no args (besides apiVersion/kind).
std::unique_ptr<Plugin> make_random_score();
std::unique_ptr<Plugin> make_dot_product_score();
std::unique_ptr<Plugin> make_gpu_clustering_score();
std::unique_ptr<Plugin> make_gpu_packing_score();
std::unique_ptr<Plugin> make_best_fit_score();

/// FGDScore's args.
struct FgdScoreArgs {
  /// typicalPodThreshold, 0-1: the share of pods the typical-pod set covers.
  double typical_pod_threshold = 0.95;
};
FgdScoreArgs parse_fgd_score_args(const PluginArgs& args);
std::unique_ptr<Plugin> make_fgd_score(const FgdScoreArgs& args);

/// The registry name of each policy's plugin, e.g. "FGDScore".
std::string_view gpu_share_plugin_name(gpushare::Policy policy);
/// The built-in profile name of each policy: random, dot-product, gpu-clustering, gpu-packing,
/// best-fit, fgd.
std::string_view gpu_share_profile_name(gpushare::Policy policy);
/// The policy of a built-in profile name; nullopt for other names.
std::optional<gpushare::Policy> gpu_share_policy_of_profile(std::string_view name);

}  // namespace tidesim::policies
