#include "tidesim/policies/plugins/basic.hpp"

#include <algorithm>

namespace tidesim::policies {
namespace {

class NoopPlugin final : public PreEnqueuePlugin,
                         public FilterPlugin,
                         public PostFilterPlugin,
                         public ScorePlugin,
                         public BindPlugin {
 public:
  explicit NoopPlugin(std::string name) : name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  Status filter(CycleContext&, const PodSpec&, int) override { return Status::success(); }
  bool plain_filter() const override { return true; }
  std::int64_t score(CycleContext&, const PodSpec&, int) override { return 0; }

 private:
  std::string name_;
};

// A no-op registered at one point only: the wrapper types below expose just that interface so the
// framework does not insert the plugin at points it does not claim.
template <class Point>
class NoopAt;

template <>
class NoopAt<FilterPlugin> final : public FilterPlugin {
 public:
  explicit NoopAt(std::string name) : name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  bool no_op() const override { return true; }
  Status filter(CycleContext&, const PodSpec&, int) override { return Status::success(); }
  bool plain_filter() const override { return true; }

 private:
  std::string name_;
};

template <>
class NoopAt<ScorePlugin> final : public ScorePlugin {
 public:
  explicit NoopAt(std::string name) : name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  bool no_op() const override { return true; }
  std::int64_t score(CycleContext&, const PodSpec&, int) override { return 0; }

 private:
  std::string name_;
};

template <class Marker>
class NoopMarker final : public Marker {
 public:
  explicit NoopMarker(std::string name) : name_(std::move(name)) {}
  std::string_view name() const override { return name_; }

 private:
  std::string name_;
};

static_assert(Implements<NoopAt<FilterPlugin>, FilterPlugin>);
static_assert(Implements<NoopAt<ScorePlugin>, ScorePlugin>);
static_assert(Implements<NoopPlugin, FilterPlugin, ScorePlugin, BindPlugin>);

class QueueSort final : public QueueSortPlugin {
 public:
  QueueSort(std::string name, QueueOrder order) : name_(std::move(name)), order_(order) {}
  std::string_view name() const override { return name_; }
  QueueOrder order() const override { return order_; }

 private:
  std::string name_;
  QueueOrder order_;
};
static_assert(Implements<QueueSort, QueueSortPlugin>);

// nodeunschedulable/node_unschedulable.go
class NodeUnschedulable final : public FilterPlugin {
 public:
  std::string_view name() const override { return "NodeUnschedulable"; }
  bool plain_filter() const override { return true; }
  Status filter(CycleContext& ctx, const PodSpec& pod, int node_index) override {
    const NodeSpec& node = ctx.cluster.nodes[node_index].node;
    if (!node.unschedulable) {
      return Status::success();
    }
    // A pod tolerating the node.kubernetes.io/unschedulable:NoSchedule taint tolerates the flag.
    const Taint taint{"node.kubernetes.io/unschedulable", "", "NoSchedule"};
    const bool tolerated = std::any_of(pod.tolerations.begin(), pod.tolerations.end(),
                                       [&](const Toleration& t) { return tolerates(t, taint); });
    if (tolerated) {
      return Status::success();
    }
    return reject(ctx, Code::kUnschedulableAndUnresolvable, "node(s) were unschedulable");
  }
};
static_assert(Implements<NodeUnschedulable, FilterPlugin>);

// nodename/node_name.go
class NodeName final : public FilterPlugin {
 public:
  std::string_view name() const override { return "NodeName"; }
  bool plain_filter() const override { return true; }
  Status filter(CycleContext& ctx, const PodSpec& pod, int node_index) override {
    if (pod.node_name.empty() || pod.node_name == ctx.cluster.nodes[node_index].node.name) {
      return Status::success();
    }
    return reject(ctx, Code::kUnschedulableAndUnresolvable,
                  "node(s) didn't match the requested node name");
  }
};
static_assert(Implements<NodeName, FilterPlugin>);

// tainttoleration/taint_toleration.go
class TaintToleration final : public FilterPlugin, public PreScorePlugin, public ScorePlugin {
 public:
  std::string_view name() const override { return "TaintToleration"; }
  bool plain_filter() const override { return true; }

