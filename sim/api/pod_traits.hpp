#pragma once
/// Facts about a pod that more than one part of tidesim reads, each stated once: the run flags
/// NVLink jobs for the contention metric and the NVLink competition index with the same rule the
/// load-aware plugins filter and estimate with.
#include <cstdint>

#include "tidesim/sim/api/api.hpp"

namespace tidesim {

/// How a pod's need for NVLink was established.
enum class NvlinkNeed {
  kNone,          ///< the pod neither states a need nor matches the detection rule
  kDeclared,      ///< the pod states it (env, label or annotation; see nvlink_need())
  kAutoDetected,  ///< only the seed's auto-detection finds it (SEED-DIGEST 4.2)
};

/// Options of the NVLink rule.
struct NvlinkRule {
  /// Also treat a pod whose first container image contains "pytorch" as needing NVLink
  /// (SEED-DIGEST 4.2: old PyTorch jobs call init_process_group without declaring anything).
  /// A guess about the pod, not something it states: off unless a policy asks for it (the
  /// load-aware plugins' arg autoDetectNvlink, default true).
  bool detect_pytorch_image = false;
};

/// The one NVLink rule. kDeclared when env AI_NV_LINK_REQUIRED, or a label or an annotation named
/// "nvl-link-required" (the seed's spelling), "nvlink-required", "ai.nvlink-required" or
/// "AI_NV_LINK_REQUIRED", is "true"; else kAutoDetected when annotation "ai.auto-nvlink" is
/// "true" (the seed's explicit opt-in to its detection) or, with rule.detect_pytorch_image, the
/// image contains "pytorch"; else kNone. "true" is compared in any letter case (YAML writes
/// True and TRUE as well).
NvlinkNeed nvlink_need(const PodSpec& pod, NvlinkRule rule);

/// nvlink_need(pod, rule) != NvlinkNeed::kNone.
bool needs_nvlink(const PodSpec& pod, NvlinkRule rule);

/// HAMi's per-GPU resources (Project-HAMi/HAMi, docs: "nvidia.com/gpumem" in MiB,
/// "nvidia.com/gpumem-percentage" in percent of the card, "nvidia.com/gpucores" in percent of its
/// compute), requested per GPU of `nvidia.com/gpu`.
inline constexpr const char* kGpuMemResource = "nvidia.com/gpumem";
inline constexpr const char* kGpuMemPercentResource = "nvidia.com/gpumem-percentage";
inline constexpr const char* kGpuCoresResource = "nvidia.com/gpucores";

/// What a pod declares on each of its GPUs under declared-memory sharing.
struct GpuClaim {
  /// Bytes of GPU memory on each card.
  std::int64_t memory = 0;
  /// Percent of each card's compute (0: no limit; the process time-shares the card).
  int cores = 0;
};

/// The one rule for a pod's declared GPU memory and compute on a card of `card_capacity` bytes:
/// gpumem MiB x 2^20, else gpumem-percentage x capacity / 100, else the whole card (HAMi's
/// default when a pod names neither); never more than the card. Cores: gpucores clamped to
/// [0, 100]. The scheduler's card fit and the device plugin's bind both call this.
GpuClaim gpu_claim(const PodSpec& pod, std::int64_t card_capacity);

}  // namespace tidesim
