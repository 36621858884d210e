#pragma once
/// The rules of the GPU-sharing policies of Weng et al., "Beware of Fragmentation: Scheduling
/// GPU-Sharing Workloads with Fragmentation Gradient Descent" (USENIX ATC 2023) and its five
/// baselines, as the FGD simulator implements them (hkust-adsl/kubernetes-scheduler-simulator
/// @8f3d641, pkg/simulator/plugin/*_score.go; formulas in docs/policies.md "GPU-sharing
/// policies"). Plain functions on a small node state: the Score plugins of gpu_share_plugins.hpp
/// and the fill experiment (sim/experiments/fill_experiment.hpp) both call these, so each rule has
/// one implementation.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tidesim::policies::gpushare {

/// Milli-GPU in one card.
inline constexpr int kMilli = 1000;
/// The FGD simulator's normalisers (pkg/type/open-gpu-share/utils: MaxSpecCpu, MaxSpecGpu): the
/// largest node of the openb cluster, 128 cores and 8 GPUs.
inline constexpr double kMaxSpecCpu = 128000.0;
inline constexpr std::int64_t kMaxSpecGpu = 8000;

/// The six policies.
enum class Policy { kRandom, kDotProd, kGpuClustering, kGpuPacking, kBestFit, kFgd };

/// What the policies read of one node.
struct NodeState {
  /// Unrequested CPU (milli) and memory (bytes).
  std::int64_t cpu_left = 0;
  std::int64_t mem_left = 0;
  /// GPU model id (the caller's numbering; used against PodReq::models); -1 without GPUs.
  int model = -1;
  /// GpuClustering's affinity tags of the GPU pods on the node: bit 0 share-gpu, bit k (1-31)
  /// "k-gpu" (pod_tag_bit()).
  std::uint32_t tags = 0;
  /// Milli-GPU left on each card, in card order.
  std::vector<int> left;

  /// L: the sum of `left`.
  std::int64_t total_left() const;
  /// F: cards with nothing allocated.
  int free_cards() const;
};

/// What the policies read of one pod (pkg/utils/utils.go GetPodResource).
struct PodReq {
  std::int64_t cpu = 0;
  std::int64_t mem = 0;
  /// Milli-GPU per card (0 for a CPU-only pod) and cards (0 for a CPU-only pod).
  int gm = 0;
  int ng = 0;
  /// Allowed GPU model ids as a bit mask; 0: any model.
  std::uint64_t models = 0;

  /// A GPU-sharing pod: one card, part of it.
  bool share() const { return ng == 1 && gm < kMilli; }
  /// Milli-GPU in all: gm * ng.
  std::int64_t req() const { return static_cast<std::int64_t>(gm) * ng; }
};

/// GpuClustering's tag of a GPU pod as a bit (share-gpu: bit 0, "<ng>-gpu": bit min(ng, 31)); 0
/// for a CPU-only pod.
std::uint32_t pod_tag_bit(const PodReq& pod);

/// True when `node` serves model mask `models` (0 = any).
bool model_allowed(const NodeState& node, std::uint64_t models);

/// Feasibility (FGD-EXPERIMENT.md "Procedure" 5): CPU and memory fit; a GPU pod needs a model it
/// allows and, for one card, a card with left >= gm, for several, that many cards with left >= gm.
bool fits(const NodeState& node, const PodReq& pod);

/// A policy's verdict on one node: its score and, for a GPU-sharing pod, the card it implies
/// (-1 when the pod takes whole cards or none).
struct Verdict {
  std::int64_t score = 0;
  int card = -1;
};

/// The "best" card of a GPU-sharing pod: the smallest left >= gm, first index on ties.
int best_fit_card(const NodeState& node, const PodReq& pod);
/// The cards a pod takes on `node` given a share card (`card`, -1 to pick best_fit_card()):
/// the share card, or the `ng` lowest-index fully free cards; empty for a CPU-only pod.
std::vector<int> cards_for(const NodeState& node, const PodReq& pod, int card);
/// Takes `pod` off `node` on `cards` (CPU, memory, gm on each card, the pod's tag).
void allocate(NodeState& node, const PodReq& pod, std::span<const int> cards);

/// DotProd (plugin/dot_product_score.go): int64(100 * (1 - dot(node, pod) / 2)) over
/// (CPU / 128000, GPU / 8000) vectors of what is left and what is asked.
Verdict dot_product(const NodeState& node, const PodReq& pod);
/// GpuClustering (plugin/gpu_clustering_score.go).
Verdict gpu_clustering(const NodeState& node, const PodReq& pod);
/// GpuPacking (plugin/gpu_packing_score.go).
Verdict gpu_packing(const NodeState& node, const PodReq& pod);
/// BestFit's raw score (plugin/best_fit_score.go), before bestfit_normalize().
Verdict best_fit_raw(const NodeState& node, const PodReq& pod);
/// The FGD simulator's NormalizeScore (plugin/plugin_utils.go): (s - lo) * 100 / (hi - lo), all
/// 0 when hi == lo.
void min_max_normalize(std::span<std::int64_t> scores);

/// One typical pod of FGD's target workload, with its weight.
struct TypicalPod {
  std::int64_t cpu = 0;
  int gm = 0;
  int ng = 0;
  std::uint64_t models = 0;
  /// The type as written (gpu_spec), for ordering and display.
  std::string type;
  std::int64_t count = 0;
  double weight = 0.0;
};

/// FGD's typical pods (pkg/simulator typical pods; FGD-EXPERIMENT.md "FGD"): the pods grouped by
/// (cpu, gm, ng, type), memory ignored; sorted by count descending, ties by key descending; the
/// shortest prefix holding `threshold` (0.95) of the pods, each weighted count / prefix total,
/// computed as the Go code rounds it: (count / N) / (prefix / N), N the pods (count / N when the
/// prefix is every key). `pods` and `types` are parallel (types[i] is pods[i]'s gpu_spec).
std::vector<TypicalPod> typical_pods(std::span<const PodReq> pods,
                                     std::span<const std::string> types, double threshold = 0.95);

/// Frag(node) in milli-GPU (pkg/utils/frag.go NodeGpuShareFragAmount, summed except Q3): the
/// idle GPU capacity that the typical pods cannot use, weighted by their frequency.
double fragmentation(const NodeState& node, std::span<const TypicalPod> typical);

/// FGD (plugin/fgd_score.go): a share pod tries each card with left >= gm and takes the first
/// with the highest int64(sigmoid((Frag(n) - Frag(n'))/1000) * 100); another pod scores that of
/// n' = n minus its CPU and gm on the ng cards with the least left >= gm.
Verdict fgd(const NodeState& node, const PodReq& pod, std::span<const TypicalPod> typical);

/// The score of `policy` other than Random and BestFit's normalisation (Random: 0).
Verdict score(Policy policy, const NodeState& node, const PodReq& pod,
              std::span<const TypicalPod> typical);

}  // namespace tidesim::policies::gpushare
