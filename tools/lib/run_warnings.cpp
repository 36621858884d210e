#include "tidesim/tools/lib/run_warnings.hpp"

#include <fmt/format.h>

#include "tidesim/policies/loaded_profile.hpp"

namespace tidesim::app {
namespace {

double metric_or_zero(const SeedRun& run, const char* name) {
  const auto it = run.metrics.find(name);
  return it == run.metrics.end() ? 0.0 : it->second;
}

}  // namespace

std::vector<std::string> never_bound_warnings(const RunResult& result) {
  std::vector<std::string> out;
  for (const std::string& policy : result.policy_names()) {
    const std::vector<const SeedRun*> runs = result.runs_of(policy);
    int seeds_with = 0;
    const SeedRun* worst = nullptr;
    for (const SeedRun* run : runs) {
      const double never = metric_or_zero(*run, "unscheduled_jobs");
      if (never > 0) {
        ++seeds_with;
        if (worst == nullptr || never > metric_or_zero(*worst, "unscheduled_jobs")) {
          worst = run;
        }
      }
    }
    if (worst == nullptr) {
      continue;
    }
    out.push_back(fmt::format(
        "policy '{}': jobs never bound in {} of {} seed{} (seed {}: {:.0f} of {:.0f} jobs); "
        "their waits are in no mean (see unscheduled_jobs)",
        policy, seeds_with, runs.size(), runs.size() == 1 ? "" : "s", worst->seed,
        metric_or_zero(*worst, "unscheduled_jobs"), metric_or_zero(*worst, "jobs_submitted")));
  }
  return out;
}

std::vector<std::string> nvlink_warnings(const std::vector<PolicyConfig>& policies,
                                         const RunResult& result) {
  for (const SeedRun& run : result.runs) {
    for (const JobRecord& job : run.jobs) {
      if (job.nvlink_required) {
        return {};
      }
    }
  }
  std::string readers;
  int n = 0;
  for (const PolicyConfig& p : policies) {
    if (p.loaded().reads_metrics) {
      readers += (readers.empty() ? "'" : ", '") + p.name + "'";
      ++n;
    }
  }
  if (n == 0 || result.runs.empty()) {
    return {};
  }
  return {fmt::format(
      "polic{} {} read{} NVLink load, but no job declares an NVLink need (env "
      "AI_NV_LINK_REQUIRED, or a label or annotation: docs/scenario-workload.md, \"Declaring that "
      "a job needs NVLink\"): the NVLink rules apply only to pods guessed from their image "
      "(autoDetectNvlink) and the NVLink metrics measure no job",
      n == 1 ? "y" : "ies", readers, n == 1 ? "s" : "")};
}

std::vector<std::string> run_warnings(const std::vector<PolicyConfig>& policies,
                                      const RunResult& result) {
  std::vector<std::string> out = never_bound_warnings(result);
  for (std::string& w : nvlink_warnings(policies, result)) {
    out.push_back(std::move(w));
  }
  return out;
}

std::vector<PolicyMakespan> policy_makespans(const RunResult& result) {
  std::vector<PolicyMakespan> out;
  for (const auto& policy : result.policy_names()) {
    const auto runs = result.runs_of(policy);
    if (runs.empty()) {
      continue;
    }
    PolicyMakespan m;
    m.policy = policy;
    const auto makespans = metric_values(runs, "makespan_s");
    if (makespans.size() == runs.size()) {
      for (const double v : makespans) {
        m.seconds += v / static_cast<double>(runs.size());
      }
    } else {
      m.unfinished = true;
      for (const auto* r : runs) {
        m.seconds += r->end_s / static_cast<double>(runs.size());
      }
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace tidesim::app
