#include "tidesim/policies/plugins/load_aware.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <initializer_list>
#include <numeric>
#include <utility>
#include <vector>

#include "tidesim/sim/api/pod_traits.hpp"

namespace tidesim::policies {

double io_load(double await_ms, Duration full_scale) {
  const double full_ms = to_seconds(full_scale) * 1000.0;
  return std::min(1.0, std::max(0.0, await_ms) / full_ms);
}

LoadVector load_vector(const NodeMetrics& m, const LoadAwareArgs& args) {
  LoadVector v;
  const auto& cards = m.gpu_memory_utilization;
  if (!cards.empty()) {
    switch (args.gpu_memory_aggregation) {
      case GpuMemoryAggregation::kMax:
        v.gpu_memory = *std::max_element(cards.begin(), cards.end());
        break;
      case GpuMemoryAggregation::kMin:
        v.gpu_memory = *std::min_element(cards.begin(), cards.end());
        break;
      case GpuMemoryAggregation::kMean:
        v.gpu_memory =
            std::accumulate(cards.begin(), cards.end(), 0.0) / static_cast<double>(cards.size());
        break;
    }
  }
  v.nvlink = m.nvlink_competition_index;
  double worst = 0.0;
  for (const auto& [device, await_ms] : m.storage_await_ms) {
    worst = std::max(worst, await_ms);
  }
  v.io = io_load(worst, args.io_full_scale_await);
  return v;
}

namespace {

double clamp01(double x) {
  return std::min(1.0, std::max(0.0, x));
}

}  // namespace

NvlinkRule nvlink_rule(const LoadAwareArgs& args) {
  return NvlinkRule{.detect_pytorch_image = args.auto_detect_nvlink};
}

double gpu_reject_threshold(const PodSpec& pod, const LoadAwareArgs& args) {
  const auto it = pod.annotations.find("ai.gpu-reject-threshold");
  if (it == pod.annotations.end() || it->second.empty()) {
    return args.gpu_memory.reject;
  }
  const std::string& s = it->second;
  double v = 0.0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v)) {
    return args.gpu_memory.reject;  // the seed ignores an unparsable value
  }
  return v;
}

LoadAwarePodTerms load_aware_pod_terms(const PodSpec& pod, const LoadAwareArgs& args) {
  return LoadAwarePodTerms{
      .mem_reject = gpu_reject_threshold(pod, args) - args.reject_threshold_safety_margin,
      .nvlink = nvlink_need(pod, nvlink_rule(args))};
}

std::optional<std::string> load_aware_filter_reason(const LoadVector& load, const PodSpec& pod,
                                                    const LoadAwareArgs& args) {
  return load_aware_filter_reason(load, load_aware_pod_terms(pod, args), args);
}

namespace {

// Why LoadAwareFilter rejects a node (load_aware_filter_reason() without its message).
enum class LoadRejection { kNone, kGpuMemory, kAutoDetectedNvlink, kNvlink, kStorage };

LoadRejection load_rejection(const LoadVector& load, const LoadAwarePodTerms& terms,
                             const LoadAwareArgs& args) {
  if (!args.card_fit && load.gpu_memory > terms.mem_reject) {
    return LoadRejection::kGpuMemory;
  }
  const NvlinkNeed need = terms.nvlink;
  const bool check_nvlink = args.nvlink_check == NvlinkCheck::kAllPods || need != NvlinkNeed::kNone;
  if (check_nvlink && load.nvlink > args.nvlink.reject) {
    if (args.nvlink_check == NvlinkCheck::kRequiredPods && need == NvlinkNeed::kAutoDetected) {
      return LoadRejection::kAutoDetectedNvlink;
    }
    return LoadRejection::kNvlink;
  }
  if (load.io > args.io.reject) {
    return LoadRejection::kStorage;
  }
  return LoadRejection::kNone;
}

std::string load_rejection_message(LoadRejection why, const LoadAwarePodTerms& terms,
                                   const LoadAwareArgs& args) {
  switch (why) {
    case LoadRejection::kGpuMemory:
      return fmt::format("GPU memory over {:g}%", std::round(terms.mem_reject * 1000.0) / 10.0);
    case LoadRejection::kAutoDetectedNvlink:
      return "Auto-detected NVLink contention";
    case LoadRejection::kNvlink:
      return "NVLink competition too high";
    case LoadRejection::kStorage: {
      const double ms = args.io.reject * to_seconds(args.io_full_scale_await) * 1000.0;
      return fmt::format("Storage await over {:g}ms", std::round(ms * 100.0) / 100.0);
    }
    case LoadRejection::kNone:
      break;
  }
  return {};
}

// card_fit_reason() without its message: the pod's unit count and per-card need when no
// `units` cards fit, nullopt when they do.
struct CardShortfall {
  std::int64_t units = 0;
  double need = 0.0;
};

}  // namespace

