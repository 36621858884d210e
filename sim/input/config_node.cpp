#include "tidesim/sim/input/config_node.hpp"

// ConfigNode's members are defined in yaml_node.cpp, beside the yaml-cpp node they read.

namespace tidesim {

SourceLocation location_of(const ConfigNode& node, const std::string& file) {
  return SourceLocation{file, node.line(), node.column()};
}

}  // namespace tidesim
