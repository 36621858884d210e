#pragma once
/// The input layer's bridge between ConfigNode and yaml-cpp: private to sim/input (its sources
/// include it; it is not installed), so that yaml-cpp is named by no other header of the tree.
#include <yaml-cpp/yaml.h>

#include "tidesim/sim/input/config_node.hpp"

namespace tidesim {

struct ConfigNode::Impl {
  YAML::Node node;
};

/// A handle on `node` (absent when `node` is undefined: a missing key).
ConfigNode config_node(const YAML::Node& node);
/// The yaml-cpp node behind `node` (an undefined one when absent); shares the document.
YAML::Node yaml_node(const ConfigNode& node);

}  // namespace tidesim