std::optional<std::string> load_aware_filter_reason(const LoadVector& load,
                                                    const LoadAwarePodTerms& terms,
                                                    const LoadAwareArgs& args) {
  const LoadRejection why = load_rejection(load, terms, args);
  if (why == LoadRejection::kNone) {
    return std::nullopt;
  }
  return load_rejection_message(why, terms, args);
}

double card_need(const PodSpec& pod, std::int64_t card_memory, const LoadAwareArgs& args) {
  const auto& ext = pod.requests.extended;
  if (const auto it = ext.find(kGpuMemPercentResource); it != ext.end() && it->second > 0) {
    return std::min<double>(static_cast<double>(it->second), 100.0) / 100.0;
  }
  if (const auto it = ext.find(kGpuMemResource);
      it != ext.end() && it->second > 0 && card_memory > 0) {
    return std::min(1.0,
                    static_cast<double>(it->second) * 1048576.0 / static_cast<double>(card_memory));
  }
  return args.estimated_gpu_memory_per_gpu;
}

namespace {

std::optional<CardShortfall> card_shortfall(std::span<const double> cards, const PodSpec& pod,
                                            std::int64_t card_memory, const LoadAwareArgs& args) {
  if (pod.requests.gpus <= 0 && pod.requests.gpu_milli <= 0) {
    return std::nullopt;
  }
  const double mem_reject = gpu_reject_threshold(pod, args) - args.reject_threshold_safety_margin;
  const double need = card_need(pod, card_memory, args);
  const std::int64_t units = std::max<std::int64_t>(1, pod.requests.gpus);
  const auto fitting =
      std::count_if(cards.begin(), cards.end(), [&](double u) { return u + need <= mem_reject; });
  if (fitting >= units) {
    return std::nullopt;
  }
  return CardShortfall{units, need};
}

std::string card_shortfall_message(const CardShortfall& s) {
  return fmt::format("no {} GPU card(s) with {:g}% memory free", s.units,
                     std::round(s.need * 1000.0) / 10.0);
}

}  // namespace

std::optional<std::string> card_fit_reason(std::span<const double> cards, const PodSpec& pod,
                                           std::int64_t card_memory, const LoadAwareArgs& args) {
  const auto shortfall = card_shortfall(cards, pod, card_memory, args);
  if (!shortfall) {
    return std::nullopt;
  }
  return card_shortfall_message(*shortfall);
}

double load_aware_raw_score(const LoadVector& load, const LoadAwareArgs& args) {
  const double mem_width = args.gpu_memory_decay_slope;
  const double nv_width = args.nvlink.reject - args.nvlink.safe;
  const double io_width = args.io.reject - args.io.safe;
  const double mem = (load.gpu_memory - args.gpu_memory.safe) / mem_width;
  const double nv = (load.nvlink - args.nvlink.safe) / nv_width;
  const double io = (load.io - args.io.safe) / io_width;
  if (args.score_formula == LoadScoreFormula::kSeedCode) {
    // score_plugin.go: factors max(0, 1 - d) (no upper clamp), "smaller is better".
    const double combined = args.gpu_memory.weight * std::max(0.0, 1.0 - mem) +
                            args.nvlink.weight * std::max(0.0, 1.0 - nv) +
                            args.io.weight * std::max(0.0, 1.0 - io);
    return 100.0 * (1.0 - combined);
  }
  const double decay = args.gpu_memory.weight * clamp01(mem) + args.nvlink.weight * clamp01(nv) +
                       args.io.weight * clamp01(io);
  return 100.0 * (1.0 - decay);
}

