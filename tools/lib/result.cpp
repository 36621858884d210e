#include "tidesim/tools/lib/result.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "tidesim/version.hpp"

// RunResult's queries and the run metadata. The JSON form is written by result_write.cpp and read
// by result_read.cpp, its summary computed by result_summary.cpp; the Recorder is in recorder.cpp.

namespace tidesim::app {

std::optional<double> job_completion_s(const JobRecord& job) {
  if (job.state != "succeeded" || !job.finish_s) {
    return std::nullopt;
  }
  return *job.finish_s - job.submit_s;
}

std::optional<double> job_slowdown(const JobRecord& job) {
  const auto jct = job_completion_s(job);
  if (!jct || !job.ideal_s || *job.ideal_s <= 0) {
    return std::nullopt;
  }
  return *jct / *job.ideal_s;
}

std::vector<double> metric_values(const std::vector<const SeedRun*>& runs,
                                  const std::string& metric) {
  std::vector<double> values;
  for (const auto* run : runs) {
    if (const auto it = run->metrics.find(metric); it != run->metrics.end()) {
      values.push_back(it->second);
    }
  }
  return values;
}

std::vector<const SeedRun*> RunResult::runs_of(std::string_view policy) const {
  std::vector<const SeedRun*> out;
  for (const auto& run : runs) {
    if (run.policy == policy) {
      out.push_back(&run);
    }
  }
  return out;
}

std::vector<std::string> RunResult::policy_names() const {
  std::vector<std::string> names = metadata.policies;
  for (const auto& run : runs) {
    if (std::find(names.begin(), names.end(), run.policy) == names.end()) {
      names.push_back(run.policy);
    }
  }
  return names;
}

RunMetadata make_metadata(std::string name, std::string path, std::string hash,
                          std::vector<std::uint64_t> seeds, std::vector<std::string> policies) {
  RunMetadata m;
  m.tidesim_version = kVersion;
  m.scenario_name = std::move(name);
  m.scenario_path = std::move(path);
  m.scenario_hash = std::move(hash);
  m.seeds = std::move(seeds);
  m.policies = std::move(policies);
  return m;
}
}  // namespace tidesim::app
