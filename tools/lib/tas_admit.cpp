#include "tidesim/tools/lib/tas_admit.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "tidesim/sim/admission/tas_flavor_match.hpp"
#include "tidesim/sim/admission/tas_snapshot.hpp"
#include "tidesim/sim/scenario/kube_snapshot.hpp"
#include "tidesim/sim/scenario/kueue_config.hpp"
#include "tidesim/tools/lib/tas_admit_queue.hpp"

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

// What Kueue's checkPodSetAndFlavorMatchForTAS says of flavor `f` for each PodSet of `w`
// (sim/admission/tas_flavor_match.hpp): the refusal, each refused PodSet with Kueue's message,
// when it refuses one; nullopt when it matches them all. A flavor naming a Topology the snapshot
// lacks is left to place(), which reports it.
std::optional<AdmitOutcome> refusal(const KueueSnapshot& s, const KueueFlavor& f,
                                    const KueueWorkload& w, bool tas_only) {
  const auto topo = f.topology_name ? s.topologies.find(*f.topology_name) : s.topologies.end();
  if (f.topology_name && topo == s.topologies.end()) {
    return std::nullopt;
  }
  const std::vector<std::string>* levels = f.topology_name ? &topo->second : nullptr;
  AdmitOutcome out{.workload = w.namespace_name + "/" + w.name,
                   .flavor = f.name,
                   .topology = f.topology_name.value_or(""),
                   .podsets = {}};
  bool refused = false;
  for (const tas::TasPodSet& ps : w.podsets) {
    const tas::TopologyRequest* request = ps.topology ? &*ps.topology : nullptr;
    std::string why = tas::flavor_mismatch(f.name, levels, request, tas_only);
    refused = refused || !why.empty();
    out.podsets.push_back(
        tas::PodSetResult{.name = ps.name, .assignment = std::nullopt, .reason = std::move(why)});
  }
  return refused ? std::optional<AdmitOutcome>(std::move(out)) : std::nullopt;
}

// The flavors to try, in order, and the first refusal: the one named, else the flavors of the
// Workload's ClusterQueue (through its LocalQueue), else every flavor with a topology (by name);
// of those, the flavors with a topology that match every PodSet (a matching flavor without one
// holds no topology to place).
struct Candidates {
  std::vector<const KueueFlavor*> flavors;
  std::optional<AdmitOutcome> refused;
};

Candidates candidate_flavors(const KueueSnapshot& s, const KueueWorkload& w,
                             const AdmitRequest& r) {
  auto find = [&](const std::string& name) -> const KueueFlavor* {
    auto it = std::find_if(s.flavors.begin(), s.flavors.end(),
                           [&](const KueueFlavor& f) { return f.name == name; });
    return it == s.flavors.end() ? nullptr : &*it;
  };
  std::vector<const KueueFlavor*> tried;
  if (!r.flavor.empty()) {
    const KueueFlavor* f = find(r.flavor);
    if (!f || !f->topology_name) {
      throw file_error(r.snapshot, "no ResourceFlavor '" + r.flavor + "' with spec.topologyName");
    }
    tried = {f};
  } else if (auto lq = s.local_queues.find(w.namespace_name + "/" + w.queue_name);
             lq != s.local_queues.end() && s.cluster_queues.contains(lq->second)) {
    for (const std::string& name : s.cluster_queues.at(lq->second)) {
      if (const KueueFlavor* f = find(name)) {
        tried.push_back(f);
      }
    }
  } else {
    for (const KueueFlavor& f : s.flavors) {
      if (f.topology_name) {
        tried.push_back(&f);
      }
    }
  }
  const bool tas_only = std::all_of(tried.begin(), tried.end(),
                                    [](const KueueFlavor* f) { return f->topology_name; });
  Candidates out;
  for (const KueueFlavor* f : tried) {
    if (std::optional<AdmitOutcome> no = refusal(s, *f, w, tas_only)) {
      out.refused = out.refused ? std::move(out.refused) : std::move(no);
    } else if (f->topology_name) {
      out.flavors.push_back(f);
    }
  }
  if (out.flavors.empty() && !out.refused) {
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

AdmitOutcome admit(const AdmitRequest& request) {
  const KueueSnapshot snapshot = read_kueue_snapshot(request.snapshot);
  const KueueSnapshot pending = read_kueue_snapshot(request.workload);
  const KueueWorkload& w = the_workload(pending, request.workload);
  Candidates candidates = candidate_flavors(snapshot, w, request);
  if (candidates.flavors.empty()) {
    return std::move(*candidates.refused);  // Kueue's flavor assigner refuses every flavor
  }
  if (request.flavor.empty()) {
    const KueueConfiguration config = request.kueue_config.empty()
                                          ? KueueConfiguration{}
                                          : read_kueue_configuration(request.kueue_config);
    if (std::optional<AdmitOutcome> q =
            admit_in_queue(snapshot, w, request, config.transformations)) {
      return std::move(*q);
    }
  }
  AdmitOutcome first;
  for (const KueueFlavor* f : candidates.flavors) {
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
    if (podsets.size() < o.quota.size()) {
      const PodSetQuota& q = o.quota[podsets.size()];
      ps["count"] = q.count;
      ps["flavors"] = q.flavors;
      ps["delayed_topology_request"] = q.delayed;
    }
    podsets.push_back(ps);
  }
  nlohmann::ordered_json out;
  out["workload"] = o.workload;
  out["flavor"] = o.flavor;
  out["topology"] = o.topology;
  out["admitted"] = o.admitted();
  out["podsets"] = podsets;
  if (!o.quota.empty()) {
    out["quota_reserved"] = o.quota_reserved;
    out["waiting_for_checks"] = o.waiting_for;
  }
  return out.dump(2) + "\n";
}

std::string admit_table(const AdmitOutcome& o) {
  std::string state = o.admitted() ? "admitted" : "pending";
  if (!o.admitted() && o.quota_reserved) {
    std::string checks;
    for (const std::string& c : o.waiting_for) {
      checks += (checks.empty() ? "" : ", ") + c;
    }
    state = "quota reserved, waiting for " +
            (checks.empty() ? std::string("its delayed topology") : "admission checks " + checks);
  }
  std::string out = o.flavor.empty()
                        ? fmt::format("Workload {}: {} (no flavor)\n", o.workload, state)
                        : fmt::format("Workload {}: {} (flavor {}, topology {})\n", o.workload,
                                      state, o.flavor, o.topology);
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
    const std::size_t i = static_cast<std::size_t>(&r - o.podsets.data());
    if (i < o.quota.size() && o.quota[i].delayed == "Pending") {
      where = "topology delayed until its ProvisioningRequest is Ready";
    } else if (i < o.quota.size() && r.admitted()) {
      where += fmt::format(" [{} pods]", o.quota[i].count);
    }
    out += fmt::format("{:<16} {:<9} {}\n", r.name.empty() ? "-" : r.name,
                       r.admitted() ? "yes" : "no", where);
  }
  return out;
}

}  // namespace tidesim::app
