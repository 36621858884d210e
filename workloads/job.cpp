#include "workloads/job.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace tidesim::workloads {
namespace {

bool is_true(const std::string& value) {
  std::string lower = value;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower == "true";
}

bool has_true(const std::map<std::string, std::string>& values, const std::string& key) {
  const auto it = values.find(key);
  return it != values.end() && is_true(it->second);
}

constexpr std::array<const char*, 4> kNvlinkKeys = {"nvl-link-required", "nvlink-required",
                                                    "ai.nvlink-required", "AI_NV_LINK_REQUIRED"};

}  // namespace

bool nvlink_required(const PodSpec& pod) {
  if (has_true(pod.env, "AI_NV_LINK_REQUIRED")) {
    return true;
  }
  return std::any_of(kNvlinkKeys.begin(), kNvlinkKeys.end(), [&](const char* key) {
    return has_true(pod.labels, key) || has_true(pod.annotations, key);
  });
}

bool nvlink_auto_detected(const PodSpec& pod) {
  const auto it = pod.annotations.find("ai.auto-nvlink");
  if (it != pod.annotations.end() && it->second == "true") {
    return true;
  }
  return pod.image.find("pytorch") != std::string::npos;
}

std::int64_t job_gpus(const JobSpec& job) {
  const auto& r = job.pod_template.requests;
  const std::int64_t per_pod = r.gpus > 0 ? r.gpus : (r.gpu_milli > 0 ? 1 : 0);
  return per_pod * job.replicas;
}

std::optional<RestartPolicy> parse_restart_policy(const std::string& text) {
  if (text == "Never") {
    return RestartPolicy::kNever;
  }
  if (text == "OnFailure") {
    return RestartPolicy::kOnFailure;
  }
  return std::nullopt;
}

const char* to_string(RestartPolicy policy) {
  return policy == RestartPolicy::kOnFailure ? "OnFailure" : "Never";
}

}  // namespace tidesim::workloads
