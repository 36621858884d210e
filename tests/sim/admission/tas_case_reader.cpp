#include "tests/sim/admission/tas_case_reader.hpp"

#include <cctype>
#include <stdexcept>

#include "tidesim/sim/input/units.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim::tas {
namespace {

std::string text(const ConfigNode& n) {
  return n.scalar();
}

std::vector<std::string> strings(const ConfigNode& n) {
  std::vector<std::string> out;
  for (const ConfigNode& item : n.items()) {
    out.push_back(item.scalar());
  }
  return out;
}

std::map<std::string, std::string> string_pairs(const ConfigNode& n) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : n.entries()) {
    out[k.scalar()] = v.scalar();
  }
  return out;
}

// Quantities as Kueue counts them: CPU in millicores, everything else in units.
ResourceMap quantities(const ConfigNode& n) {
  ResourceMap out;
  for (const auto& [k, v] : n.entries()) {
    out[k.scalar()] = parse_quantity(v.scalar(), k.scalar() == "cpu" ? 3 : 0);
  }
  return out;
}

// Requests already in Kueue's units (the Go table's map[ResourceName]int64).
ResourceMap integers(const ConfigNode& n) {
  ResourceMap out;
  for (const auto& [k, v] : n.entries()) {
    out[k.scalar()] = std::stoll(v.scalar());
  }
  return out;
}

TopologyAssignment assignment(const ConfigNode& n) {
  TopologyAssignment a;
  a.levels = strings(n["levels"]);
  for (const ConfigNode& d : n["domains"].items()) {
    a.domains.push_back(
        DomainAssignment{.values = strings(d["values"]), .count = std::stoi(text(d["count"]))});
  }
  return a;
}

TasNode read_node(const ConfigNode& n) {
  TasNode node;
  node.name = text(n["name"]);
  node.labels = string_pairs(n["labels"]);
  node.allocatable = quantities(n["allocatable"]);
  node.ready = n["ready"] && text(n["ready"]) == "true";
  node.unschedulable = n["unschedulable"] && text(n["unschedulable"]) == "true";
  for (const ConfigNode& t : n["taints"].items()) {
    node.taints.push_back(
        Taint{.key = text(t["key"]), .value = text(t["value"]), .effect = text(t["effect"])});
  }
  return node;
}

std::vector<SelectorRequirement> one_requirement(const ConfigNode& t) {
  return {SelectorRequirement{
      .key = text(t["key"]), .op = text(t["operator"]), .values = strings(t["values"])}};
}

TopologyRequest read_request(const ConfigNode& n) {
  TopologyRequest r;
  if (n["required"]) {
    r.required = text(n["required"]);
  }
  if (n["preferred"]) {
    r.preferred = text(n["preferred"]);
  }
  r.unconstrained = n["unconstrained"] && text(n["unconstrained"]) == "true";
  if (n["slice_topology"]) {
    r.slice_topology = text(n["slice_topology"]);
  }
  if (n["slice_size"]) {
    r.slice_size = std::stoi(text(n["slice_size"]));
  }
  for (const ConfigNode& layer : n["slice_constraints"].items()) {
    r.slice_layers.push_back(
        SliceLayer{.topology = text(layer["topology"]), .size = std::stoi(text(layer["size"]))});
  }
  return r;
}

std::vector<Toleration> tolerations(const ConfigNode& n) {
  std::vector<Toleration> out;
  for (const ConfigNode& t : n.items()) {
    Toleration tol{.key = text(t["key"]), .value = text(t["value"]), .effect = text(t["effect"])};
    tol.op = t["operator"] ? text(t["operator"]) : "Equal";
    out.push_back(tol);
  }
  return out;
}

