#include "tidesim/sim/admission/tas_annotations.hpp"

#include <utility>
#include <vector>

#include "tidesim/sim/input/error.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim::tas {
namespace {

const std::string kUnconstrained = std::string(kAnnotationPrefix) + "podset-unconstrained-topology";
const std::string kSliceSize = std::string(kAnnotationPrefix) + "podset-slice-size";
const std::string kConstraints =
    std::string(kAnnotationPrefix) + "podset-slice-required-topology-constraints";
const std::string kConstraintsError =
    "failed to parse multi-layer topology constraints annotation: ";

// strconv.ParseBool, as Kueue reads podset-unconstrained-topology.
std::optional<bool> parse_bool(const std::string& v) {
  if (v == "1" || v == "t" || v == "T" || v == "true" || v == "TRUE" || v == "True") {
    return true;
  }
  if (v == "0" || v == "f" || v == "F" || v == "false" || v == "FALSE" || v == "False") {
    return false;
  }
  return std::nullopt;
}

std::string positive_int(const std::string& s, std::int32_t& out) {
  return int32_at_least(s, 1, out);
}

// podsetSliceRequiredTopologyConstraints as the annotation writes it: a JSON list of
// {"topology": LEVEL, "size": N}, outermost first.
std::vector<SliceLayer> parse_layers(const std::string& text) {
  auto bad = [](const std::string& why) {
    return TasAnnotationError(kConstraints, kConstraintsError + why);
  };
  ConfigNode list;
  try {
    list = load_yaml_string(text, kConstraints);
  } catch (const InputError& e) {
    throw bad(e.message());
  }
  if (!list.is_sequence()) {
    throw bad("expected a list of {\"topology\", \"size\"}");
  }
  std::vector<SliceLayer> out;
  for (const ConfigNode& item : list.items()) {
    const ConfigNode topology = item["topology"];
    const ConfigNode size = item["size"];
    if (!topology || !size || !topology.is_scalar() || !size.is_scalar()) {
      throw bad("each layer needs topology and size");
    }
    SliceLayer layer{.topology = topology.scalar(), .size = 0};
    if (const std::string why = positive_int(size.scalar(), layer.size); !why.empty()) {
      throw bad("size: " + why);
    }
    out.push_back(std::move(layer));
  }
  if (out.empty() || out.size() > 3) {
    throw bad("topology constraints must contain between 1 and 3 entries");
  }
  return out;
}

}  // namespace

std::string int32_at_least(const std::string& s, std::int32_t min, std::int32_t& out) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (s.empty() || used != s.size() || v < min || v > 2147483647LL) {
    return "expected an integer of at least " + std::to_string(min) + ", got '" + s + "'";
  }
  out = static_cast<std::int32_t>(v);
  return "";
}

TasAnnotationError::TasAnnotationError(std::string annotation, std::string message)
    : std::runtime_error(annotation + ": " + message),
      annotation_(std::move(annotation)),
      message_(std::move(message)) {}

std::optional<TopologyRequest> request_from_annotations(
    const std::map<std::string, std::string>& annotations) {
  const auto get = [&](const char* name) -> std::optional<std::string> {
    const auto it = annotations.find(std::string(kAnnotationPrefix) + name);
    return it == annotations.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  const auto required = get("podset-required-topology");
  const auto preferred = get("podset-preferred-topology");
  const auto unconstrained = get("podset-unconstrained-topology");
  const auto slice_topology = get("podset-slice-required-topology");
  const auto slice_size = get("podset-slice-size");
  const auto constraints = get("podset-slice-required-topology-constraints");
  TopologyRequest r;
  if (required) {
    r.required = required;
  } else if (preferred) {
    r.preferred = preferred;
  } else if (unconstrained) {
    const std::optional<bool> yes = parse_bool(*unconstrained);
    if (!yes) {
      throw TasAnnotationError(kUnconstrained,
                               "expected true or false, got '" + *unconstrained + "'");
    }
    r.unconstrained = *yes;
  } else if (!(slice_topology && slice_size) && !constraints) {
    return std::nullopt;
  }
  if (constraints) {
    r.slice_layers = parse_layers(*constraints);
  } else if (slice_topology && slice_size) {
    r.slice_topology = slice_topology;
    std::int32_t size = 0;
    if (const std::string why = positive_int(*slice_size, size); !why.empty()) {
      throw TasAnnotationError(kSliceSize, why);
    }
    r.slice_size = size;
  }
  if (const auto group = get("podset-group-name"); group && (required || preferred)) {
    r.group = group;
  }
  return r;
}

}  // namespace tidesim::tas
