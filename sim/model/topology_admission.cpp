#include "tidesim/sim/model/topology_admission.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include <fmt/core.h>

#include "tidesim/sim/admission/tas_annotations.hpp"
#include "tidesim/sim/input/error.hpp"

namespace tidesim {
namespace {

// The values of a node's lowest domain under `levels`, as a topologyAssignment names it (the
// hostname alone when the lowest level is the hostname); empty when a level label is missing.
std::vector<std::string> leaf_values(const std::map<std::string, std::string>& labels,
                                     const std::vector<std::string>& levels) {
  std::vector<std::string> values;
  for (const std::string& level : levels) {
    const auto it = labels.find(level);
    if (it == labels.end()) {
      return {};
    }
    values.push_back(it->second);
  }
  if (levels.back() == tas::kHostnameLabel) {
    values = {values.back()};
  }
  return values;
}

// The leaf domain id of a node's labels under `levels` (as tas::TasSnapshot names its leaves);
// "" when a level label is missing.
std::string leaf_id(const std::map<std::string, std::string>& labels,
                    const std::vector<std::string>& levels) {
  const std::vector<std::string> values = leaf_values(labels, levels);
  return values.empty() ? "" : tas::domain_id(values);
}

// "" when every level the request names (required, preferred, each slice layer's) is in
// `levels`, else why not.
std::string unknown_level(const std::optional<tas::TopologyRequest>& r,
                          const std::set<std::string>& levels) {
  if (!r) {
    return "";
  }
  std::vector<std::string> named;
  for (const std::optional<std::string>& level : {r->required, r->preferred, r->slice_topology}) {
    if (level) {
      named.push_back(*level);
    }
  }
  for (const tas::SliceLayer& layer : r->slice_layers) {
    named.push_back(layer.topology);
  }
  for (const std::string& level : named) {
    if (!levels.contains(level)) {
      return "names level '" + level + "', which no topology of `topologies:` has";
    }
  }
  return "";
}

// What Kueue's job webhook refuses in a PodSet's slice annotations beyond their syntax
// (kubernetes-sigs/kueue @ff69552, pkg/controller/jobframework/tas_validation.go:
// validateSliceRequiredTopologyConstraintsAnnotation and the pod set count checks); "" when
// nothing. The layers' order against the Topology is checked when the job is placed.
std::string webhook_error(const std::map<std::string, std::string>& annotations,
                          const tas::TopologyRequest& r, int count,
                          const tas::TasFeatureGates& gates) {
  const std::string constraints =
      std::string(tas::kAnnotationPrefix) + "podset-slice-required-topology-constraints";
  const std::vector<tas::SliceLayer> layers = tas::slice_layers(r);
  if (!layers.empty() && layers.front().size > count) {
    const std::string key = r.slice_layers.empty()
                                ? std::string(tas::kAnnotationPrefix) + "podset-slice-size"
                                : constraints;
    return fmt::format("{}: must not be greater than pod set count {}", key, count);
  }
  if (r.slice_layers.empty()) {
    return "";
  }
  if (!gates.multi_layer_topology) {
    return constraints +
           ": the TASMultiLayerTopology feature gate must be enabled to use this "
           "annotation";
  }
  for (const char* single : {"podset-slice-required-topology", "podset-slice-size"}) {
    if (annotations.contains(std::string(tas::kAnnotationPrefix) + single)) {
      return fmt::format("{}: may not be set when '{}{}' is specified", constraints,
                         tas::kAnnotationPrefix, single);
    }
  }
  for (std::size_t i = 0; i < layers.size(); ++i) {
    for (std::size_t k = 0; k < i; ++k) {
      if (layers[k].topology == layers[i].topology) {
        return fmt::format("{}[{}].topology: Duplicate value: {} (also at index {})", constraints,
                           i, layers[i].topology, k);
      }
    }
    if (i > 0 && layers[i - 1].size % layers[i].size != 0) {
      return fmt::format("{}[{}].size: must evenly divide the parent layer size {}", constraints, i,
                         layers[i - 1].size);
    }
  }
  return "";
}

// Why a job's PodSets do not fit. One PodSet: its reason. Two: Kueue's message for the
// Workload (pkg/scheduler/flavorassigner/flavorassigner.go, Assignment.Message), each PodSet
// that does not fit named, in the Workload's order, joined by "; " (a group's PodSets share
// one reason).
std::string not_fit_reason(const std::vector<tas::PodSetResult>& results, bool named) {
  std::string out;
  for (const tas::PodSetResult& r : results) {
    if (r.admitted()) {
      continue;
    }
    if (!named) {
      return r.reason;
    }
    out += (out.empty() ? "" : "; ") + std::string("couldn't assign flavors to pod set ") + r.name +
           ": " + r.reason;
  }
  return out.empty() ? "no placement" : out;
}

// Kueue's webhook on PodSet groups (kubernetes-sigs/kueue, pkg/controller/jobframework/
// tas_validation.go, ValidatePodSetGroupingTopology): a group is exactly two PodSets, one of
// them of one pod, whose required and preferred levels agree; "" when nothing is refused.
template <class PodSets>
std::string group_error(const PodSets& podsets) {
  std::map<std::string, std::vector<const tas::TopologyRequest*>> groups;
  for (const auto& ps : podsets) {
    if (ps.request && ps.request->group) {
      groups[*ps.request->group].push_back(&*ps.request);
    }
  }
  const std::string key = std::string(tas::kAnnotationPrefix) + "podset-group-name";
  for (const auto& [name, requests] : groups) {
    if (requests.size() != 2) {
      return fmt::format(
          "{}: can only define groups of exactly 2 pod sets, got: {} pod set(s) (a job's "
          "second PodSet is its `leader:`)",
          key, requests.size());
    }
    // The leader's PodSet is of one pod, so the size rule always holds here.
    const tas::TopologyRequest& a = *requests[0];
    const tas::TopologyRequest& b = *requests[1];
    if (a.required != b.required || a.preferred != b.preferred) {
      return fmt::format(
          "{}: must specify '{}podset-required-topology' or '{}podset-preferred-topology' "
          "topology consistent with the other pod set in group '{}'",
          key, tas::kAnnotationPrefix, tas::kAnnotationPrefix, name);
    }
  }
  return "";
}

}  // namespace

TopologyAdmission::TopologyAdmission(RunContext& run, const QuotaConfig& quotas)
    : run_(run), quotas_(quotas) {
  for (const auto& [name, on] : quotas.tas_feature_gates) {
    tas::set_feature_gate(gates_, name, on);
  }
  active_ = std::any_of(quotas.flavors.begin(), quotas.flavors.end(),
                        [](const ResourceFlavor& f) { return !f.topology_name.empty(); });
  if (!active_) {
    return;
  }
  // Every level some topology has: a job's annotation must name one of them.
  std::set<std::string> levels;
  for (const KueueTopology& t : quotas.topologies) {
    levels.insert(t.levels.begin(), t.levels.end());
  }
  jobs_.resize(run_.jobs.size());
  for (std::size_t j = 0; j < run_.jobs.size(); ++j) {
    read_podsets(static_cast<int>(j), levels);
  }
  for (const KueueTopology& t : quotas.topologies) {
    std::map<std::string, std::vector<std::string>> nodes;
    for (const NodeInfo& n : run_.cluster.view().nodes) {
      if (std::string id = leaf_id(n.node.labels, t.levels); !id.empty()) {
        nodes[id].push_back(n.node.name);
      }
    }
    auto& leaves = leaves_.emplace_back();
    for (auto& [id, names] : nodes) {
      leaves[id] = std::make_shared<const std::vector<std::string>>(std::move(names));
    }
  }
}

void TopologyAdmission::read_podsets(int j, const std::set<std::string>& levels) {
  const workloads::JobSpec& spec = *run_.jobs[static_cast<std::size_t>(j)].spec;
  JobTas& jt = jobs_[static_cast<std::size_t>(j)];
  std::vector<std::pair<const PodSpec*, int>> templates{
      {&spec.pod_template, std::max(1, spec.replicas)}};
  if (spec.leader) {
    templates.emplace_back(&*spec.leader, 1);
  }
  std::string error;
  for (const auto& [pod, count] : templates) {
    PodSetTas& ps = jt.podsets.emplace_back();
    ps.name = !spec.leader                ? "main"
              : pod == &spec.pod_template ? workloads::kWorkerPodSet
                                          : workloads::kLeaderPodSet;
    ps.count = count;
    ps.per_pod = tas::resource_map(pod_requests(*pod));
    try {
      ps.request = tas::request_from_annotations(pod->annotations);
    } catch (const tas::TasAnnotationError& e) {
      error = e.what();
    }
    if (error.empty()) {
      error = unknown_level(ps.request, levels);
    }
    if (error.empty() && ps.request) {
      error = webhook_error(pod->annotations, *ps.request, count, gates_);
    }
    if (!error.empty()) {
      break;
    }
  }
  if (error.empty()) {
    error = group_error(jt.podsets);
  }
  if (!error.empty()) {
    throw InputError(quotas_.where, quotas_.path + ".topologies",
                     "job '" + spec.name + "': " + error);
  }
}

void TopologyAdmission::begin() {
  for (auto& [key, kept] : snapshots_) {
    kept.current = false;
  }
  preempted_.clear();
}

int TopologyAdmission::topology_of(const std::vector<int>& flavors, int& flavor) const {
  for (const int f : flavors) {
    if (f < 0) {
      continue;
    }
    const std::string& name = quotas_.flavors[static_cast<std::size_t>(f)].topology_name;
    for (std::size_t t = 0; t < quotas_.topologies.size() && !name.empty(); ++t) {
      if (quotas_.topologies[t].name == name) {
        flavor = f;
        return static_cast<int>(t);
      }
    }
  }
  return -1;
}

tas::TasNode TopologyAdmission::tas_node(int n) const {
  // The node with its free capacity now: allocatable minus what is bound.
  const NodeInfo& info = run_.cluster.view().nodes[static_cast<std::size_t>(n)];
  Resources free = info.node.allocatable;
  free -= info.requested;
  tas::TasNode node{.name = info.node.name,
                    .labels = info.node.labels,
                    .allocatable = tas::resource_map(free),
                    .taints = info.node.taints,
                    .unschedulable = info.node.unschedulable,
                    .ready = true};
  node.allocatable[kGpuResource] = free.gpus;
  node.allocatable["pods"] = kDefaultMaxPods - static_cast<std::int64_t>(info.pods.size());
  return node;
}

void TopologyAdmission::build(Kept& kept, int topology, int flavor,
                              const std::string& left_out) const {
  const std::vector<NodeInfo>& view = run_.cluster.view().nodes;
  std::vector<tas::TasNode> nodes;
  nodes.reserve(view.size());
  kept.changes.resize(view.size());
  kept.unschedulable.resize(view.size());
  for (std::size_t n = 0; n < view.size(); ++n) {
    nodes.push_back(tas_node(static_cast<int>(n)));
    nodes.back().ready = nodes.back().name != left_out;
    kept.changes[n] = run_.cluster.node(static_cast<int>(n)).changes;
    kept.unschedulable[n] = view[n].node.unschedulable ? 1 : 0;
  }
  const KueueTopology& t = quotas_.topologies[static_cast<std::size_t>(topology)];
  const ResourceFlavor& f = quotas_.flavors[static_cast<std::size_t>(flavor)];
  kept.snapshot = std::make_unique<tas::TasSnapshot>(t.name, t.levels, nodes,
                                                     std::vector<tas::TasPod>{}, f.node_labels);
}

bool TopologyAdmission::sync(Kept& kept) const {
  // What the snapshot reads of a node moves only with its bound pods (Cluster::bind and unbind
  // touch the node) or its cordon (set_cordoned); a cordon changes the nodes it holds.
  const std::vector<NodeInfo>& view = run_.cluster.view().nodes;
  for (std::size_t n = 0; n < view.size(); ++n) {
    const std::uint64_t changes = run_.cluster.node(static_cast<int>(n)).changes;
    const char unschedulable = view[n].node.unschedulable ? 1 : 0;
    if (changes == kept.changes[n] && unschedulable == kept.unschedulable[n]) {
      continue;
    }
    if (!kept.snapshot->update_node(tas_node(static_cast<int>(n)))) {
      return false;
    }
    kept.changes[n] = changes;
    kept.unschedulable[n] = unschedulable;
  }
  kept.snapshot->clear_usage();
  return true;
}

tas::TasSnapshot& TopologyAdmission::snapshot(int topology, int flavor) {
  Kept& kept = snapshots_[{topology, flavor}];
  if (kept.current) {
    return *kept.snapshot;
  }
  if (!kept.snapshot || !sync(kept)) {
    build(kept, topology, flavor);
  }
  kept.current = true;
  charge_unbound(*kept.snapshot, topology);
  for (const int job : preempted_) {
    const std::vector<tas::TopologyAssignment> usage = usage_of(job, topology);
    const JobTas& jt = jobs_[static_cast<std::size_t>(job)];
    for (std::size_t i = 0; i < usage.size(); ++i) {
      kept.snapshot->remove_usage(usage[i], jt.podsets[i].per_pod);
    }
  }
  return *kept.snapshot;
}

std::vector<tas::TopologyAssignment> TopologyAdmission::usage_of(int job, int topology) const {
  const auto j = static_cast<std::size_t>(job);
  const JobTas& jt = jobs_[j];
  const std::vector<std::string>& levels =
      quotas_.topologies[static_cast<std::size_t>(topology)].levels;
  const std::vector<NodeInfo>& view = run_.cluster.view().nodes;
  const std::vector<int>& pods = run_.jobs[j].pods;
  const bool any_alive = std::any_of(pods.begin(), pods.end(), [&](int p) {
    return run_.pods[static_cast<std::size_t>(p)].alive;
  });
  std::vector<tas::TopologyAssignment> out(jt.podsets.size());
  if (!any_alive && jt.topology == topology) {
    // Admitted in this decision, its pods not made yet: what commit() took.
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i] = jt.podsets[i].assignment;
    }
    return out;
  }
  // Per PodSet, in the job's pod order: its pods are the next `count` of the job's.
  std::size_t k = 0;
  for (std::size_t i = 0; i < jt.podsets.size(); ++i) {
    std::map<std::vector<std::string>, std::int32_t> where;
    for (const std::size_t end = k + static_cast<std::size_t>(jt.podsets[i].count);
         k < end && k < pods.size(); ++k) {
      const Pod& pod = run_.pods[static_cast<std::size_t>(pods[k])];
      if (!pod.alive) {
        continue;
      }
      if (pod.node >= 0) {
        std::vector<std::string> values =
            leaf_values(view[static_cast<std::size_t>(pod.node)].node.labels, levels);
        if (!values.empty()) {
          ++where[std::move(values)];
        }
      } else if (jt.topology == topology && k < jt.pod_values.size()) {
        ++where[jt.pod_values[k]];  // charged by charge_unbound
      }
    }
    for (const auto& [values, count] : where) {
      out[i].domains.push_back(tas::DomainAssignment{values, count});
    }
  }
  return out;
}

