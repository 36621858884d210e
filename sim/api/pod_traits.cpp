#include "tidesim/sim/api/pod_traits.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

namespace tidesim {
namespace {

bool is_true(std::string_view value) {
  constexpr std::string_view kTrue = "true";
  return std::equal(value.begin(), value.end(), kTrue.begin(), kTrue.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == b;
  });
}

bool has_true(const std::map<std::string, std::string>& values, const std::string& key) {
  const auto it = values.find(key);
  return it != values.end() && is_true(it->second);
}

const std::array<std::string, 4> kDeclaringKeys = {"nvl-link-required", "nvlink-required",
                                                   "ai.nvlink-required", "AI_NV_LINK_REQUIRED"};

}  // namespace

NvlinkNeed nvlink_need(const PodSpec& pod, NvlinkRule rule) {
  const bool declared =
      has_true(pod.env, "AI_NV_LINK_REQUIRED") ||
      std::any_of(kDeclaringKeys.begin(), kDeclaringKeys.end(), [&](const std::string& key) {
        return has_true(pod.labels, key) || has_true(pod.annotations, key);
      });
  if (declared) {
    return NvlinkNeed::kDeclared;
  }
  if (has_true(pod.annotations, "ai.auto-nvlink") ||
      (rule.detect_pytorch_image && pod.image.find("pytorch") != std::string::npos)) {
    return NvlinkNeed::kAutoDetected;
  }
  return NvlinkNeed::kNone;
}

bool needs_nvlink(const PodSpec& pod, NvlinkRule rule) {
  return nvlink_need(pod, rule) != NvlinkNeed::kNone;
}

GpuClaim gpu_claim(const PodSpec& pod, std::int64_t card_capacity) {
  const auto& ext = pod.requests.extended;
  GpuClaim claim;
  claim.memory = card_capacity;
  if (const auto it = ext.find(kGpuMemResource); it != ext.end() && it->second > 0) {
    // MiB; at most the card (so the product cannot overflow: 2^20 x a card's MiB).
    const std::int64_t card_mib = card_capacity >> 20;
    claim.memory = std::min(it->second, card_mib) << 20;
  } else if (const auto pct = ext.find(kGpuMemPercentResource);
             pct != ext.end() && pct->second > 0) {
    const std::int64_t percent = std::min<std::int64_t>(pct->second, 100);
    claim.memory = card_capacity / 100 * percent + card_capacity % 100 * percent / 100;
  }
  if (const auto it = ext.find(kGpuCoresResource); it != ext.end()) {
    claim.cores = static_cast<int>(std::clamp<std::int64_t>(it->second, 0, 100));
  }
  return claim;
}

}  // namespace tidesim