void read_podset(const ConfigNode& n, std::vector<TasPodSet>& podsets,
                 std::vector<KueueCase::Want>& wants) {
  TasPodSet ps;
  ps.name = text(n["name"]);
  ps.count = std::stoi(text(n["count"]));
  ps.requests = integers(n["requests"]);
  if (n["topology_request"]) {
    ps.topology = read_request(n["topology_request"]);
  }
  if (n["group"]) {
    if (!ps.topology) {
      ps.topology = TopologyRequest{};
    }
    ps.topology->group = text(n["group"]);
  }
  ps.tolerations = tolerations(n["tolerations"]);
  ps.node_selector = string_pairs(n["node_selector"]);
  for (const ConfigNode& t : n["node_affinity"]["required"].items()) {
    ps.required_affinity.push_back(
        NodeSelectorTerm{.match_expressions = one_requirement(t), .match_fields = {}});
  }
  for (const ConfigNode& t : n["node_affinity"]["preferred"].items()) {
    ps.preferred_affinity.push_back(PreferredSchedulingTerm{
        .weight = std::stoi(text(t["weight"])),
        .preference =
            NodeSelectorTerm{.match_expressions = one_requirement(t), .match_fields = {}}});
  }
  if (n["previous_assignment"]) {
    ps.previous_assignment = assignment(n["previous_assignment"]);
  }
  KueueCase::Want want{
      .name = ps.name, .assignment = std::nullopt, .reason = "", .message = "", .pending = false};
  if (n["want"]) {
    want.assignment = assignment(n["want"]);
  }
  if (n["want_reason"]) {
    want.reason = text(n["want_reason"]);
  }
  if (n["want_message"]) {
    want.message = text(n["want_message"]);
  }
  want.pending = n["want_pending"] && text(n["want_pending"]) == "true";
  podsets.push_back(std::move(ps));
  wants.push_back(std::move(want));
}

KueueCase read_case(const ConfigNode& doc) {
  KueueCase c;
  c.name = text(doc["name"]);
  if (doc["not_converted"]) {
    c.not_converted = text(doc["not_converted"]);
    return c;
  }
  if (doc["deviation"]) {
    c.deviation = text(doc["deviation"]);
  }
  c.levels = strings(doc["levels"]);
  c.flavor_node_labels = string_pairs(doc["node_labels"]);
  if (doc["flavor"]) {
    c.flavor = text(doc["flavor"]);
  }
  if (doc["topology"]) {
    c.topology = text(doc["topology"]);
  }
  c.flavor_tolerations = tolerations(doc["flavor_tolerations"]);
  for (const ConfigNode& n : doc["nodes"].items()) {
    c.nodes.push_back(read_node(n));
  }
  for (const ConfigNode& p : doc["pods"].items()) {
    TasPod pod{.name = text(p["name"]),
               .node_name = text(p["node"]),
               .phase = "Running",
               .requests = quantities(p["requests"])};
    if (p["phase"]) {
      pod.phase = text(p["phase"]);
    }
    c.pods.push_back(pod);
  }
  for (const ConfigNode& u : doc["tas_usage"].items()) {
    TopologyAssignment where;
    where.domains.push_back(
        DomainAssignment{.values = strings(u["values"]), .count = std::stoi(text(u["count"]))});
    c.tas_usage.push_back(KueueCase::Usage{.where = where, .requests = integers(u["requests"])});
  }
  if (const ConfigNode r = doc["replacement"]) {
    NodeReplacement rep;
    rep.unhealthy_node = text(r["unhealthy_node"]);
    rep.owned_by_single_pod = text(r["owned_by_single_pod"]) == "true";
    for (const ConfigNode& a : r["assignments"].items()) {
      TopologyAssignment ta;
      ta.levels = strings(a["levels"]);
      for (const ConfigNode& d : a["domains"].items()) {
        ta.domains.push_back(
            DomainAssignment{.values = strings(d["values"]), .count = std::stoi(text(d["count"]))});
      }
      rep.assignments[text(a["podset"])] = ta;
    }
    c.replacement = rep;
  }
  for (const auto& [gate, value] : doc["feature_gates"].entries()) {
    if (!set_feature_gate(c.gates, gate.scalar(), value.scalar() == "true")) {
      throw std::runtime_error("unknown feature gate " + gate.scalar() + " in " + c.name);
    }
  }
  for (const ConfigNode& ps : doc["podsets"].items()) {
    read_podset(ps, c.podsets, c.want);
  }
  for (const ConfigNode& ps : doc["then_podsets"].items()) {
    read_podset(ps, c.then_podsets, c.then_want);
  }
  return c;
}

}  // namespace

std::vector<KueueCase> read_kueue_cases(const std::string& path) {
  std::vector<KueueCase> out;
  for (const ConfigNode& doc : load_all_yaml_file(path)) {
    out.push_back(read_case(doc));
  }
  return out;
}

std::string gtest_name(std::size_t index, const std::string& name) {
  std::string out = std::to_string(index) + "_";
  for (char ch : name) {
    out += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  }
  return out;
}

}  // namespace tidesim::tas