bool TopologyAdmission::simulate(int job, const std::vector<int>& flavors,
                                 const std::vector<int>& without, bool empty) {
  int flavor = -1;
  const int topology = topology_of(flavors, flavor);
  if (topology < 0 || jobs_[static_cast<std::size_t>(job)].topology >= 0) {
    return true;  // nothing to place, or placed already (as fits())
  }
  tas::TasSnapshot& s = snapshot(topology, flavor);
  std::vector<std::pair<tas::TopologyAssignment, const tas::ResourceMap*>> gone;
  for (const int v : empty ? std::vector<int>(admitted_.begin(), admitted_.end()) : without) {
    if (!preempted_.contains(v)) {
      const JobTas& vt = jobs_[static_cast<std::size_t>(v)];
      std::vector<tas::TopologyAssignment> usage = usage_of(v, topology);
      for (std::size_t i = 0; i < usage.size(); ++i) {
        gone.emplace_back(std::move(usage[i]), &vt.podsets[i].per_pod);
        s.remove_usage(gone.back().first, vt.podsets[i].per_pod);
      }
    }
  }
  const std::vector<tas::PodSetResult> results = s.find_assignments(podsets(job), gates_);
  for (const auto& [usage, per_pod] : gone) {
    s.add_usage(usage, *per_pod);
  }
  return !results.empty() && std::all_of(results.begin(), results.end(), [](const auto& r) {
    return r.admitted() && r.assignment;
  });
}

