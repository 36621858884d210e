// Readers of Volcano's HyperNode objects (volcano-sh/apis pkg/apis/topology/v1alpha1
// hypernode_types.go; the CRD's validation: tier >= 0, at least one member, exactly one of
// exactMatch, regexMatch, labelMatch, labelMatch only for Node members) and the label
// discoverer's construction (volcano-sh/volcano pkg/controllers/hypernode/discovery/label).
#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include "tidesim/sim/admission/volcano_hypernode.hpp"
#include "tidesim/sim/api/pod_yaml.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim::volcano {
namespace {

constexpr const char* kApiVersion = "topology.volcano.sh/v1alpha1";

HyperNodeMember read_member(const ConfigNode& node, const std::string& file,
                            const std::string& path) {
  Fields f(node, file, path);
  HyperNodeMember m;
  m.where = location_of(node, file);
  m.path = path;
  m.type = f.choice("type", std::nullopt, {"Node", "HyperNode"}) == "Node" ? MemberType::kNode
                                                                           : MemberType::kHyperNode;
  const ConfigNode sel_node = f.require("selector");
  Fields s(sel_node, file, f.path_of("selector"));
  const int given =
      (s.has("exactMatch") ? 1 : 0) + (s.has("regexMatch") ? 1 : 0) + (s.has("labelMatch") ? 1 : 0);
  if (given != 1) {
    throw s.error(sel_node, "",
                  given == 0
                      ? "Either ExactMatch or RegexMatch or LabelMatch must be specified"
                      : "Only one of ExactMatch, RegexMatch, or LabelMatch can be specified");
  }
  if (s.has("exactMatch")) {
    Fields e(s.get("exactMatch"), file, s.path_of("exactMatch"));
    m.kind = SelectorKind::kExact;
    m.value = e.string("name");
    if (m.value.empty()) {
      throw e.error(e.get("name"), "name", "must not be empty");
    }
    e.finish();
  } else if (s.has("regexMatch")) {
    Fields r(s.get("regexMatch"), file, s.path_of("regexMatch"));
    m.kind = SelectorKind::kRegex;
    m.value = r.string("pattern");
    try {
      (void)std::regex(m.value, std::regex::ECMAScript);
    } catch (const std::regex_error&) {
      throw r.error(r.get("pattern"), "pattern", "'" + m.value + "' is not a regular expression");
    }
    r.finish();
  } else {
    m.kind = SelectorKind::kLabel;
    m.labels = read_label_selector(s.get("labelMatch"), file, s.path_of("labelMatch"));
    if (m.labels.match_labels.empty() && m.labels.match_expressions.empty()) {
      throw s.error(s.get("labelMatch"), "labelMatch",
                    "selects nothing (no labels, no expressions)");
    }
  }
  if (m.type == MemberType::kHyperNode && m.kind != SelectorKind::kExact) {
    throw f.error(sel_node, "selector", "a HyperNode member is selected by exactMatch only");
  }
  s.finish();
  f.finish();
  return m;
}

HyperNodeSpec read_spec(Fields& top, const ConfigNode& node, const std::string& file,
                        const std::string& path) {
  HyperNodeSpec h;
  h.where = location_of(node, file);
  h.path = path;
  {
    const ConfigNode meta = top.require("metadata");
    Fields m(meta, file, top.path_of("metadata"));
    h.name = m.string("name");
    if (h.name.empty()) {
      throw m.error(m.get("name"), "name", "must not be empty");
    }
    // Other metadata (labels, uid, ...) as kubectl prints it is not read.
  }
  Fields spec(top.require("spec"), file, top.path_of("spec"));
  h.tier = static_cast<int>(spec.integer("tier", std::nullopt, 0, 1'000));
  h.tier_name = spec.string("tierName", "");
  const ConfigNode members = spec.require("members");
  const auto items = sequence_of(members, file, spec.path_of("members"));
  if (items.empty()) {
    throw spec.error(members, "members", "needs at least one member");
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    h.members.push_back(
        read_member(items[i], file, spec.path_of("members") + "[" + std::to_string(i) + "]"));
  }
  spec.finish();
  return h;
}

}  // namespace

HyperNodeSpec read_hypernode(const ConfigNode& node, const std::string& file,
                             const std::string& path) {
  Fields top(node, file, path);
  const std::string api = top.string("apiVersion");
  if (api != kApiVersion) {
    throw top.error(top.get("apiVersion"), "apiVersion",
                    "expected " + std::string(kApiVersion) + ", not '" + api + "'");
  }
  const std::string kind = top.string("kind");
  if (kind != "HyperNode") {
    throw top.error(top.get("kind"), "kind", "expected HyperNode, not '" + kind + "'");
  }
  HyperNodeSpec h = read_spec(top, node, file, path);
  (void)top.get("status");  // as kubectl prints it; not read
  top.finish();
  return h;
}

std::vector<HyperNodeSpec> read_hypernodes(const ConfigNode& node, const std::string& file,
                                           const std::string& path) {
  std::vector<HyperNodeSpec> out;
  const auto add_all = [&](const ConfigNode& list, const std::string& at) {
    const auto items = sequence_of(list, file, at);
    for (std::size_t i = 0; i < items.size(); ++i) {
      out.push_back(read_hypernode(items[i], file, at + "[" + std::to_string(i) + "]"));
    }
  };
  if (node.is_sequence()) {
    add_all(node, path);
  } else if (node.is_map() && node["items"] && node["kind"] && node["kind"].is_scalar() &&
             (node["kind"].scalar() == "List" || node["kind"].scalar() == "HyperNodeList")) {
    add_all(node["items"], path.empty() ? "items" : path + ".items");
  } else {
    out.push_back(read_hypernode(node, file, path));
  }
  return out;
}

std::vector<HyperNodeSpec> read_hypernode_file(const std::string& path) {
  return yaml_guard(path, [&] {
    std::vector<HyperNodeSpec> out;
    const std::vector<ConfigNode> docs = load_all_yaml_file(path);
    for (const ConfigNode& d : docs) {
      if (!d || d.is_null()) {
        continue;
      }
      for (HyperNodeSpec& h : read_hypernodes(d, path, "")) {
        out.push_back(std::move(h));
      }
    }
    if (out.empty()) {
      throw empty_file_error(path);
    }
    return out;
  });
}

HyperNodeSource read_hypernode_source(const ConfigNode& node, const std::string& file,
                                      const std::string& path, const std::string& folder) {
  HyperNodeSource src;
  src.where = location_of(node, file);
  src.path = path;
  if (node.is_sequence()) {
    src.listed = read_hypernodes(node, file, path);
    if (src.listed.empty()) {
      throw InputError(src.where, path, "needs at least one HyperNode");
    }
    return src;
  }
  Fields f(node, file, path);
  if (f.has("from_labels") == f.has("file")) {
    throw f.error(node, "", "expected a list of HyperNode objects, or one of from_labels, file");
  }
  if (f.has("from_labels")) {
    const auto keys = sequence_of(f.get("from_labels"), file, f.path_of("from_labels"));
    std::set<std::string> seen;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const std::string at = f.path_of("from_labels") + "[" + std::to_string(i) + "]";
      src.label_keys.push_back(scalar_of(keys[i], file, at));
      if (src.label_keys.back().empty() || !seen.insert(src.label_keys.back()).second) {
        throw InputError(location_of(keys[i], file), at, "expected a label key, once");
      }
    }
    if (src.label_keys.empty()) {
      throw f.error(f.get("from_labels"), "from_labels", "needs at least one label key");
    }
  } else {
    const std::filesystem::path p(f.string("file"));
    src.listed =
        read_hypernode_file((p.is_absolute() ? p : std::filesystem::path(folder) / p).string());
  }
  f.finish();
  return src;
}

std::vector<HyperNodeSpec> hypernodes_from_labels(const std::vector<std::string>& keys,
                                                  const std::vector<NodeSpec>& nodes) {
  // (tier, value) -> its spec index, in first-seen order (nodes in their order).
  std::map<std::pair<std::size_t, std::string>, std::size_t> index;
  std::vector<HyperNodeSpec> out;
  for (const NodeSpec& n : nodes) {
    std::string member = n.name;
    MemberType type = MemberType::kNode;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const auto it = n.labels.find(keys[i]);
      if (it == n.labels.end()) {
        break;  // the discoverer stops at the first missing label
      }
      auto [pos, added] = index.try_emplace({i, it->second}, out.size());
      if (added) {
        HyperNodeSpec h;
        h.name = "hypernode-" + keys[i] + "-tier" + std::to_string(i + 1) + "-" + it->second;
        h.tier = static_cast<int>(i + 1);
        h.tier_name = keys[i];
        out.push_back(std::move(h));
      }
      HyperNodeSpec& h = out[pos->second];
      const bool known = std::any_of(h.members.begin(), h.members.end(),
                                     [&](const HyperNodeMember& m) { return m.value == member; });
      if (!known) {
        HyperNodeMember m;
        m.type = type;
        m.kind = SelectorKind::kExact;
        m.value = member;
        h.members.push_back(std::move(m));
      }
      member = h.name;
      type = MemberType::kHyperNode;
    }
  }
  return out;
}

}  // namespace tidesim::volcano
