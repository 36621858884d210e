#pragma once
/// Job-level policies by name (docs/writing-a-policy.md, "A job-level policy"). The built-ins
/// (fifo, sjf, srtf, tiresias) are always there; a program adds its own with
/// register_job_policy() or a JobPolicyRegistrar before it loads a scenario that names them.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/admission/job_policy.hpp"

namespace tidesim {

/// Builds a policy for one run from its `admission:` entry.
using JobPolicyFactory = std::function<std::unique_ptr<JobPolicy>(const AdmissionConfig&)>;

/// The optional `admission:` keys a policy reads (beyond `policy`, `consolidate` and `queues`,
/// which every policy has).
enum class AdmissionKey {
  kBackfill,
  kInterval,
  kThresholds,
  kStarvationLimit,
  kEstimateSigma,
  kArgs,
  kHyperNodes
};

struct JobPolicyEntry {
  std::string name;
  std::vector<AdmissionKey> keys;
  JobPolicyFactory factory;
  /// An OrderedJobPolicy (Kueue-style queues need an order).
  bool ordered = false;
  /// Tiresias' consolidated placement on by default.
  bool consolidate_by_default = false;
};

/// Registers `entry` (its keys: kArgs always added). Throws std::invalid_argument when the name
/// is empty or taken by a built-in; registering a name again replaces it (a notebook cell run
/// twice).
void register_job_policy(JobPolicyEntry entry);

/// The registered names, built-ins first, then in registration order.
std::vector<std::string> job_policy_names();
/// A copy of the entry called `name` (a later registration may replace it), or nullopt.
std::optional<JobPolicyEntry> find_job_policy(const std::string& name);
/// A new instance of `config.policy`; throws std::invalid_argument for an unknown name.
std::unique_ptr<JobPolicy> make_job_policy(const AdmissionConfig& config);

/// Registers a policy when a static object is constructed (a plugin linked into a program).
struct JobPolicyRegistrar {
  explicit JobPolicyRegistrar(JobPolicyEntry entry) { register_job_policy(std::move(entry)); }
};

}  // namespace tidesim