void TopologyAdmission::preempt(int job) {
  if (!active_ || !preempted_.insert(job).second) {
    return;
  }
  for (auto& [key, kept] : snapshots_) {
    if (kept.current) {
      const std::vector<tas::TopologyAssignment> usage = usage_of(job, key.first);
      const JobTas& jt = jobs_[static_cast<std::size_t>(job)];
      for (std::size_t i = 0; i < usage.size(); ++i) {
        kept.snapshot->remove_usage(usage[i], jt.podsets[i].per_pod);
      }
    }
  }
}

void TopologyAdmission::charge_unbound(tas::TasSnapshot& s, int topology) const {
  // Admitted TAS jobs whose pods are not all bound yet hold their domains' capacity.
  for (const int job : admitted_) {
    const auto j = static_cast<std::size_t>(job);
    const JobTas& jt = jobs_[j];
    if (jt.topology != topology) {
      continue;
    }
    // Per PodSet (their pods' requests differ): its pods are the next `count` of the job's.
    const std::vector<int>& pods = run_.jobs[j].pods;
    std::size_t k = 0;
    for (const PodSetTas& ps : jt.podsets) {
      std::map<std::vector<std::string>, std::int32_t> unbound;
      for (const std::size_t end = k + static_cast<std::size_t>(ps.count);
           k < end && k < pods.size() && k < jt.pod_values.size(); ++k) {
        const Pod& pod = run_.pods[static_cast<std::size_t>(pods[k])];
        if (pod.alive && pod.node < 0) {
          ++unbound[jt.pod_values[k]];  // the pod's domain
        }
      }
      tas::TopologyAssignment a;
      for (const auto& [values, count] : unbound) {
        a.domains.push_back(tas::DomainAssignment{values, count});
      }
      s.add_usage(a, ps.per_pod);
    }
  }
}

