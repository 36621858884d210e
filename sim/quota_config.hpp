#pragma once
/// Reading an `admission:` mapping's `queues:` (docs/scenarios.md, docs/job-scheduling.md
/// "Queues and quotas"; the model is sim/quota.hpp).
#include <string>

#include <yaml-cpp/yaml.h>

#include "sim/quota.hpp"

namespace tidesim {

/// The queues under `path` (e.g. "policies[1].admission.queues") of `file`. Throws InputError
/// naming file, line, column and field on a bad value.
QuotaConfig parse_queues(const YAML::Node& node, const std::string& file, const std::string& path);

}  // namespace tidesim
