#pragma once
/// The seed's LoadAwareFilter and LoadAwareScorer (digest sections 2.2-4.4): a three-dimensional
/// load vector (GPU memory, NVLink competition, storage IO) read from telemetry through a
/// metricCacheTTL cache, layered thresholds, weighted decay, NVLink auto-detection, the
/// ai.gpu-reject-threshold override, and the two-stage fallback to a golden node pool. Every
/// seed code/text contradiction is resolved as documented in docs/policies.md; the seed-code
/// behaviour is available through args.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "tidesim/policies/framework.hpp"
#include "tidesim/policies/plugin_args.hpp"
#include "tidesim/sim/api/pod_traits.hpp"

namespace tidesim::policies {

/// One load dimension: safe and reject thresholds (load fractions) and its weight.
struct LoadDimension {
  double safe = 0.0;
  double reject = 1.0;
  double weight = 0.0;
  friend bool operator==(const LoadDimension&, const LoadDimension&) = default;
};

/// Which score formula LoadAwareScorer uses (digest RESOLVE (a)).
enum class LoadScoreFormula {
  kText,      ///< 100 * (1 - sum w_i * clamp((x_i - safe_i) / width_i, 0, 1)) (the text; default)
  kSeedCode,  ///< int64(100 * (1 - sum w_i * max(0, 1 - (x_i - safe_i) / width_i))) (seed's Go)
};

/// How per-card GPU memory utilisation becomes one node value.
enum class GpuMemoryAggregation { kMax, kMean, kMin };

/// Which pods the NVLink reject threshold applies to (digest 4.2 vs 3.2.1).
enum class NvlinkCheck {
  kRequiredPods,  ///< only pods that need NVLink (declared or auto-detected; default)
  kAllPods,       ///< every pod (the seed's Filter code)
};

/// Args of both load-aware plugins (the seed's pluginConfig keys plus tidesim's explicit ones).
struct LoadAwareArgs {
  /// Thresholds and weights of the digest's table 2.3.
  LoadDimension gpu_memory{0.70, 0.85, 0.5};
  LoadDimension nvlink{0.30, 0.60, 0.3};
  LoadDimension io{0.40, 0.70, 0.2};
  /// gpuMemoryDecaySlope: width of the GPU-memory warning band (decay = (x - safe) / slope).
  double gpu_memory_decay_slope = 0.15;
  /// metricCacheTTL: a node's metrics are re-queried once they are this old (0: no cache).
  Duration metric_cache_ttl = std::chrono::seconds(30);
  /// rejectThresholdSafetyMargin: subtracted from the GPU-memory reject threshold in Filter.
  double reject_threshold_safety_margin = 0.05;
  /// IO load = min(1, await / ioFullScaleAwait); 30 ms is the text's rule, 100 ms the seed code's.
  Duration io_full_scale_await = std::chrono::milliseconds(30);
  LoadScoreFormula score_formula = LoadScoreFormula::kText;
  GpuMemoryAggregation gpu_memory_aggregation = GpuMemoryAggregation::kMax;
  NvlinkCheck nvlink_check = NvlinkCheck::kRequiredPods;
  /// Treat pods whose first image contains "pytorch" as NVLink-requiring (digest 4.2).
  bool auto_detect_nvlink = true;
  /// A metrics query slower than this counts as no answer (digest 4.3: 5 s).
  Duration fallback_timeout = std::chrono::seconds(5);
  /// Metrics unavailable this long: stage 2, pin to the golden node pool (digest 4.3: 10 s).
  Duration golden_pool_after = std::chrono::seconds(10);
  /// The golden node pool (assumption: label tidesim.io/golden-node=true).
  LabelSelector golden_node_selector{{{"tidesim.io/golden-node", "true"}}, {}};
  /// Koordinator-style estimate of pods bound after the metrics' sample time (off: the seed).
  bool estimate_bound_pods = false;
  /// Estimated GPU-memory utilisation one bound pod adds per requested GPU (assumption).
  double estimated_gpu_memory_per_gpu = 0.5;
  /// cardFit: judge GPU memory per card instead of by the node's aggregated card
  /// (card_fit_reason()); off: the seed's node-level threshold.
  bool card_fit = false;
  /// predictLoad: evaluate the thresholds and the score on the load predicted for the bind time
  /// plus the scenario's prediction horizon (MetricsSource::forecast, docs/prediction.md)
  /// instead of the last scraped sample (off: reactive, the seed).
  bool predict_load = false;
  /// prometheusURL: accepted for the seed's config; tidesim reads its own telemetry.
  std::string prometheus_url;
  friend bool operator==(const LoadAwareArgs&, const LoadAwareArgs&) = default;
};

/// Parses and validates the args (errors name the field and value).
LoadAwareArgs parse_load_aware_args(const PluginArgs& args);

/// A node's load vector, each part in [0, 1].
struct LoadVector {
  double gpu_memory = 0.0;
  double nvlink = 0.0;
  double io = 0.0;
};

/// Storage IO load of one await: min(1, await_ms / full_scale_ms) (digest 2.2: 42.83 ms -> 1.0).
double io_load(double await_ms, Duration full_scale);
/// The load vector of a metrics sample: GPU memory aggregated over cards, IO from the worst
/// (largest) device await.
LoadVector load_vector(const NodeMetrics& m, const LoadAwareArgs& args);

/// The NVLink rule (sim/api/pod_traits.hpp) as these args configure it: the pytorch-image
/// detection follows autoDetectNvlink.
NvlinkRule nvlink_rule(const LoadAwareArgs& args);
/// The GPU-memory reject threshold for `pod`: annotation ai.gpu-reject-threshold when it parses
/// as a number (Go strconv.ParseFloat: the whole string), else args.gpu_memory.reject.
double gpu_reject_threshold(const PodSpec& pod, const LoadAwareArgs& args);

/// What LoadAwareFilter's verdict needs of the pod, which depends on the pod alone: computed once
/// per scheduling cycle (the PreFilter state of a Kubernetes plugin), not once per node.
struct LoadAwarePodTerms {
  /// gpu_reject_threshold(pod) minus args.reject_threshold_safety_margin.
  double mem_reject = 0.0;
  /// The pod's NVLink need under nvlink_rule(args).
  NvlinkNeed nvlink = NvlinkNeed::kNone;
};
LoadAwarePodTerms load_aware_pod_terms(const PodSpec& pod, const LoadAwareArgs& args);

/// LoadAwareFilter's verdict on one load vector: empty when the node passes, else the reason.
/// With args.card_fit the GPU-memory dimension is left to card_fit_reason().
std::optional<std::string> load_aware_filter_reason(const LoadVector& load,
                                                    const LoadAwarePodTerms& terms,
                                                    const LoadAwareArgs& args);
/// The same verdict, computing the pod's terms first.
std::optional<std::string> load_aware_filter_reason(const LoadVector& load, const PodSpec& pod,
                                                    const LoadAwareArgs& args);
/// The share of one card's memory `pod` needs on each of its GPUs, for cardFit: its declared
/// nvidia.com/gpumem-percentage / 100, else its nvidia.com/gpumem over `card_memory` bytes when
/// that is known (> 0: nodes with declared memory publish it), else
/// args.estimated_gpu_memory_per_gpu (an assumption).
double card_need(const PodSpec& pod, std::int64_t card_memory, const LoadAwareArgs& args);
/// cardFit's verdict: empty when at least the pod's GPU count of cards (1 for a share) each have
/// utilisation + card_need <= the pod's GPU-memory reject threshold minus the safety margin;
/// else the reason. `cards` is the node's per-card GPU-memory utilisation as the plugin sees it.
std::optional<std::string> card_fit_reason(std::span<const double> cards, const PodSpec& pod,
                                           std::int64_t card_memory, const LoadAwareArgs& args);

/// LoadAwareScorer's score before truncation (text formula: 73.33 for 78% / 15% / 20%).
double load_aware_raw_score(const LoadVector& load, const LoadAwareArgs& args);
/// The integer score the plugin returns: int64 truncation of the raw score.
std::int64_t load_aware_score(const LoadVector& load, const LoadAwareArgs& args);
/// Stage-1 fallback score: min(100, remaining allocatable GPUs x 10).
std::int64_t remaining_gpu_score(const NodeInfo& info);

/// `m` plus the estimated load of pods bound to `info` after m.sampled_at: each such pod adds
/// args.estimated_gpu_memory_per_gpu to its GPU count of least-loaded cards, and 1 / (2 x cards)
/// to the NVLink index when it needs NVLink.
NodeMetrics with_estimated_bound_pods(const NodeMetrics& m, const NodeInfo& info,
                                      const LoadAwareArgs& args);

/// Factory of LoadAwareFilter (Filter only, as in the seed).
std::unique_ptr<Plugin> make_load_aware_filter(const LoadAwareArgs& args);
/// Factory of LoadAwareScorer (Score only, as in the seed).
std::unique_ptr<Plugin> make_load_aware_scorer(const LoadAwareArgs& args);

}  // namespace tidesim::policies
