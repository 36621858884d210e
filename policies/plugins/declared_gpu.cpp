#include "tidesim/policies/plugins/declared_gpu.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "tidesim/sim/api/pod_traits.hpp"

namespace tidesim::policies {
namespace {

int units_of(const PodSpec& pod) {
  return static_cast<int>(std::max<std::int64_t>(1, pod.requests.gpus));
}

bool wants_gpu(const PodSpec& pod) {
  return pod.requests.gpus > 0 || pod.requests.gpu_milli > 0;
}

class HamiDeviceFit final : public FilterPlugin, public ScorePlugin, public CardChooserPlugin {
 public:
  HamiDeviceFit(FitPolicy node_policy, FitPolicy card_policy)
      : node_policy_(node_policy), card_policy_(card_policy) {}

  std::string_view name() const override { return "HamiDeviceFit"; }

  Status filter(CycleContext& ctx, const PodSpec& pod, int node_index) override {
    if (!wants_gpu(pod)) {
      return Status::success();
    }
    const NodeInfo& node = ctx.cluster.nodes[static_cast<std::size_t>(node_index)];
    if (node.gpu_memory_left.empty()) {
      return reject(ctx, Code::kUnschedulableAndUnresolvable, "node has no declared GPU memory");
    }
    if (declared_cards(node, pod, units_of(pod), card_policy_).empty()) {
      return reject(ctx, Code::kUnschedulable, "no GPU card fits the declared memory and cores");
    }
    return Status::success();
  }

  std::int64_t score(CycleContext& ctx, const PodSpec& pod, int node_index) override {
    const NodeInfo& node = ctx.cluster.nodes[static_cast<std::size_t>(node_index)];
    if (!wants_gpu(pod) || node.gpu_memory_left.empty() || node.gpu_card_memory <= 0) {
      return kMinNodeScore;
    }
    // Share of the node's card memory declared once the pod is placed, in [0, 1].
    const auto cards = static_cast<double>(node.gpu_memory_left.size());
    const double total = cards * static_cast<double>(node.gpu_card_memory);
    const double left =
        std::accumulate(node.gpu_memory_left.begin(), node.gpu_memory_left.end(), 0.0,
                        [](double a, std::int64_t b) { return a + static_cast<double>(b); });
    const double claim = static_cast<double>(gpu_claim(pod, node.gpu_card_memory).memory) *
                         static_cast<double>(units_of(pod));
    const double used = std::clamp((total - left + claim) / total, 0.0, 1.0);
    const double share = node_policy_ == FitPolicy::kBinpack ? used : 1.0 - used;
    return static_cast<std::int64_t>(std::llround(share * static_cast<double>(kMaxNodeScore)));
  }

  std::vector<int> choose_cards(CycleContext& ctx, const PodSpec& pod, int node_index) override {
    if (!wants_gpu(pod)) {
      return {};
    }
    return declared_cards(ctx.cluster.nodes[static_cast<std::size_t>(node_index)], pod,
                          units_of(pod), card_policy_);
  }

 private:
  FitPolicy node_policy_;
  FitPolicy card_policy_;
};

FitPolicy fit_policy(Fields& f, const std::string& key, FitPolicy fallback) {
  const char* text = fallback == FitPolicy::kBinpack ? "binpack" : "spread";
  return f.choice(key, text, {"binpack", "spread"}) == "binpack" ? FitPolicy::kBinpack
                                                                 : FitPolicy::kSpread;
}

}  // namespace

std::vector<int> declared_cards(const NodeInfo& node, const PodSpec& pod, int units,
                                FitPolicy card_policy) {
  if (node.gpu_memory_left.empty() || node.gpu_card_memory <= 0 || units < 1) {
    return {};
  }
  const GpuClaim claim = gpu_claim(pod, node.gpu_card_memory);
  std::vector<int> fit;
  for (std::size_t c = 0; c < node.gpu_memory_left.size(); ++c) {
    const int cores = c < node.gpu_cores_left.size() ? node.gpu_cores_left[c] : 0;
    if (node.gpu_memory_left[c] > 0 && node.gpu_memory_left[c] >= claim.memory &&
        cores >= claim.cores) {
      fit.push_back(static_cast<int>(c));
    }
  }
  if (static_cast<int>(fit.size()) < units) {
    return {};
  }
  std::stable_sort(fit.begin(), fit.end(), [&](int a, int b) {
    const std::int64_t la = node.gpu_memory_left[static_cast<std::size_t>(a)];
    const std::int64_t lb = node.gpu_memory_left[static_cast<std::size_t>(b)];
    return card_policy == FitPolicy::kBinpack ? la < lb : la > lb;
  });
  fit.resize(static_cast<std::size_t>(units));
  return fit;
}

HamiDeviceFitArgs parse_hami_device_fit_args(const PluginArgs& args) {
  const HamiDeviceFitArgs defaults;
  Fields f = args_fields(args);
  HamiDeviceFitArgs a;
  a.node_policy = fit_policy(f, "nodeSchedulerPolicy", defaults.node_policy);
  a.card_policy = fit_policy(f, "gpuSchedulerPolicy", defaults.card_policy);
  f.finish();
  return a;
}

std::unique_ptr<Plugin> make_hami_device_fit(const HamiDeviceFitArgs& args) {
  return std::make_unique<HamiDeviceFit>(args.node_policy, args.card_policy);
}

}  // namespace tidesim::policies
