#pragma once
/// Job-level policies by name (docs/writing-a-policy.md, "A job-level policy"), as a value: a
/// JobPolicyRegistry holds the built-ins (fifo, sjf, srtf, tiresias, tiresias-artifact, optimus,
/// pollux, gavel) and the policies a program adds to it, as kube-scheduler's plugin Registry
/// (and policies/registry.hpp) does. What loads a scenario is handed one
/// (load_scenario(..., job_policies)), and each `admission:` entry keeps the registry it was read
/// with (AdmissionConfig::registry), so two registries may hold different policies of one name.
/// register_job_policy() and JobPolicyRegistrar add to the process's default registry instead
/// (compatibility: the registry used where none is given).
#include <any>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/admission/job_policy.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim {

/// Builds a policy for one run from its `admission:` entry.
using JobPolicyFactory = std::function<std::unique_ptr<JobPolicy>(const AdmissionConfig&)>;

/// Reads a policy's `args:` into its typed args (as kube-scheduler decodes typed plugin args),
/// through `args`, a strict reader over the mapping (an empty one when none is given) whose errors
/// name file, line, column and field; the loader calls args.finish() after it.
using JobArgsDecoder = std::function<std::any(Fields& args)>;

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
  /// Decodes `args:` into AdmissionConfig::typed_args, which the factory reads (job_args()).
  /// Null: the args reach the policy as strings (AdmissionConfig::args), as a Python policy's do.
  JobArgsDecoder decode = nullptr;
};

/// Job-level policies by name: the built-ins first, then the added ones in the order they were
/// first added.
class JobPolicyRegistry {
 public:
  /// The built-in policies.
  static JobPolicyRegistry builtin();

  /// Adds `entry` (its keys: kArgs always added). Throws std::invalid_argument when the name is
  /// empty, the factory missing or the name a built-in's; adding a name again replaces its entry
  /// (a notebook cell run twice).
  void add(JobPolicyEntry entry);
  /// The names, built-ins first.
  std::vector<std::string> names() const;
  /// The entry called `name`, or null.
  const JobPolicyEntry* find(const std::string& name) const;
  /// A new instance of `config.policy`; throws std::invalid_argument for an unknown name or a
  /// factory that returns no policy.
  std::unique_ptr<JobPolicy> make(const AdmissionConfig& config) const;

 private:
  std::vector<JobPolicyEntry> entries_;
  std::size_t builtins_ = 0;
};

/// The built-ins plus the policies registered with register_job_policy() (or a
/// JobPolicyRegistrar) so far, as a new value: the registry used where none is given.
JobPolicyRegistryPtr default_job_policy_registry();

/// `base` plus `entries`, as a new value; `base` is left as it was. Throws as
/// JobPolicyRegistry::add.
JobPolicyRegistryPtr job_policy_registry_with(const JobPolicyRegistry& base,
                                              std::vector<JobPolicyEntry> entries);

/// Registers `entry` into the process's default registry (compatibility; prefer a registry
/// value): default_job_policy_registry() holds it from then on. Throws as JobPolicyRegistry::add.
void register_job_policy(JobPolicyEntry entry);

/// The default registry's names.
std::vector<std::string> job_policy_names();
/// A copy of the default registry's entry called `name`, or nullopt.
std::optional<JobPolicyEntry> find_job_policy(const std::string& name);
/// A new instance of `config.policy` from `config.registry` (the default registry when null);
/// throws std::invalid_argument for an unknown name.
std::unique_ptr<JobPolicy> make_job_policy(const AdmissionConfig& config);

/// Registers a policy when a static object is constructed (a plugin linked into a program).
struct JobPolicyRegistrar {
  explicit JobPolicyRegistrar(JobPolicyEntry entry) { register_job_policy(std::move(entry)); }
};

}  // namespace tidesim
