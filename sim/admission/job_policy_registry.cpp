#include "tidesim/sim/admission/job_policy_registry.hpp"

#include <algorithm>
#include <mutex>
#include <stdexcept>

#include "tidesim/sim/admission/builtin_job_policies.hpp"
#include "tidesim/sim/admission/gavel_policy.hpp"
#include "tidesim/sim/admission/optimus.hpp"
#include "tidesim/sim/admission/pollux.hpp"
#include "tidesim/sim/admission/tiresias_artifact.hpp"
#include "tidesim/sim/admission/volcano_policy.hpp"

namespace tidesim {
namespace {

constexpr std::size_t kBuiltins = 8;

std::vector<JobPolicyEntry> builtin_entries() {
  using K = AdmissionKey;
  std::vector<JobPolicyEntry> e;
  e.push_back({"fifo",
               {K::kBackfill},
               [](const AdmissionConfig& c) { return std::make_unique<FifoPolicy>(c.backfill); },
               true,
               false});
  e.push_back({"sjf",
               {K::kBackfill, K::kEstimateSigma},
               [](const AdmissionConfig& c) { return std::make_unique<SjfPolicy>(c.backfill); },
               true,
               false});
  e.push_back({"srtf",
               {K::kBackfill, K::kInterval, K::kEstimateSigma},
               [](const AdmissionConfig& c) {
                 return std::make_unique<SrtfPolicy>(c.backfill, c.interval);
               },
               true,
               false});
  e.push_back({"tiresias",
               {K::kBackfill, K::kInterval, K::kThresholds, K::kStarvationLimit},
               [](const AdmissionConfig& c) { return std::make_unique<TiresiasPolicy>(c); },
               true,
               true});
  e.push_back({"tiresias-artifact",
               {K::kInterval, K::kThresholds, K::kStarvationLimit, K::kArgs},
               [](const AdmissionConfig& c) { return std::make_unique<TiresiasArtifactPolicy>(c); },
               false,
               true});
  e.push_back({"optimus",
               {K::kInterval, K::kArgs},
               [](const AdmissionConfig& c) { return std::make_unique<OptimusPolicy>(c); },
               false,
               true});
  e.push_back({"pollux",
               {K::kInterval, K::kArgs},
               [](const AdmissionConfig& c) { return std::make_unique<PolluxPolicy>(c); },
               false,
               false});
  e.push_back({"gavel",
               {K::kArgs},
               [](const AdmissionConfig& c) { return std::make_unique<GavelPolicy>(c); },
               false,
               false});
  e.push_back({"volcano",
               {K::kHyperNodes, K::kArgs},
               [](const AdmissionConfig& c) { return std::make_unique<VolcanoPolicy>(c); },
               false,
               false});
  return e;
}

struct Registry {
  std::mutex mutex;
  std::vector<JobPolicyEntry> entries = builtin_entries();
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

void register_job_policy(JobPolicyEntry entry) {
  if (entry.name.empty() || !entry.factory) {
    throw std::invalid_argument("a job-level policy needs a name and a factory");
  }
  if (std::find(entry.keys.begin(), entry.keys.end(), AdmissionKey::kArgs) == entry.keys.end()) {
    entry.keys.push_back(AdmissionKey::kArgs);
  }
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  const auto it = std::find_if(r.entries.begin(), r.entries.end(),
                               [&entry](const JobPolicyEntry& e) { return e.name == entry.name; });
  if (it == r.entries.end()) {
    r.entries.push_back(std::move(entry));
    return;
  }
  if (static_cast<std::size_t>(it - r.entries.begin()) < kBuiltins) {
    throw std::invalid_argument("'" + entry.name + "' is a built-in job-level policy");
  }
  *it = std::move(entry);
}

std::vector<std::string> job_policy_names() {
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (const JobPolicyEntry& e : r.entries) {
    names.push_back(e.name);
  }
  return names;
}

std::optional<JobPolicyEntry> find_job_policy(const std::string& name) {
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  for (const JobPolicyEntry& e : r.entries) {
    if (e.name == name) {
      return e;
    }
  }
  return std::nullopt;
}

std::unique_ptr<JobPolicy> make_job_policy(const AdmissionConfig& config) {
  JobPolicyFactory factory;
  {
    Registry& r = registry();
    const std::lock_guard<std::mutex> lock(r.mutex);
    for (const JobPolicyEntry& e : r.entries) {
      if (e.name == config.policy) {
        factory = e.factory;
      }
    }
  }
  if (!factory) {
    throw std::invalid_argument("no job-level policy named '" + config.policy + "'");
  }
  std::unique_ptr<JobPolicy> policy = factory(config);
  if (!policy) {
    throw std::invalid_argument("the factory of job-level policy '" + config.policy +
                                "' returned no policy");
  }
  return policy;
}

}  // namespace tidesim
