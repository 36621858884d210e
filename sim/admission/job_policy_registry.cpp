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

std::vector<JobPolicyEntry> builtin_entries() {
  using K = AdmissionKey;
  std::vector<JobPolicyEntry> e;
  e.push_back({"fifo",
               {K::kBackfill},
               [](const AdmissionConfig& c) { return std::make_unique<FifoPolicy>(c.backfill); },
               true,
               false,
               nullptr});
  e.push_back({"sjf",
               {K::kBackfill, K::kEstimateSigma},
               [](const AdmissionConfig& c) { return std::make_unique<SjfPolicy>(c.backfill); },
               true,
               false,
               nullptr});
  e.push_back({"srtf",
               {K::kBackfill, K::kInterval, K::kEstimateSigma},
               [](const AdmissionConfig& c) {
                 return std::make_unique<SrtfPolicy>(c.backfill, c.interval);
               },
               true,
               false,
               nullptr});
  e.push_back({"tiresias",
               {K::kBackfill, K::kInterval, K::kThresholds, K::kStarvationLimit},
               [](const AdmissionConfig& c) { return std::make_unique<TiresiasPolicy>(c); },
               true,
               true,
               nullptr});
  e.push_back({"tiresias-artifact",
               {K::kInterval, K::kThresholds, K::kStarvationLimit, K::kArgs},
               [](const AdmissionConfig& c) { return std::make_unique<TiresiasArtifactPolicy>(c); },
               false,
               true,
               [](Fields& args) { return std::any(decode_artifact_args(args)); }});
  e.push_back({"optimus",
               {K::kInterval, K::kArgs},
               [](const AdmissionConfig& c) { return std::make_unique<OptimusPolicy>(c); },
               false,
               true,
               [](Fields& args) { return std::any(decode_artifact_args(args)); }});
  e.push_back({"pollux",
               {K::kInterval, K::kArgs},
               [](const AdmissionConfig& c) { return std::make_unique<PolluxPolicy>(c); },
               false,
               false,
               [](Fields& args) { return std::any(decode_pollux_args(args)); }});
  e.push_back({"gavel",
               {K::kArgs},
               [](const AdmissionConfig& c) { return std::make_unique<GavelPolicy>(c); },
               false,
               false,
               nullptr});
  e.push_back({"volcano",
               {K::kHyperNodes, K::kArgs},
               [](const AdmissionConfig& c) { return std::make_unique<VolcanoPolicy>(c); },
               false,
               false,
               nullptr});
  return e;
}

// The policies registered process-wide (register_job_policy), in registration order.
struct Registered {
  std::mutex mutex;
  JobPolicyRegistry registry = JobPolicyRegistry::builtin();
};

Registered& registered() {
  static Registered r;
  return r;
}

}  // namespace

JobPolicyRegistry JobPolicyRegistry::builtin() {
  JobPolicyRegistry r;
  r.entries_ = builtin_entries();
  r.builtins_ = r.entries_.size();
  return r;
}

void JobPolicyRegistry::add(JobPolicyEntry entry) {
  if (entry.name.empty() || !entry.factory) {
    throw std::invalid_argument("a job-level policy needs a name and a factory");
  }
  if (std::find(entry.keys.begin(), entry.keys.end(), AdmissionKey::kArgs) == entry.keys.end()) {
    entry.keys.push_back(AdmissionKey::kArgs);
  }
  const auto it = std::find_if(entries_.begin(), entries_.end(),
                               [&entry](const JobPolicyEntry& e) { return e.name == entry.name; });
  if (it == entries_.end()) {
    entries_.push_back(std::move(entry));
    return;
  }
  if (static_cast<std::size_t>(it - entries_.begin()) < builtins_) {
    throw std::invalid_argument("'" + entry.name + "' is a built-in job-level policy");
  }
  *it = std::move(entry);
}

std::vector<std::string> JobPolicyRegistry::names() const {
  std::vector<std::string> names;
  for (const JobPolicyEntry& e : entries_) {
    names.push_back(e.name);
  }
  return names;
}

const JobPolicyEntry* JobPolicyRegistry::find(const std::string& name) const {
  for (const JobPolicyEntry& e : entries_) {
    if (e.name == name) {
      return &e;
    }
  }
  return nullptr;
}

std::unique_ptr<JobPolicy> JobPolicyRegistry::make(const AdmissionConfig& config) const {
  const JobPolicyEntry* entry = find(config.policy);
  if (entry == nullptr) {
    throw std::invalid_argument("no job-level policy named '" + config.policy + "'");
  }
  std::unique_ptr<JobPolicy> policy = entry->factory(config);
  if (!policy) {
    throw std::invalid_argument("the factory of job-level policy '" + config.policy +
                                "' returned no policy");
  }
  return policy;
}

JobPolicyRegistryPtr default_job_policy_registry() {
  Registered& r = registered();
  const std::lock_guard<std::mutex> lock(r.mutex);
  return std::make_shared<const JobPolicyRegistry>(r.registry);
}

JobPolicyRegistryPtr job_policy_registry_with(const JobPolicyRegistry& base,
                                              std::vector<JobPolicyEntry> entries) {
  auto r = std::make_shared<JobPolicyRegistry>(base);
  for (JobPolicyEntry& e : entries) {
    r->add(std::move(e));
  }
  return r;
}

void register_job_policy(JobPolicyEntry entry) {
  Registered& r = registered();
  const std::lock_guard<std::mutex> lock(r.mutex);
  r.registry.add(std::move(entry));
}

std::vector<std::string> job_policy_names() {
  return default_job_policy_registry()->names();
}

std::optional<JobPolicyEntry> find_job_policy(const std::string& name) {
  const JobPolicyRegistryPtr r = default_job_policy_registry();
  const JobPolicyEntry* e = r->find(name);
  return e == nullptr ? std::nullopt : std::optional<JobPolicyEntry>(*e);
}

std::unique_ptr<JobPolicy> make_job_policy(const AdmissionConfig& config) {
  if (config.registry) {
    return config.registry->make(config);
  }
  return default_job_policy_registry()->make(config);
}

}  // namespace tidesim
