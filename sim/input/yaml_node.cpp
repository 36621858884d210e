// ConfigNode over yaml-cpp: every member of ConfigNode reads or writes the yaml-cpp node of its
// Impl (yaml_node.hpp), so they are defined here, beside the bridge, and config_node.hpp names no
// yaml-cpp type.
#include "tidesim/sim/input/yaml_node.hpp"

#include <stdexcept>

namespace tidesim {
namespace {

const std::string& empty_string() {
  static const std::string empty;
  return empty;
}

}  // namespace

ConfigNode config_node(const YAML::Node& node) {
  if (!node.IsDefined()) {
    return ConfigNode();
  }
  return ConfigNode(std::make_shared<ConfigNode::Impl>(ConfigNode::Impl{node}));
}

YAML::Node yaml_node(const ConfigNode& node) {
  return node.impl() ? node.impl()->node : YAML::Node(YAML::NodeType::Undefined);
}

ConfigNode::ConfigNode() = default;

ConfigNode::ConfigNode(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

ConfigNode ConfigNode::empty_map() {
  return config_node(YAML::Node(YAML::NodeType::Map));
}

bool ConfigNode::defined() const {
  return impl_ != nullptr;
}

bool ConfigNode::is_null() const {
  return impl_ && impl_->node.IsNull();
}

bool ConfigNode::is_scalar() const {
  return impl_ && impl_->node.IsScalar();
}

bool ConfigNode::is_sequence() const {
  return impl_ && impl_->node.IsSequence();
}

bool ConfigNode::is_map() const {
  return impl_ && impl_->node.IsMap();
}

const std::string& ConfigNode::scalar() const {
  return is_scalar() ? impl_->node.Scalar() : empty_string();
}

std::size_t ConfigNode::size() const {
  return (is_sequence() || is_map()) ? impl_->node.size() : 0;
}

ConfigNode ConfigNode::operator[](std::size_t index) const {
  if (!is_sequence() || index >= impl_->node.size()) {
    return ConfigNode();
  }
  const YAML::Node& self = impl_->node;  // const: a lookup never adds
  return config_node(self[index]);
}

ConfigNode ConfigNode::operator[](std::string_view key) const {
  if (!is_map()) {
    return ConfigNode();
  }
  const YAML::Node& self = impl_->node;  // const: a lookup never adds the key
  return config_node(self[std::string(key)]);
}

std::vector<ConfigNode> ConfigNode::items() const {
  std::vector<ConfigNode> out;
  if (is_sequence()) {
    out.reserve(impl_->node.size());
    for (const auto& item : impl_->node) {
      out.push_back(config_node(item));
    }
  }
  return out;
}

std::vector<std::pair<ConfigNode, ConfigNode>> ConfigNode::entries() const {
  std::vector<std::pair<ConfigNode, ConfigNode>> out;
  if (is_map()) {
    out.reserve(impl_->node.size());
    for (const auto& kv : impl_->node) {
      out.emplace_back(config_node(kv.first), config_node(kv.second));
    }
  }
  return out;
}

int ConfigNode::line() const {
  return (impl_ && !impl_->node.Mark().is_null()) ? impl_->node.Mark().line + 1 : 0;
}

int ConfigNode::column() const {
  return (impl_ && !impl_->node.Mark().is_null()) ? impl_->node.Mark().column + 1 : 0;
}

void ConfigNode::set(std::string_view key, const ConfigNode& value) {
  if (!is_map() && !is_null()) {
    throw std::logic_error("ConfigNode::set(key): not a mapping");
  }
  impl_->node[std::string(key)] = value.defined() ? yaml_node(value) : YAML::Node();
}

void ConfigNode::set(std::size_t index, const ConfigNode& value) {
  if (index >= size() || !is_sequence()) {
    throw std::logic_error("ConfigNode::set(index): not an item of a list");
  }
  impl_->node[index] = value.defined() ? yaml_node(value) : YAML::Node();
}

ConfigNode ConfigNode::clone() const {
  return impl_ ? config_node(YAML::Clone(impl_->node)) : ConfigNode();
}

}  // namespace tidesim
