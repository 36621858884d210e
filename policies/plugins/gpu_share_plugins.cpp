#include "tidesim/policies/plugins/gpu_share_plugins.hpp"

#include <algorithm>

#include "tidesim/sim/engine/random.hpp"

namespace tidesim::policies {

namespace gs = gpushare;

int GpuModelIds::id(const std::string& name) {
  if (name.empty()) {
    return -1;
  }
  const auto it = ids_.find(name);
  if (it != ids_.end()) {
    return it->second;
  }
  if (ids_.size() >= 64) {
    return -1;
  }
  const int next = static_cast<int>(ids_.size());
  ids_.emplace(name, next);
  return next;
}

std::uint64_t GpuModelIds::mask(const std::string& spec) {
  std::uint64_t m = 0;
  std::size_t pos = 0;
  while (pos < spec.size()) {
    const std::size_t bar = std::min(spec.find('|', pos), spec.size());
    const int i = id(spec.substr(pos, bar - pos));
    if (i >= 0) {
      m |= std::uint64_t{1} << i;
    }
    pos = bar + 1;
  }
  return m;
}

namespace {

constexpr const char* kModelLabel = "tidesim.io/gpu-model";
constexpr const char* kProductLabel = "nvidia.com/gpu.product";

// The models a pod allows: the values of a required `tidesim.io/gpu-model In [...]` term.
std::string allowed_models(const PodSpec& pod) {
  std::string out;
  for (const auto& term : pod.node_affinity.required) {
    for (const auto& r : term.match_expressions) {
      if (r.key == kModelLabel && r.op == "In") {
        for (const auto& v : r.values) {
          out += (out.empty() ? "" : "|") + v;
        }
      }
    }
  }
  return out;
}

}  // namespace

gs::PodReq GpuShareScorer::pod_req(const PodSpec& pod) {
  const Resources r = pod_requests(pod);
  gs::PodReq p;
  p.cpu = r.cpu_milli;
  p.mem = r.memory_bytes;
  if (r.gpu_milli > 0) {
    p.ng = 1;
    p.gm = static_cast<int>(std::min<std::int64_t>(r.gpu_milli, gs::kMilli));
  } else if (r.gpus > 0) {
    p.ng = static_cast<int>(r.gpus);
    p.gm = gs::kMilli;
  }
  p.models = models_.mask(allowed_models(pod));
  return p;
}

gs::NodeState GpuShareScorer::node_state(const ClusterView& cluster, int node_index) {
  const NodeInfo& info = cluster.nodes[static_cast<std::size_t>(node_index)];
  gs::NodeState n;
  n.cpu_left = info.node.allocatable.cpu_milli - info.requested.cpu_milli;
  n.mem_left = info.node.allocatable.memory_bytes - info.requested.memory_bytes;
  auto label = info.node.labels.find(kModelLabel);
  if (label == info.node.labels.end()) {
    label = info.node.labels.find(kProductLabel);
  }
  n.model = label == info.node.labels.end() ? -1 : models_.id(label->second);
  n.left = info.gpu_milli_left;
  for (const auto& p : info.pods) {
    n.tags |= gs::pod_tag_bit(pod_req(*p));
  }
  return n;
}

void GpuShareScorer::observe_workload(std::span<const PodSpec> pods) {
  std::vector<gs::PodReq> reqs;
  std::vector<std::string> types;
  reqs.reserve(pods.size());
  types.reserve(pods.size());
  for (const auto& p : pods) {
    reqs.push_back(pod_req(p));
    types.push_back(allowed_models(p));
  }
  typical_ = gs::typical_pods(reqs, types, threshold_);
}

Status GpuShareScorer::pre_score(CycleContext& /*ctx*/, const PodSpec& pod,
                                 std::span<const int> /*feasible*/) {
  cycle_pod_ = pod_req(pod);
  return Status::success();
}

std::int64_t GpuShareScorer::score(CycleContext& ctx, const PodSpec& /*pod*/, int node_index) {
  return verdict(node_state(ctx.cluster, node_index), cycle_pod_).score;
}

void GpuShareScorer::normalize(const CycleContext& /*ctx*/, const PodSpec& /*pod*/,
                               std::span<const int> /*feasible*/, std::span<std::int64_t> scores) {
  gs::min_max_normalize(scores);
}

std::vector<int> GpuShareScorer::choose_cards(CycleContext& ctx, const PodSpec& pod,
                                              int node_index) {
  const gs::PodReq p = pod_req(pod);
  const gs::NodeState n = node_state(ctx.cluster, node_index);
  if (p.gm <= 0 || p.ng <= 0 || n.left.empty()) {
    return {};
  }
  int card = -1;
  if (p.share()) {
    if (policy_ == gs::Policy::kRandom) {
      // A card uniform over those that fit, by reservoir sampling in index order, from a stream
      // of this plugin (one draw sequence per cycle number).
      RandomStream rng(ctx.cycle, "RandomScore/card");
      std::uint64_t seen = 0;
      for (int i = 0; i < static_cast<int>(n.left.size()); ++i) {
        if (n.left[static_cast<std::size_t>(i)] >= p.gm && rng.uniform_int(++seen) == 0) {
          card = i;
        }
      }
    } else {
      card = verdict(n, p).card;
    }
  }
  std::vector<int> cards = gs::cards_for(n, p, card);
  // A node the filters passed on other grounds (time-slicing replicas) may lack the whole free
  // cards the policies count: then no preference, and the device plugin chooses.
  const std::size_t want = p.share() ? 1 : static_cast<std::size_t>(p.ng);
  if (cards.size() != want || std::find(cards.begin(), cards.end(), -1) != cards.end()) {
    return {};
  }
  return cards;
}

std::string_view GpuShareScorer::name() const {
  return gpu_share_plugin_name(policy_);
}

namespace {

std::unique_ptr<Plugin> make_scorer(gs::Policy policy) {
  return std::make_unique<GpuShareScorer>(policy);
}

}  // namespace

std::unique_ptr<Plugin> make_random_score() {
  return make_scorer(gs::Policy::kRandom);
}
std::unique_ptr<Plugin> make_dot_product_score() {
  return make_scorer(gs::Policy::kDotProd);
}
std::unique_ptr<Plugin> make_gpu_clustering_score() {
  return make_scorer(gs::Policy::kGpuClustering);
}
std::unique_ptr<Plugin> make_gpu_packing_score() {
  return make_scorer(gs::Policy::kGpuPacking);
}
std::unique_ptr<Plugin> make_best_fit_score() {
  return make_scorer(gs::Policy::kBestFit);
}

FgdScoreArgs parse_fgd_score_args(const PluginArgs& args) {
  const FgdScoreArgs defaults;
  Fields f = args_fields(args);
  FgdScoreArgs a;
  a.typical_pod_threshold =
      f.number("typicalPodThreshold", defaults.typical_pod_threshold, 0.0, 1.0);
  f.finish();
  return a;
}

std::unique_ptr<Plugin> make_fgd_score(const FgdScoreArgs& args) {
  auto p = std::make_unique<GpuShareScorer>(gs::Policy::kFgd);
  p->set_threshold(args.typical_pod_threshold);
  return p;
}

namespace {
struct Names {
  gs::Policy policy;
  std::string_view plugin;
  std::string_view profile;
};
constexpr Names kNames[] = {
    {gs::Policy::kRandom, "RandomScore", "random"},
    {gs::Policy::kDotProd, "DotProductScore", "dot-product"},
    {gs::Policy::kGpuClustering, "GpuClusteringScore", "gpu-clustering"},
    {gs::Policy::kGpuPacking, "GpuPackingScore", "gpu-packing"},
    {gs::Policy::kBestFit, "BestFitScore", "best-fit"},
    {gs::Policy::kFgd, "FGDScore", "fgd"},
};
}  // namespace

std::string_view gpu_share_plugin_name(gs::Policy policy) {
  for (const auto& n : kNames) {
    if (n.policy == policy) {
      return n.plugin;
    }
  }
  return "";
}

std::string_view gpu_share_profile_name(gs::Policy policy) {
  for (const auto& n : kNames) {
    if (n.policy == policy) {
      return n.profile;
    }
  }
  return "";
}

std::optional<gs::Policy> gpu_share_policy_of_profile(std::string_view name) {
  for (const auto& n : kNames) {
    if (n.profile == name) {
      return n.policy;
    }
  }
  return std::nullopt;
}

}  // namespace tidesim::policies
