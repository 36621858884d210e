#pragma once
/// Facts about a pod that more than one part of tidesim reads, each stated once: the run flags
/// NVLink jobs for the contention metric and the NVLink competition index with the same rule the
/// load-aware plugins filter and estimate with.
#include "sim/api/api.hpp"

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

}  // namespace tidesim