std::vector<tas::TasPodSet> TopologyAdmission::podsets(int job) const {
  const workloads::JobSpec& spec = *run_.jobs[static_cast<std::size_t>(job)].spec;
  const JobTas& jt = jobs_[static_cast<std::size_t>(job)];
  std::vector<tas::TasPodSet> out;
  for (std::size_t i = jt.podsets.size(); i-- > 0;) {  // a leader first
    const PodSetTas& p = jt.podsets[i];
    const PodSpec& pod = i == 0 ? spec.pod_template : *spec.leader;
    tas::TasPodSet ps;
    ps.name = p.name;
    ps.count = static_cast<std::int32_t>(p.count);
    ps.requests = p.per_pod;
    ps.topology = p.request;
    ps.tolerations = pod.tolerations;
    ps.node_selector = pod.node_selector;
    ps.required_affinity = pod.node_affinity.required;
    ps.preferred_affinity = pod.node_affinity.preferred;
    out.push_back(std::move(ps));
  }
  return out;
}

bool TopologyAdmission::fits(int job, const std::vector<int>& flavors) {
  JobTas& jt = jobs_[static_cast<std::size_t>(job)];
  jt.pending = false;
  int flavor = -1;
  const int topology = topology_of(flavors, flavor);
  if (topology < 0) {
    return true;
  }
  if (jt.topology >= 0) {
    return true;  // admitted and placed already (a preemptive policy's walk)
  }
  tas::TasSnapshot& s = snapshot(topology, flavor);
  const std::vector<tas::PodSetResult> results = s.find_assignments(podsets(job), gates_);
  TopologyPlacement placement;
  placement.topology = quotas_.topologies[static_cast<std::size_t>(topology)].name;
  for (const PodSetTas& ps : jt.podsets) {
    const auto r = std::find_if(results.begin(), results.end(),
                                [&ps](const tas::PodSetResult& x) { return x.name == ps.name; });
    if (r == results.end() || !r->admitted() || !r->assignment) {
      placement.reason = not_fit_reason(results, jt.podsets.size() > 1);
      placement.assignments.clear();
      jt.last = std::move(placement);
      return false;
    }
    placement.assignments.push_back(*r->assignment);
  }
  jt.last = std::move(placement);
  jt.pending = true;
  pending_flavor_[job] = {topology, flavor};
  return true;
}