  Status filter(CycleContext& ctx, const PodSpec& pod, int node_index) override {
    // FindMatchingUntoleratedTaint with DoNotScheduleTaintsFilterFunc (NoSchedule, NoExecute).
    for (const Taint& taint : ctx.cluster.nodes[node_index].node.taints) {
      if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") {
        continue;
      }
      const bool tolerated = std::any_of(pod.tolerations.begin(), pod.tolerations.end(),
                                         [&](const Toleration& t) { return tolerates(t, taint); });
      if (!tolerated) {
        return reject(ctx, Code::kUnschedulableAndUnresolvable, [&] {
          return "node(s) had untolerated taint {" + taint.key + ": " + taint.value + "}";
        });
      }
    }
    return Status::success();
  }

  Status pre_score(CycleContext&, const PodSpec& pod, std::span<const int>) override {
    // getAllTolerationPreferNoSchedule: tolerations with an empty or PreferNoSchedule effect.
    prefer_tolerations_.clear();
    for (const auto& t : pod.tolerations) {
      if (t.effect.empty() || t.effect == "PreferNoSchedule") {
        prefer_tolerations_.push_back(t);
      }
    }
    return Status::success();
  }

  // countIntolerableTaintsPreferNoSchedule: raw score = number of untolerated PreferNoSchedule
  // taints.
  std::int64_t score(CycleContext& ctx, const PodSpec&, int node_index) override {
    std::int64_t count = 0;
    for (const Taint& taint : ctx.cluster.nodes[node_index].node.taints) {
      if (taint.effect != "PreferNoSchedule") {
        continue;
      }
      const bool tolerated = std::any_of(prefer_tolerations_.begin(), prefer_tolerations_.end(),
                                         [&](const Toleration& t) { return tolerates(t, taint); });
      if (!tolerated) {
        ++count;
      }
    }
    return count;
  }
  bool has_normalize() const override { return true; }
  // helper.DefaultNormalizeScore(MaxNodeScore, true, scores): fewer taints, higher score.
  void normalize(const CycleContext&, const PodSpec&, std::span<const int>,
                 std::span<std::int64_t> scores) override {
    default_normalize_score(kMaxNodeScore, true, scores);
  }

 private:
  std::vector<Toleration> prefer_tolerations_;
};
static_assert(Implements<TaintToleration, FilterPlugin, PreScorePlugin, ScorePlugin>);

// nodeaffinity/node_affinity.go
class NodeAffinityPlugin final : public FilterPlugin, public PreScorePlugin, public ScorePlugin {
 public:
  std::string_view name() const override { return "NodeAffinity"; }
  bool plain_filter() const override { return true; }

  Status filter(CycleContext& ctx, const PodSpec& pod, int node_index) override {
    if (matches_required_node_affinity(pod, ctx.cluster.nodes[node_index].node)) {
      return Status::success();
    }
    return reject(ctx, Code::kUnschedulableAndUnresolvable,
                  "node(s) didn't match Pod's node affinity/selector");
  }

  // One required term with a `metadata.name In [...]` field requirement (a placement hint, a
  // Kueue TAS domain): no node outside those names can match it (as the plugin's PreFilter
  // narrows the nodes in Kubernetes, node_affinity.go); the names of the first such requirement.
  FitScreen fit_screen(const PodSpec& pod) const override {
    FitScreen s;
    if (pod.node_affinity.required.size() == 1) {
      for (const SelectorRequirement& r : pod.node_affinity.required.front().match_fields) {
        if (r.key == "metadata.name" && r.op == "In") {
          s.names = &r.values;
          break;
        }
      }
    }
    return s;
  }

