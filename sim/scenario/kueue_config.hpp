#pragma once
/// Reads the parts of Kueue's Configuration (the manager's config file, kind Configuration,
/// config.kueue.x-k8s.io/v1beta1 or v1beta2; kubernetes-sigs/kueue @ff69552
/// apis/config/v1beta2/configuration_types.go) that change quota accounting:
/// `resources.transformations[]` with `input`, `strategy` (Retain, the default, or Replace),
/// `multiplyBy` and `outputs` (resource -> quantity per unit of input). Its other fields are
/// ignored. A bad value is an InputError naming file, line, column and field. `tidesim admit
/// --kueue-config FILE` takes it (docs/topology-aware.md, "Resource transformations").
#include <string>
#include <vector>

#include "tidesim/sim/admission/kueue_transform.hpp"
#include "tidesim/sim/input/config_node.hpp"

namespace tidesim {

struct KueueConfiguration {
  std::vector<tas::ResourceTransformation> transformations;
};

/// The Configuration of `file` (one YAML document).
KueueConfiguration read_kueue_configuration(const std::string& file);
/// The Configuration at `node` of `file` (for tests and the fuzz target).
KueueConfiguration parse_kueue_configuration(const ConfigNode& node, const std::string& file);

}  // namespace tidesim