void TopologyAdmission::commit(int job) {
  JobTas& jt = jobs_[static_cast<std::size_t>(job)];
  if (!jt.pending) {
    return;
  }
  jt.pending = false;
  const auto [topology, flavor] = pending_flavor_.at(job);
  pending_flavor_.erase(job);
  jt.topology = topology;
  jt.flavor = flavor;
  admitted_.insert(job);
  tas::TasSnapshot& s = snapshot(topology, flavor);
  for (std::size_t i = 0; i < jt.podsets.size(); ++i) {
    jt.podsets[i].assignment = jt.last->assignments[i];
    s.add_usage(jt.podsets[i].assignment, jt.podsets[i].per_pod);
  }
  expand(jt);
}

const TopologyPlacement* TopologyAdmission::last(int job) const {
  const JobTas& jt = jobs_[static_cast<std::size_t>(job)];
  return jt.last ? &*jt.last : nullptr;
}

const std::vector<std::shared_ptr<const std::vector<std::string>>>& TopologyAdmission::pod_domains(
    int job) const {
  static const std::vector<std::shared_ptr<const std::vector<std::string>>> kNone;
  return active_ ? jobs_[static_cast<std::size_t>(job)].pod_domains : kNone;
}

void TopologyAdmission::release(int job) {
  if (!active_) {
    return;
  }
  JobTas& jt = jobs_[static_cast<std::size_t>(job)];
  jt.topology = -1;
  jt.flavor = -1;
  admitted_.erase(job);
  for (PodSetTas& ps : jt.podsets) {
    ps.assignment = {};
  }
  jt.pod_domains.clear();
  jt.pod_values.clear();
  jt.pending = false;
}