  // PreScore returns Skip when the pod has no preferred terms.
  Status pre_score(CycleContext&, const PodSpec& pod, std::span<const int>) override {
    if (pod.node_affinity.preferred.empty()) {
      return Status{Code::kSkip, {}, {}};
    }
    return Status::success();
  }

  // Score: sum of the weights of the preferred terms the node matches.
  std::int64_t score(CycleContext& ctx, const PodSpec& pod, int node_index) override {
    std::int64_t total = 0;
    for (const auto& term : pod.node_affinity.preferred) {
      if (term.weight != 0 &&
          matches_node_selector_term(term.preference, ctx.cluster.nodes[node_index].node)) {
        total += term.weight;
      }
    }
    return total;
  }
  bool has_normalize() const override { return true; }
  void normalize(const CycleContext&, const PodSpec&, std::span<const int>,
                 std::span<std::int64_t> scores) override {
    default_normalize_score(kMaxNodeScore, false, scores);
  }
};
static_assert(Implements<NodeAffinityPlugin, FilterPlugin, PreScorePlugin, ScorePlugin>);

}  // namespace

bool matches_node_selector_term(const NodeSelectorTerm& term, const NodeSpec& node) {
  if (term.match_expressions.empty() && term.match_fields.empty()) {
    return false;
  }
  if (!matches(term.match_expressions, node.labels)) {
    return false;
  }
  if (!term.match_fields.empty()) {
    const std::map<std::string, std::string> fields{{"metadata.name", node.name}};
    if (!matches(term.match_fields, fields)) {
      return false;
    }
  }
  return true;
}

bool matches_required_node_affinity(const PodSpec& pod, const NodeSpec& node) {
  for (const auto& [key, value] : pod.node_selector) {
    const auto it = node.labels.find(key);
    if (it == node.labels.end() || it->second != value) {
      return false;
    }
  }
  if (pod.node_affinity.required.empty()) {
    return true;
  }
  return std::any_of(
      pod.node_affinity.required.begin(), pod.node_affinity.required.end(),
      [&](const NodeSelectorTerm& t) { return matches_node_selector_term(t, node); });
}

std::unique_ptr<Plugin> make_noop_plugin(const std::string& name, NoopPoint point) {
  switch (point) {
    case NoopPoint::kPreEnqueue:
      return std::make_unique<NoopMarker<PreEnqueuePlugin>>(name);
    case NoopPoint::kFilter:
      return std::make_unique<NoopAt<FilterPlugin>>(name);
    case NoopPoint::kPostFilter:
      return std::make_unique<NoopMarker<PostFilterPlugin>>(name);
    case NoopPoint::kScore:
      return std::make_unique<NoopAt<ScorePlugin>>(name);
    case NoopPoint::kBind:
      return std::make_unique<NoopMarker<BindPlugin>>(name);
  }
  return std::make_unique<NoopPlugin>(name);
}

std::unique_ptr<Plugin> make_priority_sort() {
  return std::make_unique<QueueSort>("PrioritySort", QueueOrder::kPrioritySort);
}

std::unique_ptr<Plugin> make_fifo_sort() {
  return std::make_unique<QueueSort>("FIFOSort", QueueOrder::kFifo);
}

std::unique_ptr<Plugin> make_node_unschedulable() {
  return std::make_unique<NodeUnschedulable>();
}

std::unique_ptr<Plugin> make_node_name() {
  return std::make_unique<NodeName>();
}

std::unique_ptr<Plugin> make_taint_toleration() {
  return std::make_unique<TaintToleration>();
}

NodeAffinityArgs parse_node_affinity_args(const PluginArgs& args) {
  Fields f = args_fields(args);
  if (f.has("addedAffinity")) {
    throw f.error(f.get("addedAffinity"), "addedAffinity", "not supported by tidesim");
  }
  f.finish();
  return {};
}

std::unique_ptr<Plugin> make_node_affinity(const NodeAffinityArgs&) {
  return std::make_unique<NodeAffinityPlugin>();
}

}  // namespace tidesim::policies
