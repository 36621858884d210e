#include "tidesim/workloads/job.hpp"

namespace tidesim::workloads {

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

const char* to_string(GangMode mode) {
  return mode == GangMode::kPermit ? "permit" : "all-or-nothing";
}

const char* to_string(RestartPolicy policy) {
  return policy == RestartPolicy::kOnFailure ? "OnFailure" : "Never";
}

std::string reference_gpu_of(const JobSpec& job, const std::string& fallback) {
  if (!job.reference_gpu.empty()) {
    return job.reference_gpu;
  }
  const auto& selector = job.pod_template.node_selector;
  if (const auto it = selector.find("nvidia.com/gpu.product"); it != selector.end()) {
    return it->second;
  }
  return fallback;
}

}  // namespace tidesim::workloads
