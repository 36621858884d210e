#include "tidesim/workloads/uncontended_time.hpp"

#include "tidesim/workloads/llm_job.hpp"

#include <algorithm>
#include <vector>

#include "tidesim/workloads/step_time.hpp"

namespace tidesim::workloads {

double uncontended_seconds(const JobSpec& spec, const Catalogue& catalogue,
                           const std::string& reference_gpu, int node_gpus) {
  const auto steps = static_cast<double>(spec.steps);
  const int gpus = static_cast<int>(job_gpus(spec));
  if (spec.measured) {
    const int per_node = std::max(1, node_gpus);
    std::vector<int> placement;
    for (int left = std::max(1, gpus); left > 0; left -= per_node) {
      placement.push_back(std::min(left, per_node));
    }
    return steps * spec.measured->step_seconds(placement);
  }
  if (spec.duration) {
    return to_seconds(*spec.duration);
  }
  if (reference_gpu.empty()) {
    return 0.0;
  }
  const ModelProfile profile = job_profile(spec, catalogue, reference_gpu);
  StepConditions c;
  c.gpus = std::max(1, gpus);
  return steps * job_step_time(spec, profile, c).seconds;
}

double uncontended_step_seconds(const JobSpec& spec, const Catalogue& catalogue,
                                const std::string& reference_gpu,
                                const std::vector<int>& placement) {
  if (spec.measured) {
    return spec.measured->step_seconds(placement);
  }
  if (reference_gpu.empty()) {
    return 0.0;
  }
  int gpus = 0;
  for (const int g : placement) {
    gpus += g;
  }
  StepConditions c;
  c.gpus = std::max(1, gpus);
  return job_step_time(spec, job_profile(spec, catalogue, reference_gpu), c).seconds;
}

}  // namespace tidesim::workloads
