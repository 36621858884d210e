// FewestPods: a Score plugin that prefers nodes with fewer bound pods (it spreads jobs out).
// Args: maxPods (default 10): a node with this many pods or more scores 0.
//
// Built out of tree against an installed tidesim (CMakeLists.txt beside this file); main.cpp adds
// it to the command line explicitly: no tidesim file names it (docs/writing-a-policy.md).
#include "fewest_pods.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string_view>

namespace fewest {
namespace {

using namespace tidesim;
using namespace tidesim::policies;

class FewestPods final : public ScorePlugin {
 public:
  explicit FewestPods(std::int64_t max_pods) : max_pods_(max_pods) {}
  std::string_view name() const override { return "FewestPods"; }
  // 100 on an empty node, 0 from maxPods pods on; integer arithmetic, as Kubernetes scores are.
  std::int64_t score(CycleContext& ctx, const PodSpec& /*pod*/, int node_index) override {
    const auto pods = static_cast<std::int64_t>(ctx.cluster.nodes[node_index].pods.size());
    return kMaxNodeScore * (max_pods_ - std::min(pods, max_pods_)) / max_pods_;
  }

 private:
  std::int64_t max_pods_;
};
static_assert(Implements<FewestPods, ScorePlugin>);

}  // namespace

FewestPodsArgs parse_fewest_pods_args(const tidesim::policies::PluginArgs& args) {
  const FewestPodsArgs defaults;
  tidesim::Fields f =
      tidesim::policies::args_fields(args);  // strict: an unknown arg is an error naming it
  FewestPodsArgs a;
  a.max_pods = f.integer("maxPods", defaults.max_pods, 1, 1000);
  f.finish();
  return a;
}

std::unique_ptr<tidesim::policies::Plugin> make_fewest_pods(const FewestPodsArgs& args) {
  return std::make_unique<FewestPods>(args.max_pods);
}

tidesim::policies::RegistryEntry fewest_pods_entry() {
  return tidesim::policies::plugin_with_args<FewestPodsArgs>(parse_fewest_pods_args,
                                                             make_fewest_pods);
}

}  // namespace fewest
