#include "tidesim/sim/scenario/kueue_config.hpp"

#include <set>

#include "tidesim/sim/input/units.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"
#include "tidesim/sim/scenario/kube_snapshot.hpp"

namespace tidesim {
namespace {

using kueue_read::fail;
using kueue_read::text;

// A quantity per unit of input, in thousandths; a leading '-' (an allowance) is kept.
std::int64_t factor(const ConfigNode& n, const std::string& file, const std::string& field) {
  std::string v = text(n, file, field);
  const bool negative = !v.empty() && v.front() == '-';
  try {
    const std::int64_t milli = parse_quantity(negative ? v.substr(1) : v, 3);
    return negative ? -milli : milli;
  } catch (const QuantityError& e) {
    fail(n, file, field, e.what());
  }
}

tas::ResourceTransformation read_transformation(const ConfigNode& n, const std::string& file,
                                                const std::string& path) {
  if (!n.is_map()) {
    fail(n, file, path, "expected a mapping with input, strategy, multiplyBy and outputs");
  }
  tas::ResourceTransformation t;
  if (!n["input"]) {
    fail(n, file, path + ".input", "missing required field");
  }
  t.input = text(n["input"], file, path + ".input");
  if (n["strategy"]) {
    const std::string s = text(n["strategy"], file, path + ".strategy");
    if (s != "Retain" && s != "Replace") {
      fail(n["strategy"], file, path + ".strategy", "expected Retain or Replace, got '" + s + "'");
    }
    t.replace = s == "Replace";
  }
  if (n["multiplyBy"]) {
    t.multiply_by = text(n["multiplyBy"], file, path + ".multiplyBy");
  }
  if (const ConfigNode out = n["outputs"]; out && !out.is_null()) {
    if (!out.is_map()) {
      fail(out, file, path + ".outputs", "expected a mapping of resource names to quantities");
    }
    for (const auto& [k, v] : out.entries()) {
      const std::string name = text(k, file, path + ".outputs");
      t.outputs_milli[name] = factor(v, file, path + ".outputs." + name);
    }
  }
  return t;
}

}  // namespace

KueueConfiguration parse_kueue_configuration(const ConfigNode& node, const std::string& file) {
  if (!node.is_map()) {
    fail(node, file, "kind", "expected a Kueue Configuration object");
  }
  const std::string kind = node["kind"] ? text(node["kind"], file, "kind") : "";
  if (kind != "Configuration") {
    fail(node["kind"] ? node["kind"] : node, file, "kind",
         "expected kind: Configuration (config.kueue.x-k8s.io), got '" + kind + "'");
  }
  KueueConfiguration out;
  const ConfigNode res = node["resources"];
  if (!res || res.is_null()) {
    return out;
  }
  const ConfigNode ts = res["transformations"];
  if (!ts || ts.is_null()) {
    return out;
  }
  const auto items = sequence_of(ts, file, "resources.transformations");
  std::set<std::string> inputs;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string p = "resources.transformations[" + std::to_string(i) + "]";
    out.transformations.push_back(read_transformation(items[i], file, p));
    if (!inputs.insert(out.transformations.back().input).second) {
      fail(items[i]["input"], file, p + ".input",
           "input '" + out.transformations.back().input + "' has another transformation");
    }
  }
  return out;
}

KueueConfiguration read_kueue_configuration(const std::string& file) {
  return yaml_guard(file, [&] { return parse_kueue_configuration(load_yaml_file(file), file); });
}

}  // namespace tidesim