std::int64_t load_aware_score(const LoadVector& load, const LoadAwareArgs& args) {
  return static_cast<std::int64_t>(load_aware_raw_score(load, args));
}

std::int64_t remaining_gpu_score(const NodeInfo& info) {
  const std::int64_t remaining =
      std::max<std::int64_t>(0, info.node.allocatable.gpus - info.requested.gpus);
  return std::min<std::int64_t>(kMaxNodeScore, remaining * 10);
}

NodeMetrics with_estimated_bound_pods(const NodeMetrics& m, const NodeInfo& info,
                                      const LoadAwareArgs& args) {
  NodeMetrics out = m;
  const int cards = out.gpu_memory_utilization.empty()
                        ? static_cast<int>(info.node.allocatable.gpus)
                        : static_cast<int>(out.gpu_memory_utilization.size());
  if (out.gpu_memory_utilization.empty()) {
    out.gpu_memory_utilization.assign(static_cast<std::size_t>(std::max(cards, 0)), 0.0);
  }
  for (std::size_t k = 0; k < info.pods.size(); ++k) {
    if (info.bound_at[k] <= m.sampled_at) {
      continue;
    }
    const PodSpec& pod = *info.pods[k];
    auto& u = out.gpu_memory_utilization;
    for (std::int64_t g = 0; g < pod.requests.gpus && !u.empty(); ++g) {
      const auto least = std::min_element(u.begin(), u.end());  // first least-loaded card
      *least = std::min(1.0, *least + args.estimated_gpu_memory_per_gpu);
    }
    if (needs_nvlink(pod, nvlink_rule(args)) && cards > 0) {
      out.nvlink_competition_index += nvlink_competition_index(1, cards);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Args

namespace {

// An enum-valued arg: one of `names` (in the order errors list them), `fallback` when absent.
template <class E>
E enum_arg(Fields& f, const std::string& key, E fallback,
           std::initializer_list<std::pair<E, std::string>> names) {
  std::vector<std::string> choices;
  std::string fallback_name;
  for (const auto& [value, name] : names) {
    choices.push_back(name);
    if (value == fallback) {
      fallback_name = name;
    }
  }
  const std::string chosen = f.choice(key, fallback_name, choices);
  for (const auto& [value, name] : names) {
    if (name == chosen) {
      return value;
    }
  }
  return fallback;  // not reached: choice() accepts only `choices`
}

}  // namespace

// Every default is the default-constructed LoadAwareArgs' (the one statement of them; the table
// of docs/policies.md is checked against it by a test).
LoadAwareArgs parse_load_aware_args(const PluginArgs& pa) {
  const LoadAwareArgs defaults;
  LoadAwareArgs a;
  Fields f = args_fields(pa);
  a.prometheus_url = f.string("prometheusURL", defaults.prometheus_url);
  a.gpu_memory_decay_slope =
      f.number("gpuMemoryDecaySlope", defaults.gpu_memory_decay_slope, 0.01, 1.0);
  // metricCacheTTL: a duration ("30s") or, as in the seed's example, a number of seconds.
  if (f.has("metricCacheTTL")) {
    const ConfigNode n = f.get("metricCacheTTL");
    const std::string text = n.is_scalar() ? n.scalar() : "";
    double secs = 0.0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), secs);
    if (!text.empty() && ec == std::errc() && ptr == text.data() + text.size()) {
      if (!(secs >= 0.0 && secs <= 3600.0)) {
        throw f.error(n, "metricCacheTTL", "must lie in [0, 3600] seconds, got " + text);
      }
      a.metric_cache_ttl = from_seconds(secs);
    } else {
      a.metric_cache_ttl = f.duration("metricCacheTTL", std::nullopt);
    }
  }
  a.reject_threshold_safety_margin =
      f.number("rejectThresholdSafetyMargin", defaults.reject_threshold_safety_margin, 0.0, 0.5);
  const auto dimension = [&](const std::string& key, LoadDimension d) {
    if (!f.has(key)) {
      return d;
    }
    Fields g(f.get(key), f.file(), f.path_of(key));
    d.safe = g.fraction("safe", d.safe);
    d.reject = g.fraction("reject", d.reject);
    d.weight = g.number("weight", d.weight, 0.0, 1.0);
    if (!(d.safe < d.reject)) {
      throw g.error(g.get("reject"), "reject", "must be greater than safe");
    }
    g.finish();
    return d;
  };
  a.gpu_memory = dimension("gpuMemory", defaults.gpu_memory);
  a.nvlink = dimension("nvlink", defaults.nvlink);
  a.io = dimension("io", defaults.io);
  a.io_full_scale_await =
      f.duration("ioFullScaleAwait", defaults.io_full_scale_await, std::chrono::microseconds(1));
  a.score_formula =
      enum_arg(f, "scoreFormula", defaults.score_formula,
               {{LoadScoreFormula::kText, "text"}, {LoadScoreFormula::kSeedCode, "seed-code"}});
  a.gpu_memory_aggregation = enum_arg(f, "gpuMemoryAggregation", defaults.gpu_memory_aggregation,
                                      {{GpuMemoryAggregation::kMax, "max"},
                                       {GpuMemoryAggregation::kMean, "mean"},
                                       {GpuMemoryAggregation::kMin, "min"}});
  a.nvlink_check = enum_arg(
      f, "nvlinkCheck", defaults.nvlink_check,
      {{NvlinkCheck::kRequiredPods, "required-pods"}, {NvlinkCheck::kAllPods, "all-pods"}});
  a.auto_detect_nvlink = f.boolean("autoDetectNvlink", defaults.auto_detect_nvlink);
  a.fallback_timeout = f.duration("fallbackTimeout", defaults.fallback_timeout);
  a.golden_pool_after = f.duration("goldenPoolAfter", defaults.golden_pool_after);
  if (f.has("goldenNodeSelector")) {
    Fields g(f.get("goldenNodeSelector"), f.file(), f.path_of("goldenNodeSelector"));
    LabelSelector sel;
    if (g.has("matchLabels")) {
      const ConfigNode ml = g.get("matchLabels");
      if (!ml.is_map()) {
        throw g.error(ml, "matchLabels", "expected a mapping of label to value");
      }
      for (const auto& kv : ml.entries()) {
        sel.match_labels[scalar_of(kv.first, g.file(), g.path_of("matchLabels"))] =
            scalar_of(kv.second, g.file(), g.path_of("matchLabels"));
      }
    }
    g.finish();
    a.golden_node_selector = sel;
  }
  a.estimate_bound_pods = f.boolean("estimateBoundPods", defaults.estimate_bound_pods);
  a.estimated_gpu_memory_per_gpu =
      f.number("estimatedGpuMemoryPerGpu", defaults.estimated_gpu_memory_per_gpu, 0.0, 1.0);
  a.card_fit = f.boolean("cardFit", defaults.card_fit);
  a.predict_load = f.boolean("predictLoad", defaults.predict_load);
  f.finish();
  return a;
}

namespace {

// metricCacheTTL: each plugin keeps its own cache (the seed's plugins each hold a Prometheus
// client), by node index, with the time the metrics were fetched.
class MetricsCache {
 public:
  MetricsCache(Duration ttl, bool predict) : ttl_(ttl), predict_(predict) {}

  struct Lookup {
    const NodeMetrics* metrics = nullptr;  // null: no usable answer within the timeout
    Duration waited = Duration::zero();    // time spent waiting on a query (0 on a cache hit)
    // The load vector of `metrics` (load_vector()), computed once per fetch; null until set.
    std::optional<LoadVector>* load = nullptr;
    // When `metrics` was fetched (a hit: its cache entry's time).
    TimePoint fetched_at{};
  };

  Lookup get(int index, const std::string& node, const MetricsSource* source, TimePoint now,
             Duration timeout) {
    if (static_cast<std::size_t>(index) >= entries_.size()) {
      entries_.resize(static_cast<std::size_t>(index) + 1);
    }
    auto& cached = entries_[static_cast<std::size_t>(index)];
    if (cached && now - cached->fetched_at < ttl_) {
      return {&cached->metrics, Duration::zero(), &cached->load, cached->fetched_at};
    }
    if (source == nullptr) {
      return {};
    }
    MetricsAnswer answer = source->query(node, now);
    const Duration waited = std::min(answer.latency, timeout);
    if (!answer.metrics || answer.latency > timeout) {
      return {nullptr, waited};
    }
    if (predict_) {  // the forecast replaces the sample; without one the sample is used
      if (auto predicted = source->forecast(node, now)) {
        answer.metrics = std::move(predicted);
      }
    }
    cached = Entry{std::move(*answer.metrics), now, std::nullopt};
    return {&cached->metrics, waited, &cached->load, now};
  }

 private:
  struct Entry {
    NodeMetrics metrics;
    TimePoint fetched_at{};
    std::optional<LoadVector> load;
  };
  Duration ttl_;
  bool predict_;
  std::vector<std::optional<Entry>> entries_;
};

// Reads every node through the cache, fills loads/available, adds the longest wait to the cycle.
class LoadView {
 public:
  explicit LoadView(const LoadAwareArgs& args)
      : args_(args), cache_(args.metric_cache_ttl, args.predict_load) {}

  // read() of every node of the cluster. When the previous read of every node found an answer
  // and none of them has outlived metricCacheTTL since, every lookup would be a cache hit giving
  // the same load (no query, no wait): the previous read stands, without visiting the nodes.
  // Not with estimateBoundPods, whose loads follow the pods bound since.
  int read_all(CycleContext& ctx) {
    const std::size_t n = ctx.cluster.nodes.size();
    if (!args_.estimate_bound_pods && all_fetched_ && n == loads_.size() &&
        ctx.now - *all_fetched_ < args_.metric_cache_ttl) {
      return 0;
    }
    all_.resize(n);
    std::iota(all_.begin(), all_.end(), 0);
    const int missing = read(ctx, all_);
    if (missing > 0) {
      all_fetched_.reset();
    }
    return missing;
  }

  // Reads `nodes` (every node: read_all() alone calls it); returns the number of nodes without a
  // usable answer.
  int read(CycleContext& ctx, std::span<const int> nodes) {
    all_fetched_.reset();
    const std::size_t n = ctx.cluster.nodes.size();
    loads_.assign(n, LoadVector{});
    available_.assign(n, false);
    if (args_.card_fit) {
      cards_.assign(n, {});
    }
    Duration waited = Duration::zero();
    int missing = 0;
    for (const int i : nodes) {
      const NodeInfo& info = ctx.cluster.nodes[i];
      const auto r = cache_.get(i, info.node.name, ctx.metrics, ctx.now, args_.fallback_timeout);
      waited = std::max(waited, r.waited);
      if (r.metrics == nullptr) {
        ++missing;
        continue;
      }
      available_[i] = true;
      if (!all_fetched_ || r.fetched_at < *all_fetched_) {
        all_fetched_ = r.fetched_at;
      }
      if (args_.estimate_bound_pods) {  // depends on the pods bound since: every cycle
        const NodeMetrics estimated = with_estimated_bound_pods(*r.metrics, info, args_);
        loads_[i] = load_vector(estimated, args_);
        if (args_.card_fit) {
          cards_[i] = estimated.gpu_memory_utilization;
        }
      } else {  // depends on the fetched metrics alone: once per fetch
        if (args_.card_fit) {
          cards_[i] = r.metrics->gpu_memory_utilization;
        }
        if (!*r.load) {
          *r.load = load_vector(*r.metrics, args_);
        }
        loads_[i] = **r.load;
      }
    }
    ctx.latency += waited;
    return missing;
  }

  // The seed's two-stage fallback (digest 4.3), tracked across cycles.
  void decide_stage(CycleContext& ctx, int missing, std::string_view plugin) {
    if (missing == 0) {
      unavailable_since_.reset();
      ctx.fallback_stage = 0;
    } else {
      if (!unavailable_since_) {
        unavailable_since_ = ctx.now;
      }
      const Duration elapsed = ctx.now - *unavailable_since_;
      ctx.fallback_stage = elapsed < args_.golden_pool_after ? 1 : 2;
      if (ctx.fallback_stage == 2) {
        ctx.node_selector_pin = args_.golden_node_selector;
        ctx.alerts.push_back(fmt::format(
            "{}: metrics of {} node(s) unavailable for {}; pod pinned to the golden node pool",
            plugin, missing, format_duration(elapsed)));
      }
    }
    ctx.fallback_decided = true;
  }

  bool available(int i) const { return available_[i]; }
  const LoadVector& load(int i) const { return loads_[i]; }
  // Per-card GPU-memory utilisation (cardFit only).
  std::span<const double> cards(int i) const { return cards_[i]; }
  bool has(int i) const { return i >= 0 && static_cast<std::size_t>(i) < available_.size(); }

 private:
  const LoadAwareArgs& args_;
  MetricsCache cache_;
  std::vector<LoadVector> loads_;
  std::vector<std::vector<double>> cards_;
  std::vector<bool> available_;
  std::optional<TimePoint> unavailable_since_;
  std::vector<int> all_;
  // The earliest fetch time of the answers of the last read (set when that read found every
  // node's answer); the read stands while it is within metricCacheTTL.
  std::optional<TimePoint> all_fetched_;
};

// What LoadAwareFilter shares with LoadAwareScorer in a cycle.
struct SharedLoad {
  const LoadAwareArgs* args = nullptr;
  const LoadView* view = nullptr;
};

std::string describe(const LoadVector& v) {
  return fmt::format("gpu-memory {:.3f}, nvlink {:.3f}, io {:.3f}", v.gpu_memory, v.nvlink, v.io);
}

// The seed's plugins implement only Filter and Score (its scheduler-config.yaml enables them at
// those points alone), so each prepares its view of the cluster on its first call in a cycle.
class LoadAwareFilter final : public FilterPlugin {
 public:
  explicit LoadAwareFilter(LoadAwareArgs args) : args_(std::move(args)), view_(args_) {}
  std::string_view name() const override { return "LoadAwareFilter"; }
  bool reads_metrics() const override { return true; }
  std::vector<ClusterEventWithHint> events_to_register() const override {
    return {ClusterEventWithHint{.event = kClusterChanged, .hint = {}},
            ClusterEventWithHint{.event = kMetricsChanged, .hint = {}}};
  }
  bool reads_forecasts() const override { return args_.predict_load; }

  Status filter(CycleContext& ctx, const PodSpec& pod, int node_index) override {
    if (cycle_ != ctx.cycle) {
      cycle_ = ctx.cycle;
      const int missing = view_.read_all(ctx);
      view_.decide_stage(ctx, missing, name());
      stage_ = ctx.fallback_stage;
      shared_ = SharedLoad{&args_, &view_};
      ctx.shared["LoadAware"] = &shared_;
    }
    if (terms_cycle_ != ctx.cycle || terms_pod_ != &pod) {
      // PreFilter state: the pod's threshold and NVLink need, once per cycle and pod.
      terms_cycle_ = ctx.cycle;
      terms_pod_ = &pod;
      terms_ = load_aware_pod_terms(pod, args_);
    }
    const NodeSpec& node = ctx.cluster.nodes[node_index].node;
    if (stage_ == 2 && !matches(args_.golden_node_selector, node.labels)) {
      return reject(ctx, Code::kUnschedulableAndUnresolvable,
                    "node(s) didn't match Pod's node affinity/selector");
    }
    if (!view_.available(node_index)) {
      return Status::success();  // no metrics: the fallback decides
    }
    // The messages (load_aware_filter_reason(), card_fit_reason()) only when they are recorded.
    if (const auto why = load_rejection(view_.load(node_index), terms_, args_);
        why != LoadRejection::kNone) {
      return reject(ctx, Code::kUnschedulable,
                    [&] { return load_rejection_message(why, terms_, args_); });
    }
    if (args_.card_fit) {
      const std::int64_t card_memory = ctx.cluster.nodes[node_index].gpu_card_memory;
      if (const auto s = card_shortfall(view_.cards(node_index), pod, card_memory, args_)) {
        return reject(ctx, Code::kUnschedulable, [&] { return card_shortfall_message(*s); });
      }
    }
    return Status::success();
  }

  std::string explain_node(int node_index) const override {
    if (!view_.has(node_index)) {
      return {};
    }
    if (!view_.available(node_index)) {
      return "metrics unavailable";
    }
    return describe(view_.load(node_index));
  }

 private:
  LoadAwareArgs args_;
  LoadView view_;
  std::uint64_t cycle_ = 0;
  int stage_ = 0;
  SharedLoad shared_;
  std::uint64_t terms_cycle_ = 0;
  const PodSpec* terms_pod_ = nullptr;
  LoadAwarePodTerms terms_;
};
static_assert(Implements<LoadAwareFilter, FilterPlugin>);

class LoadAwareScorer final : public ScorePlugin {
 public:
  explicit LoadAwareScorer(LoadAwareArgs args) : args_(std::move(args)), view_(args_) {}
  std::string_view name() const override { return "LoadAwareScorer"; }
  bool reads_metrics() const override { return true; }
  bool reads_forecasts() const override { return args_.predict_load; }

  std::int64_t score(CycleContext& ctx, const PodSpec&, int node_index) override {
    if (cycle_ != ctx.cycle) {
      // Scores are asked only for feasible nodes, but which ones is not known here: read every
      // node through the cache (misses are queried once per metricCacheTTL).
      cycle_ = ctx.cycle;
      view_in_use_ = &view_;
      // One Prometheus view per cycle: reuse LoadAwareFilter's reads when its args are the same.
      const auto it = ctx.shared.find("LoadAware");
      const auto* shared =
          it == ctx.shared.end() ? nullptr : static_cast<const SharedLoad*>(it->second);
      if (shared != nullptr && *shared->args == args_) {
        view_in_use_ = shared->view;
      } else if (!(ctx.fallback_decided && ctx.fallback_stage > 0)) {
        const int missing = view_.read_all(ctx);
        if (!ctx.fallback_decided) {
          view_.decide_stage(ctx, missing, name());
        }
      }
      stage_ = ctx.fallback_stage;
    }
    if (stage_ > 0 || !view_in_use_->available(node_index)) {
      return remaining_gpu_score(ctx.cluster.nodes[node_index]);
    }
    return load_aware_score(view_in_use_->load(node_index), args_);
  }

  std::string explain_node(int node_index) const override {
    if (stage_ > 0) {
      return fmt::format("fallback stage {}: remaining GPUs x 10", stage_);
    }
    if (view_in_use_ == nullptr || !view_in_use_->has(node_index)) {
      return {};
    }
    if (!view_in_use_->available(node_index)) {
      return "metrics unavailable: remaining GPUs x 10";
    }
    const LoadVector& v = view_in_use_->load(node_index);
    return fmt::format("{} -> {:.2f}", describe(v), load_aware_raw_score(v, args_));
  }

 private:
  LoadAwareArgs args_;
  LoadView view_;
  const LoadView* view_in_use_ = nullptr;
  std::uint64_t cycle_ = 0;
  int stage_ = 0;
};
static_assert(Implements<LoadAwareScorer, ScorePlugin>);

}  // namespace

std::unique_ptr<Plugin> make_load_aware_filter(const LoadAwareArgs& args) {
  return std::make_unique<LoadAwareFilter>(args);
}

std::unique_ptr<Plugin> make_load_aware_scorer(const LoadAwareArgs& args) {
  return std::make_unique<LoadAwareScorer>(args);
}

}  // namespace tidesim::policies