std::shared_ptr<const std::vector<std::string>> TopologyAdmission::leaf_nodes(
    int topology, const std::vector<std::string>& values) const {
  const auto& leaves = leaves_[static_cast<std::size_t>(topology)];
  const auto it = leaves.find(tas::domain_id(values));
  return it == leaves.end() ? std::make_shared<const std::vector<std::string>>() : it->second;
}

void TopologyAdmission::expand(JobTas& jt) const {
  jt.pod_domains.clear();
  jt.pod_values.clear();
  for (const PodSetTas& ps : jt.podsets) {
    for (const tas::DomainAssignment& d : ps.assignment.domains) {
      const auto shared = leaf_nodes(jt.topology, d.values);
      for (std::int32_t k = 0; k < d.count; ++k) {
        jt.pod_domains.push_back(shared);
        jt.pod_values.push_back(d.values);
      }
    }
  }
}

bool TopologyAdmission::admitted(int job) const {
  return active_ && jobs_[static_cast<std::size_t>(job)].topology >= 0;
}

bool TopologyAdmission::replace_node(int job, const std::string& node) {
  JobTas& jt = jobs_[static_cast<std::size_t>(job)];
  if (jt.topology < 0) {
    return false;
  }
  // The cluster now, the failed node not Ready (Kueue's snapshot leaves it out), a snapshot of
  // its own: the kept ones serve decisions.
  Kept fresh;
  build(fresh, jt.topology, jt.flavor, node);
  charge_unbound(*fresh.snapshot, jt.topology);
  tas::NodeReplacement request{
      .unhealthy_node = node, .assignments = {}, .owned_by_single_pod = false};
  for (const PodSetTas& ps : jt.podsets) {
    request.assignments[ps.name] = ps.assignment;
  }
  const std::vector<tas::PodSetResult> results =
      fresh.snapshot->find_replacements(podsets(job), request, gates_);
  for (const tas::PodSetResult& r : results) {
    if (!r.assignment) {
      jt.last = TopologyPlacement{
          .topology = quotas_.topologies[static_cast<std::size_t>(jt.topology)].name,
          .reason = not_fit_reason(results, jt.podsets.size() > 1),
          .assignments = {}};
      return false;
    }
  }
  // No result for a PodSet with no domain on the node: its pods keep their domains.
  std::size_t first = 0;  // the PodSet's first pod among the job's
  for (PodSetTas& ps : jt.podsets) {
    const auto r = std::find_if(results.begin(), results.end(),
                                [&ps](const tas::PodSetResult& x) { return x.name == ps.name; });
    if (r != results.end()) {
      replace_domains(jt, first, ps, *r->assignment, node);
    }
    first += static_cast<std::size_t>(ps.count);
  }
  return true;
}

void TopologyAdmission::replace_domains(JobTas& jt, std::size_t first, PodSetTas& ps,
                                        const tas::TopologyAssignment& merged,
                                        const std::string& node) const {
  // The replacement's domains: the merged assignment less the domains the PodSet keeps.
  std::map<std::vector<std::string>, std::int32_t> kept;
  for (const tas::DomainAssignment& d : ps.assignment.domains) {
    if (d.values.empty() || d.values.back() != node) {
      kept[d.values] += d.count;
    }
  }
  std::vector<std::vector<std::string>> fresh_values;
  for (const tas::DomainAssignment& d : merged.domains) {
    for (std::int32_t c = kept[d.values]; c < d.count; ++c) {
      fresh_values.push_back(d.values);
    }
  }
  std::size_t next = 0;
  const std::size_t end =
      std::min(jt.pod_values.size(), first + static_cast<std::size_t>(ps.count));
  for (std::size_t k = first; k < end && next < fresh_values.size(); ++k) {
    if (!jt.pod_values[k].empty() && jt.pod_values[k].back() == node) {
      jt.pod_values[k] = fresh_values[next++];
      jt.pod_domains[k] = leaf_nodes(jt.topology, jt.pod_values[k]);
    }
  }
  ps.assignment = merged;
}

}  // namespace tidesim
