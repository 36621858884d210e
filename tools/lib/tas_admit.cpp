#include "tidesim/tools/lib/tas_admit.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "tidesim/sim/admission/tas_snapshot.hpp"
#include "tidesim/sim/scenario/kube_snapshot.hpp"

namespace tidesim::app {
namespace {

InputError file_error(const std::string& file, const std::string& message) {
  return InputError(SourceLocation{.file = file, .line = 0, .column = 0}, "", message);
}

const KueueWorkload& the_workload(const KueueSnapshot& objects, const std::string& file) {
  if (objects.workloads.size() != 1) {
    throw file_error(
        file, "expected one Kueue Workload, found " + std::to_string(objects.workloads.size()));
  }
  return objects.workloads.front();
}

// The flavors to try, in order: the one named, else those of the Workload's ClusterQueue (through
// its LocalQueue) that have a topology, else every flavor with a topology (by name).
std::vector<const KueueFlavor*> candidate_flavors(const KueueSnapshot& s, const KueueWorkload& w,
                                                  const AdmitRequest& r) {
  std::vector<const KueueFlavor*> out;
  auto find = [&](const std::string& name) -> const KueueFlavor* {
    auto it = std::find_if(s.flavors.begin(), s.flavors.end(),
                           [&](const KueueFlavor& f) { return f.name == name; });
    return it == s.flavors.end() ? nullptr : &*it;
  };
  if (!r.flavor.empty()) {
    const KueueFlavor* f = find(r.flavor);
    if (!f || !f->topology_name) {
      throw file_error(r.snapshot, "no ResourceFlavor '" + r.flavor + "' with spec.topologyName");
    }
    return {f};
  }
  auto lq = s.local_queues.find(w.namespace_name + "/" + w.queue_name);
  if (lq != s.local_queues.end() && s.cluster_queues.contains(lq->second)) {
    for (const std::string& name : s.cluster_queues.at(lq->second)) {
      if (const KueueFlavor* f = find(name); f && f->topology_name) {
        out.push_back(f);
      }
    }
  } else {
    for (const KueueFlavor& f : s.flavors) {
      if (f.topology_name) {
        out.push_back(&f);
      }
    }
  }
  if (out.empty()) {
    throw file_error(r.snapshot, "no ResourceFlavor with spec.topologyName for the Workload");
  }
  return out;
}

std::vector<tas::PodSetResult> place(const KueueSnapshot& s, const KueueFlavor& f,
                                     const KueueWorkload& w, const tas::TasFeatureGates& gates) {
  auto topo = s.topologies.find(*f.topology_name);
  if (topo == s.topologies.end()) {
    throw InputError(f.where, "spec.topologyName",
                     "Topology '" + *f.topology_name + "' is not in the snapshot");
  }
  tas::TasSnapshot snapshot(*f.topology_name, topo->second, s.nodes, s.pods, f.node_labels,
                            f.tolerations);
  std::vector<tas::PodSetResult> got = snapshot.find_assignments(w.podsets, gates);
  std::string failed;
  for (const tas::PodSetResult& r : got) {
    failed = r.admitted() ? failed : r.name;
  }
  for (std::size_t i = got.size(); i < w.podsets.size(); ++i) {
    got.push_back(tas::PodSetResult{.name = w.podsets[i].name,
                                    .assignment = std::nullopt,
                                    .reason = "not tried: PodSet " + failed + " does not fit"});
  }
  return got;
}

}  // namespace

bool AdmitOutcome::admitted() const {
  return std::all_of(podsets.begin(), podsets.end(),
                     [](const tas::PodSetResult& r) { return r.admitted(); });
}

AdmitOutcome admit(const AdmitRequest& request) {
  const KueueSnapshot snapshot = read_kueue_snapshot(request.snapshot);
  const KueueSnapshot pending = read_kueue_snapshot(request.workload);
  const KueueWorkload& w = the_workload(pending, request.workload);
  AdmitOutcome first;
  for (const KueueFlavor* f : candidate_flavors(snapshot, w, request)) {
    AdmitOutcome out{.workload = w.namespace_name + "/" + w.name,
                     .flavor = f->name,
                     .topology = *f->topology_name,
                     .podsets = place(snapshot, *f, w, request.gates)};
    if (out.admitted()) {
      return out;
    }
    if (first.flavor.empty()) {
      first = std::move(out);  // Kueue tries the flavors in order; report the first refusal
    }
  }
  return first;
}

tas::TasFeatureGates parse_feature_gates(const std::string& spec) {
  tas::TasFeatureGates gates;
  std::size_t start = 0;
  while (start < spec.size()) {
    std::size_t end = spec.find(',', start);
    end = end == std::string::npos ? spec.size() : end;
    const std::string item = spec.substr(start, end - start);
    start = end + 1;
    if (item.empty()) {
      continue;
    }
    const std::size_t eq = item.find('=');
    const std::string name = item.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
    if (value != "true" && value != "false") {
      throw InputError("--feature-gates: " + name + " needs =true or =false");
    }
    if (!tas::set_feature_gate(gates, name, value == "true")) {
      std::string known;
      for (const std::string& g : tas::feature_gate_names()) {
        known += (known.empty() ? "" : ", ") + g;
      }
      throw InputError("--feature-gates: unknown gate '" + name + "' (known: " + known + ")");
    }
  }
  return gates;
}

std::string admit_json(const AdmitOutcome& o) {
  nlohmann::ordered_json podsets = nlohmann::ordered_json::array();
  for (const tas::PodSetResult& r : o.podsets) {
    nlohmann::ordered_json ps;
    ps["name"] = r.name;
    ps["admitted"] = r.admitted();
    ps["levels"] = r.assignment ? r.assignment->levels : std::vector<std::string>{};
    ps["domains"] = nlohmann::ordered_json::array();
    if (r.assignment) {
      for (const tas::DomainAssignment& d : r.assignment->domains) {
        ps["domains"].push_back({{"values", d.values}, {"count", d.count}});
      }
    }
    ps["reason"] = r.reason;
    podsets.push_back(ps);
  }
  nlohmann::ordered_json out;
  out["workload"] = o.workload;
  out["flavor"] = o.flavor;
  out["topology"] = o.topology;
  out["admitted"] = o.admitted();
  out["podsets"] = podsets;
  return out.dump(2) + "\n";
}

std::string admit_table(const AdmitOutcome& o) {
  std::string out = fmt::format("Workload {}: {} (flavor {}, topology {})\n", o.workload,
                                o.admitted() ? "admitted" : "pending", o.flavor, o.topology);
  out += fmt::format("{:<16} {:<9} {}\n", "PODSET", "ADMITTED", "WHERE");
  for (const tas::PodSetResult& r : o.podsets) {
    std::string where = r.reason;
    if (r.admitted() && r.assignment) {
      where.clear();
      for (const tas::DomainAssignment& d : r.assignment->domains) {
        std::string values;
        for (const std::string& v : d.values) {
          values += (values.empty() ? "" : "/") + v;
        }
        where += fmt::format("{}{}={}", where.empty() ? "" : " ", values, d.count);
      }
      std::string levels;
      for (const std::string& l : r.assignment->levels) {
        levels += (levels.empty() ? "" : ", ") + l;
      }
      where += " (" + levels + ")";
    }
    out += fmt::format("{:<16} {:<9} {}\n", r.name.empty() ? "-" : r.name,
                       r.admitted() ? "yes" : "no", where);
  }
  return out;
}

}  // namespace tidesim::app
