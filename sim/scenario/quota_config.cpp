#include "tidesim/sim/scenario/quota_config.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "tidesim/sim/admission/tas_model.hpp"
#include "tidesim/sim/input/units.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"
#include "tidesim/sim/scenario/kube_snapshot.hpp"

namespace tidesim {
namespace {

constexpr std::int64_t kMaxGpus = 1'000'000;

// A quota of resource `resource` from `key` of `f`, in the resource's unit
// (sim/admission/quota.hpp).
std::int64_t quantity(Fields& f, const std::string& key, const std::string& resource) {
  const ConfigNode n = f.require(key);
  if (!n.is_scalar()) {
    throw f.error(n, key, "expected a quantity of " + resource);
  }
  try {
    if (resource == "cpu") {
      return parse_quantity(n.scalar(), 3);
    }
    if (resource == "memory") {
      return parse_quantity(n.scalar());
    }
    return parse_integer_quantity(n.scalar());
  } catch (const QuantityError& e) {
    throw f.error(n, key, fmt::format("{} ({})", e.what(), resource));
  }
}

// borrowing and lending limits only mean something in a cohort; a lending limit is at most the
// nominal quota (Kueue's ClusterQueue validation).
void check_limits(Fields& f, const ClusterQueueConfig& cq, const ResourceQuota& q,
                  const std::string& borrowing_key, const std::string& lending_key) {
  for (const std::string& key : {borrowing_key, lending_key}) {
    if (f.has(key) && cq.cohort.empty()) {
      throw f.error(f.get(key), key, "applies only to a queue in a cohort");
    }
  }
  if (q.lending_limit && *q.lending_limit > q.nominal) {
    throw f.error(
        f.get(lending_key), lending_key,
        fmt::format("lending limit {} exceeds the nominal quota {}", *q.lending_limit, q.nominal));
  }
}

// The key names of a ClusterQueue's resource groups: the scenario's (snake_case) or a Kueue
// object's (spec.resourceGroups, as `kubectl get clusterqueues -o yaml` prints them).
struct Spelling {
  const char* resource_groups;
  const char* covered_resources;
  const char* resources;
  const char* nominal_quota;
  const char* borrowing_limit;
  const char* lending_limit;
};
constexpr Spelling kScenarioKeys{"resource_groups", "covered_resources", "resources",
                                 "nominal_quota",   "borrowing_limit",   "lending_limit"};
constexpr Spelling kKueueKeys{"resourceGroups", "coveredResources", "resources",
                              "nominalQuota",   "borrowingLimit",   "lendingLimit"};

// A queue's quotas keyed by (flavour name, resource name), and its groups by name.
using FlavourQuotas = std::map<std::pair<std::string, std::string>, ResourceQuota>;
struct NamedGroup {
  std::vector<std::string> resources;
  std::vector<std::string> flavors;
};

// The shorthand: `nominal_gpus` (with `borrowing_limit_gpus`, `lending_limit_gpus`) is one
// resource group covering nvidia.com/gpu with one flavour without node labels (named "").
void parse_gpu_shorthand(Fields& c, const ClusterQueueConfig& cq, FlavourQuotas& out,
                         std::vector<NamedGroup>& groups) {
  ResourceQuota q;
  q.covered = true;
  q.nominal = c.integer("nominal_gpus", std::nullopt, 0, kMaxGpus);
  if (c.has("borrowing_limit_gpus")) {
    q.borrowing_limit = c.integer("borrowing_limit_gpus", std::nullopt, 0, kMaxGpus);
  }
  if (c.has("lending_limit_gpus")) {
    q.lending_limit = c.integer("lending_limit_gpus", std::nullopt, 0, kMaxGpus);
  }
  check_limits(c, cq, q, "borrowing_limit_gpus", "lending_limit_gpus");
  out[{"", kGpuResource}] = q;
  groups.push_back(NamedGroup{{kGpuResource}, {""}});
}

// One flavour's `resources:` of a group covering `covered`.
void parse_flavour_quotas(Fields& ff, const ClusterQueueConfig& cq, const std::string& flavour,
                          const std::vector<std::string>& covered, FlavourQuotas& out,
                          const Spelling& k) {
  const std::string& file = ff.file();
  const ConfigNode res_node = ff.require(k.resources);
  const auto resources = sequence_of(res_node, file, ff.path_of(k.resources));
  std::set<std::string> seen;
  for (std::size_t i = 0; i < resources.size(); ++i) {
    Fields rf(resources[i], file, fmt::format("{}[{}]", ff.path_of(k.resources), i));
    const std::string name = rf.string("name");
    if (std::find(covered.begin(), covered.end(), name) == covered.end()) {
      throw rf.error(rf.get("name"), "name",
                     "resource '" + name + "' is not in the group's " + k.covered_resources);
    }
    if (!seen.insert(name).second) {
      throw rf.error(rf.get("name"), "name", "resource '" + name + "' is listed twice");
    }
    ResourceQuota q;
    q.covered = true;
    q.nominal = quantity(rf, k.nominal_quota, name);
    if (rf.has(k.borrowing_limit)) {
      q.borrowing_limit = quantity(rf, k.borrowing_limit, name);
    }
    if (rf.has(k.lending_limit)) {
      q.lending_limit = quantity(rf, k.lending_limit, name);
    }
    check_limits(rf, cq, q, k.borrowing_limit, k.lending_limit);
    rf.finish();
    out[{flavour, name}] = q;
  }
  for (const std::string& name : covered) {
    if (!seen.contains(name)) {
      throw ff.error(res_node, k.resources,
                     "no quota for covered resource '" + name + "' (list each one)");
    }
  }
}

// `resource_groups:` as Kueue's `spec.resourceGroups`: each group's flavours in order, each
// naming a declared ResourceFlavor (`declared`; without any declaration, a group may have one
// flavour, whose name is then only a name).
void parse_groups(const ConfigNode& groups, Fields& c, const ClusterQueueConfig& cq,
                  const std::set<std::string>& declared, const std::string& flavours_path,
                  FlavourQuotas& out, std::vector<NamedGroup>& named, const Spelling& k) {
  const std::string& file = c.file();
  const auto items = sequence_of(groups, file, c.path_of(k.resource_groups));
  if (items.empty()) {
    throw c.error(groups, k.resource_groups, "needs at least one resource group");
  }
  std::set<std::string> covered_all;
  std::set<std::string> flavours_all;
  for (std::size_t g = 0; g < items.size(); ++g) {
    Fields gf(items[g], file, fmt::format("{}[{}]", c.path_of(k.resource_groups), g));
    const ConfigNode covered_node = gf.require(k.covered_resources);
    std::vector<std::string> covered;
    const auto names = sequence_of(covered_node, file, gf.path_of(k.covered_resources));
    for (std::size_t i = 0; i < names.size(); ++i) {
      const std::string key = fmt::format("{}[{}]", k.covered_resources, i);
      if (!names[i].is_scalar() || names[i].scalar().empty()) {
        throw gf.error(names[i], key, "expected a resource name");
      }
      const std::string& name = names[i].scalar();
      if (!covered_all.insert(name).second) {
        throw gf.error(
            names[i], key,
            "resource '" + name + "' is covered twice (a resource belongs to one group)");
      }
      covered.push_back(name);
    }
    if (covered.empty()) {
      throw gf.error(covered_node, k.covered_resources, "needs at least one resource");
    }
    const ConfigNode flavors_node = gf.require("flavors");
    const auto flavors = sequence_of(flavors_node, file, gf.path_of("flavors"));
    if (flavors.empty()) {
      throw gf.error(flavors_node, "flavors", "needs at least one flavour");
    }
    NamedGroup ng;
    ng.resources = covered;
    for (std::size_t fi = 0; fi < flavors.size(); ++fi) {
      Fields ff(flavors[fi], file, gf.path_of(fmt::format("flavors[{}]", fi)));
      const std::string name = ff.string("name");
      if (!declared.contains(name) && (!declared.empty() || flavors.size() > 1)) {
        throw ff.error(ff.get("name"), "name",
                       "unknown flavour '" + name + "' (declare it under " + flavours_path + ")");
      }
      if (!flavours_all.insert(name).second) {
        throw ff.error(ff.get("name"), "name",
                       "flavour '" + name +
                           "' is listed twice in this queue (a flavour belongs to one group)");
      }
      parse_flavour_quotas(ff, cq, name, covered, out, k);
      ff.finish();
      ng.flavors.push_back(name);
    }
    gf.finish();
    named.push_back(std::move(ng));
  }
}

// `resource_flavors:` (Kueue's ResourceFlavor objects): name and node_labels.
std::vector<ResourceFlavor> parse_flavours(const ConfigNode& n, const std::string& file,
                                           const std::string& path) {
  std::vector<ResourceFlavor> out;
  const auto items = sequence_of(n, file, path);
  for (std::size_t i = 0; i < items.size(); ++i) {
    Fields f(items[i], file, fmt::format("{}[{}]", path, i));
    ResourceFlavor rf;
    rf.declared = true;
    rf.where = location_of(items[i], file);
    rf.path = f.path();
    rf.name = f.string("name");
    if (rf.name.empty()) {
      throw f.error(f.get("name"), "name", "expected a flavour name");
    }
    for (const char* key : {"node_taints", "tolerations"}) {
      if (f.has(key)) {
        throw f.error(f.get(key), key,
                      "is not modelled (a flavour's node_labels only; docs/job-scheduling.md)");
      }
    }
    rf.node_labels = string_map(f.get("node_labels"), file, f.path_of("node_labels"));
    rf.topology_name = f.string("topology_name", "");
    if (f.has("topology_name") && rf.node_labels.empty()) {
      // Kueue's ResourceFlavor validation: a flavor with a topologyName needs nodeLabels.
      throw f.error(f.get("topology_name"), "topology_name",
                    "a flavour with a topology needs at least one node_labels entry (Kueue's "
                    "ResourceFlavor validation)");
    }
    f.finish();
    for (const ResourceFlavor& other : out) {
      if (other.name == rf.name) {
        throw f.error(f.get("name"), "name", "flavour '" + rf.name + "' is declared twice");
      }
    }
    out.push_back(std::move(rf));
  }
  return out;
}

// `topologies:` (Kueue's Topology objects): name and levels (node label keys, outermost first),
// validated as Kueue's Topology webhook does (apis/kueue/v1beta2/topology_types.go): 1 to 16
// levels, no duplicates, kubernetes.io/hostname only as the last level.
std::vector<KueueTopology> parse_topologies(const ConfigNode& n, const std::string& file,
                                            const std::string& path) {
  std::vector<KueueTopology> out;
  const auto items = sequence_of(n, file, path);
  for (std::size_t i = 0; i < items.size(); ++i) {
    Fields f(items[i], file, fmt::format("{}[{}]", path, i));
    KueueTopology t;
    t.where = location_of(items[i], file);
    t.path = f.path();
    t.name = f.string("name");
    const ConfigNode levels = f.require("levels");
    const auto names = sequence_of(levels, file, f.path_of("levels"));
    if (names.empty() || names.size() > 16) {
      throw f.error(levels, "levels", "a topology has 1 to 16 levels");
    }
    for (std::size_t k = 0; k < names.size(); ++k) {
      const std::string key = fmt::format("levels[{}]", k);
      if (!names[k].is_scalar() || names[k].scalar().empty()) {
        throw f.error(names[k], key, "expected a node label key");
      }
      const std::string& label = names[k].scalar();
      if (std::find(t.levels.begin(), t.levels.end(), label) != t.levels.end()) {
        throw f.error(names[k], key, "level '" + label + "' is listed twice");
      }
      if (label == "kubernetes.io/hostname" && k + 1 != names.size()) {
        throw f.error(names[k], key, "kubernetes.io/hostname may only be the last level");
      }
      t.levels.push_back(label);
    }
    f.finish();
    for (const KueueTopology& other : out) {
      if (other.name == t.name) {
        throw f.error(f.get("name"), "name", "topology '" + t.name + "' is declared twice");
      }
    }
    out.push_back(std::move(t));
  }
  return out;
}

// `tas_feature_gates:` Kueue's gate names with true or false.
std::map<std::string, bool> parse_gates(Fields& f) {
  std::map<std::string, bool> out;
  const ConfigNode g = f.get("tas_feature_gates");
  if (!g) {
    return out;
  }
  Fields gf(g, f.file(), f.path_of("tas_feature_gates"));
  tas::TasFeatureGates check;
  for (const auto& [key, value] : g.entries()) {
    const std::string name = key.scalar();
    const bool on = gf.boolean(name);
    if (!tas::set_feature_gate(check, name, on)) {
      std::string known;
      for (const std::string& n : tas::feature_gate_names()) {
        known += (known.empty() ? "" : ", ") + n;
      }
      throw gf.error(value, name, "unknown Kueue feature gate (known: " + known + ")");
    }
    out[name] = on;
  }
  gf.finish();
  return out;
}

// The `cohorts:` names.
std::set<std::string> parse_cohorts(Fields& f) {
  std::set<std::string> cohorts;
  if (const ConfigNode c = f.get("cohorts")) {
    const auto items = sequence_of(c, f.file(), f.path_of("cohorts"));
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (!items[i].is_scalar() || items[i].scalar().empty()) {
        throw f.error(items[i], fmt::format("cohorts[{}]", i), "expected a cohort name");
      }
      cohorts.insert(items[i].scalar());
    }
  }
  return cohorts;
}

// A queue's `flavor_fungibility:`.
void parse_fungibility(Fields& c, ClusterQueueConfig& cq) {
  if (const ConfigNode fung = c.get("flavor_fungibility")) {
    Fields ff(fung, c.file(), c.path_of("flavor_fungibility"));
    cq.when_can_borrow =
        ff.choice("when_can_borrow", "Borrow", {"Borrow", "TryNextFlavor"}) == "Borrow"
            ? WhenCanBorrow::kBorrow
            : WhenCanBorrow::kTryNextFlavor;
    cq.when_can_preempt =
        ff.choice("when_can_preempt", "TryNextFlavor", {"Preempt", "TryNextFlavor"}) == "Preempt"
            ? WhenCanPreempt::kPreempt
            : WhenCanPreempt::kTryNextFlavor;
    ff.finish();
  }
}

// A queue's preemption rules (Kueue's preemption.withinClusterQueue, reclaimWithinCohort) from
// `within_key` and `reclaim_key` of `c`.
void read_preemption(Fields& c, ClusterQueueConfig& cq, const char* within_key,
                     const char* reclaim_key) {
  const std::string within =
      c.choice(within_key, "Never", {"Never", "LowerPriority", "LowerOrNewerEqualPriority"});
  cq.within_cluster_queue = within == "Never" ? WithinClusterQueue::kNever
                            : within == "LowerPriority"
                                ? WithinClusterQueue::kLowerPriority
                                : WithinClusterQueue::kLowerOrNewerEqualPriority;
  const std::string reclaim = c.choice(reclaim_key, "Never", {"Never", "LowerPriority", "Any"});
  cq.reclaim_within_cohort = reclaim == "Never"           ? ReclaimWithinCohort::kNever
                             : reclaim == "LowerPriority" ? ReclaimWithinCohort::kLowerPriority
                                                          : ReclaimWithinCohort::kAny;
  if (cq.reclaim_within_cohort != ReclaimWithinCohort::kNever && cq.cohort.empty()) {
    throw c.error(c.get(reclaim_key), reclaim_key, "applies only to a queue in a cohort");
  }
}

// A queue's queueing strategy and preemption rules.
void parse_queueing(Fields& c, ClusterQueueConfig& cq) {
  cq.strict_fifo = c.choice("queueing_strategy", "BestEffortFIFO",
                            {"BestEffortFIFO", "StrictFIFO"}) == "StrictFIFO";
  read_preemption(c, cq, "within_cluster_queue", "reclaim_within_cohort");
}

// One entry of `cluster_queues:` at `c`; its quotas, keyed by name, go to `quota` and its groups
// to `named`.
ClusterQueueConfig parse_cluster_queue(Fields& c, const std::set<std::string>& cohorts,
                                       const std::set<std::string>& declared,
                                       const std::string& cohorts_path,
                                       const std::string& flavours_path, FlavourQuotas& quota,
                                       std::vector<NamedGroup>& named) {
  ClusterQueueConfig cq;
  cq.where = location_of(c.node(), c.file());
  cq.name = c.string("name");
  cq.cohort = c.string("cohort", "");
  if (!cq.cohort.empty() && !cohorts.contains(cq.cohort)) {
    throw c.error(c.get("cohort"), "cohort",
                  "unknown cohort '" + cq.cohort + "' (declare it under " + cohorts_path + ")");
  }
  if (const ConfigNode groups = c.get("resource_groups")) {
    for (const char* key : {"nominal_gpus", "borrowing_limit_gpus", "lending_limit_gpus"}) {
      if (c.has(key)) {
        throw c.error(c.get(key), key, "give either resource_groups or the GPU shorthand");
      }
    }
    parse_groups(groups, c, cq, declared, flavours_path, quota, named, kScenarioKeys);
  } else {
    parse_gpu_shorthand(c, cq, quota, named);
  }
  parse_fungibility(c, cq);
  parse_queueing(c, cq);
  c.finish();
  return cq;
}

// The resources and flavours a queue's quota names, added to `q`'s lists when new (a flavour
// named without a declaration, or the shorthand's "", has no labels).
void add_quota_names(QuotaConfig& q, const FlavourQuotas& quota) {
  for (const auto& [key, rq] : quota) {
    if (std::find(q.resources.begin(), q.resources.end(), key.second) == q.resources.end()) {
      q.resources.push_back(key.second);
    }
    const auto named_flavour = [&](const ResourceFlavor& rf) { return rf.name == key.first; };
    if (std::find_if(q.flavors.begin(), q.flavors.end(), named_flavour) == q.flavors.end()) {
      ResourceFlavor rf;
      rf.name = key.first;
      q.flavors.push_back(std::move(rf));
    }
  }
}

// Orders `q.resources` (nvidia.com/gpu first, then the others by name), lists the (flavour,
// resource) slots some queue has (by resource, then flavour), and indexes each queue's quota and
// groups alike.
void index_quotas(QuotaConfig& q, const std::vector<FlavourQuotas>& quotas,
                  const std::vector<std::vector<NamedGroup>>& groups_of) {
  std::sort(q.resources.begin(), q.resources.end(), [](const std::string& a, const std::string& b) {
    return std::make_pair(a != kGpuResource, a) < std::make_pair(b != kGpuResource, b);
  });
  const auto resource_index = [&](const std::string& name) {
    return static_cast<int>(std::find(q.resources.begin(), q.resources.end(), name) -
                            q.resources.begin());
  };
  const auto flavour_index = [&](const std::string& name) {
    return static_cast<int>(
        std::find_if(q.flavors.begin(), q.flavors.end(),
                     [&](const ResourceFlavor& rf) { return rf.name == name; }) -
        q.flavors.begin());
  };
  std::set<std::pair<int, int>> pairs;
  for (const FlavourQuotas& fq : quotas) {
    for (const auto& [key, rq] : fq) {
      pairs.emplace(resource_index(key.second), flavour_index(key.first));
    }
  }
  for (const auto& [r, fl] : pairs) {
    q.slots.push_back(FlavorResource{fl, r});
  }
  for (std::size_t i = 0; i < q.cluster_queues.size(); ++i) {
    for (const FlavorResource& slot : q.slots) {
      const auto it = quotas[i].find({q.flavors[static_cast<std::size_t>(slot.flavor)].name,
                                      q.resources[static_cast<std::size_t>(slot.resource)]});
      q.cluster_queues[i].quota.push_back(it == quotas[i].end() ? ResourceQuota{} : it->second);
    }
    for (const NamedGroup& ng : groups_of[i]) {
      ResourceGroup g;
      for (const std::string& name : ng.resources) {
        g.resources.push_back(resource_index(name));
      }
      for (const std::string& name : ng.flavors) {
        g.flavors.push_back(flavour_index(name));
      }
      q.cluster_queues[i].groups.push_back(std::move(g));
    }
  }
}

// The place of a snapshot object, as an error's text names it.
std::string place(const SourceLocation& at) {
  return fmt::format("{}:{}", at.file, at.line);
}

// Appends `more` (the scenario's declarations) to `into` (the snapshot's): a name in both is an
// InputError at the scenario's declaration naming the snapshot's object.
template <class T>
void add_declared(std::vector<T>& into, std::vector<T> more, const char* kind) {
  for (T& t : more) {
    for (const T& have : into) {
      if (have.name == t.name) {
        throw InputError(t.where, t.path + ".name",
                         fmt::format("{} '{}' is also in the cluster snapshot ({}); declare it in "
                                     "one place",
                                     kind, t.name, place(have.where)));
      }
    }
    into.push_back(std::move(t));
  }
}

// The snapshot's Topology objects (already checked by its reader as Kueue's webhook does).
std::vector<KueueTopology> snapshot_topologies(const KueueSnapshot& s) {
  std::vector<KueueTopology> out;
  for (const auto& [name, levels] : s.topologies) {
    const auto at = s.topology_where.find(name);
    out.push_back(
        KueueTopology{.name = name,
                      .levels = levels,
                      .where = at == s.topology_where.end() ? SourceLocation{} : at->second,
                      .path = "Topology " + name});
  }
  return out;
}

// The snapshot's ResourceFlavor objects, with the rules `resource_flavors:` has.
std::vector<ResourceFlavor> snapshot_flavours(const KueueSnapshot& s) {
  std::vector<ResourceFlavor> out;
  for (const KueueFlavor& f : s.flavors) {
    if (!f.tolerations.empty()) {
      throw InputError(f.where, "spec.tolerations",
                       "ResourceFlavor '" + f.name +
                           "': tolerations are not modelled in runs (a flavour's node labels "
                           "only; docs/job-scheduling.md)");
    }
    if (f.topology_name && f.node_labels.empty()) {
      throw InputError(f.where, "spec.nodeLabels",
                       "ResourceFlavor '" + f.name +
                           "' has a topologyName and needs at least one node label (Kueue's "
                           "ResourceFlavor validation)");
    }
    out.push_back(ResourceFlavor{.name = f.name,
                                 .node_labels = f.node_labels,
                                 .topology_name = f.topology_name.value_or(""),
                                 .declared = true,
                                 .where = f.where,
                                 .path = "ResourceFlavor " + f.name});
  }
  return out;
}

// A snapshot ClusterQueue's spec.flavorFungibility (v1beta2 MayStopSearch is v1beta1's Borrow
// and Preempt), queueingStrategy and preemption (borrowWithinCohort is not modelled: only its
// default, Never).
void snapshot_queue_rules(Fields& c, ClusterQueueConfig& cq) {
  cq.strict_fifo = c.choice("queueingStrategy", "BestEffortFIFO",
                            {"BestEffortFIFO", "StrictFIFO"}) == "StrictFIFO";
  if (const ConfigNode fung = c.get("flavorFungibility")) {
    Fields ff(fung, c.file(), c.path_of("flavorFungibility"));
    cq.when_can_borrow = ff.choice("whenCanBorrow", "MayStopSearch",
                                   {"Borrow", "MayStopSearch", "TryNextFlavor"}) == "TryNextFlavor"
                             ? WhenCanBorrow::kTryNextFlavor
                             : WhenCanBorrow::kBorrow;
    cq.when_can_preempt =
        ff.choice("whenCanPreempt", "TryNextFlavor",
                  {"Preempt", "MayStopSearch", "TryNextFlavor"}) == "TryNextFlavor"
            ? WhenCanPreempt::kTryNextFlavor
            : WhenCanPreempt::kPreempt;
  }
  Fields pf(c.get("preemption") ? c.get("preemption") : ConfigNode::empty_map(), c.file(),
            c.path_of("preemption"));
  read_preemption(pf, cq, "withinClusterQueue", "reclaimWithinCohort");
  if (const ConfigNode b = pf.get("borrowWithinCohort")) {
    Fields bf(b, c.file(), pf.path_of("borrowWithinCohort"));
    if (bf.string("policy", "Never") != "Never") {
      throw bf.error(bf.get("policy"), "policy",
                     "borrowWithinCohort other than Never is not modelled in runs");
    }
  }
}

// One ClusterQueue object of the snapshot: its cohort (v1beta2 spec.cohortName, v1beta1
// spec.cohort; Kueue makes a cohort that no Cohort object declares), resource groups with their
// quotas (the spelling of Kueue's API, the rules of `cluster_queues:`) and queue rules. Fields
// runs do not read (namespaceSelector, fairSharing, admissionChecks, ...) are left alone.
ClusterQueueConfig snapshot_cluster_queue(const SnapshotObject& o,
                                          const std::set<std::string>& declared,
                                          FlavourQuotas& quota, std::vector<NamedGroup>& named) {
  if (!o.node["spec"].is_map()) {
    throw InputError(location_of(o.node, o.file), o.path + ".spec",
                     "ClusterQueue '" + o.name + "' has no spec");
  }
  Fields c(o.node["spec"], o.file, o.path + ".spec");
  ClusterQueueConfig cq;
  cq.where = location_of(o.node, o.file);
  cq.name = o.name;
  cq.cohort = c.has("cohortName") ? c.string("cohortName") : c.string("cohort", "");
  parse_groups(c.require("resourceGroups"), c, cq, declared, "the snapshot's ResourceFlavors",
               quota, named, kKueueKeys);
  snapshot_queue_rules(c, cq);
  return cq;
}

// The snapshot's LocalQueues by name (a run's job names its queue without a namespace): the same
// name in two namespaces must name the same ClusterQueue.
std::map<std::string, int> snapshot_local_queues(const KueueSnapshot& s,
                                                 const std::map<std::string, int>& by_name) {
  std::map<std::string, int> out;
  for (const auto& [key, cluster] : s.local_queues) {
    const std::string name = key.substr(key.find('/') + 1);
    const SourceLocation at = s.local_queue_where.at(key);
    const auto it = by_name.find(cluster);
    if (it == by_name.end()) {
      throw InputError(at, "spec.clusterQueue",
                       "LocalQueue '" + key + "' names ClusterQueue '" + cluster +
                           "', which neither the snapshot nor `cluster_queues:` has");
    }
    if (const auto [was, added] = out.emplace(name, it->second);
        !added && was->second != it->second) {
      throw InputError(at, "metadata.name",
                       "LocalQueue '" + name +
                           "' is in several namespaces with different ClusterQueues; a run's "
                           "jobs name their queue without a namespace");
    }
  }
  return out;
}

// LocalQueue -> ClusterQueue: `local_queues:`, else one LocalQueue per ClusterQueue of the same
// name (with `from_snapshot`, per ClusterQueue of the scenario, or per every ClusterQueue when
// the snapshot has no LocalQueue), after the snapshot's own.
std::map<std::string, int> parse_local_queues(Fields& f, const std::map<std::string, int>& by_name,
                                              const std::map<std::string, int>& own,
                                              std::map<std::string, int> out) {
  const ConfigNode l = f.get("local_queues");
  if (!l) {
    for (const auto& [name, index] : out.empty() ? by_name : own) {
      out.emplace(name, index);
    }
    return out;
  }
  for (const auto& [local, cluster] : string_map(l, f.file(), f.path_of("local_queues"))) {
    const auto it = by_name.find(cluster);
    if (it == by_name.end()) {
      throw f.error(l[local], f.path_of("local_queues") + "." + local,
                    "unknown cluster queue '" + cluster + "'");
    }
    if (!out.emplace(local, it->second).second) {
      throw f.error(l[local], f.path_of("local_queues") + "." + local,
                    "LocalQueue '" + local +
                        "' is also in the cluster snapshot; declare it in "
                        "one place");
    }
  }
  return out;
}

// `topologies:` and `resource_flavors:` into `q`, after the snapshot's when `snapshot` is set.
void parse_topologies_and_flavours(Fields& f, const KueueSnapshot* snapshot, QuotaConfig& q) {
  const std::string& file = f.file();
  if (snapshot) {
    q.topologies = snapshot_topologies(*snapshot);
    q.flavors = snapshot_flavours(*snapshot);
  }
  if (const ConfigNode t = f.get("topologies")) {
    add_declared(q.topologies, parse_topologies(t, file, f.path_of("topologies")), "topology");
  }
  if (const ConfigNode rf = f.get("resource_flavors")) {
    add_declared(q.flavors, parse_flavours(rf, file, f.path_of("resource_flavors")),
                 "ResourceFlavor");
  }
  const std::size_t from_snapshot = snapshot ? snapshot->flavors.size() : 0;
  for (std::size_t i = 0; i < q.flavors.size(); ++i) {
    const ResourceFlavor& flavor = q.flavors[i];
    const bool known =
        std::any_of(q.topologies.begin(), q.topologies.end(),
                    [&](const KueueTopology& t) { return t.name == flavor.topology_name; });
    if (flavor.topology_name.empty() || known) {
      continue;
    }
    if (i < from_snapshot) {
      throw InputError(flavor.where, "spec.topologyName",
                       "ResourceFlavor '" + flavor.name + "' names topology '" +
                           flavor.topology_name + "', which neither the snapshot nor " +
                           "`topologies:` declares");
    }
    const ConfigNode rf = f.get("resource_flavors");
    throw InputError(
        location_of(rf[i - from_snapshot]["topology_name"], file), flavor.path + ".topology_name",
        "names topology '" + flavor.topology_name + "', which `topologies:` does not declare");
  }
}

// One ClusterQueue into `q` and the lists beside it; a name listed twice is refused at `at`.
void add_cluster_queue(QuotaConfig& q, ClusterQueueConfig cq, FlavourQuotas quota,
                       std::vector<NamedGroup> named, std::map<std::string, int>& by_name,
                       std::vector<FlavourQuotas>& quotas,
                       std::vector<std::vector<NamedGroup>>& groups_of,
                       const std::function<InputError(const std::string&)>& twice) {
  const auto [it, added] = by_name.emplace(cq.name, static_cast<int>(q.cluster_queues.size()));
  if (!added) {
    throw twice(place(q.cluster_queues[static_cast<std::size_t>(it->second)].where));
  }
  add_quota_names(q, quota);
  q.cluster_queues.push_back(std::move(cq));
  quotas.push_back(std::move(quota));
  groups_of.push_back(std::move(named));
}

}  // namespace

QuotaConfig parse_queues(const ConfigNode& n, const std::string& file, const std::string& path,
                         const KueueSnapshot* snapshot) {
  Fields f(n, file, path);
  QuotaConfig q;
  q.where = location_of(n, file);
  q.path = path;
  const bool from_snapshot = f.boolean("from_snapshot", false);
  if (from_snapshot && !snapshot) {
    throw f.error(f.get("from_snapshot"), "from_snapshot",
                  "takes the Kueue objects of cluster.snapshot, which this scenario does not have");
  }
  const KueueSnapshot* objects = from_snapshot ? snapshot : nullptr;
  parse_topologies_and_flavours(f, objects, q);
  q.tas_feature_gates = parse_gates(f);
  std::set<std::string> declared;
  for (const ResourceFlavor& rf : q.flavors) {
    declared.insert(rf.name);
  }
  const std::set<std::string> cohorts = parse_cohorts(f);
  std::map<std::string, int> by_name;
  std::vector<FlavourQuotas> quotas;
  std::vector<std::vector<NamedGroup>> groups_of;
  for (const SnapshotObject& o :
       objects ? objects->cluster_queue_objects : std::vector<SnapshotObject>{}) {
    FlavourQuotas quota;
    std::vector<NamedGroup> named;
    ClusterQueueConfig cq = snapshot_cluster_queue(o, declared, quota, named);
    add_cluster_queue(q, std::move(cq), std::move(quota), std::move(named), by_name, quotas,
                      groups_of, [&](const std::string& at) {
                        return InputError(location_of(o.node, o.file), o.path + ".metadata.name",
                                          "ClusterQueue '" + o.name +
                                              "' is in the snapshot "
                                              "twice (also at " +
                                              at + ")");
                      });
  }
  const ConfigNode cqs = objects ? f.get("cluster_queues") : f.require("cluster_queues");
  const auto items =
      cqs ? sequence_of(cqs, file, f.path_of("cluster_queues")) : std::vector<ConfigNode>{};
  std::map<std::string, int> own;
  for (std::size_t i = 0; i < items.size(); ++i) {
    Fields c(items[i], file, fmt::format("{}[{}]", f.path_of("cluster_queues"), i));
    FlavourQuotas quota;
    std::vector<NamedGroup> named;
    ClusterQueueConfig cq = parse_cluster_queue(c, cohorts, declared, f.path_of("cohorts"),
                                                f.path_of("resource_flavors"), quota, named);
    const std::string name = cq.name;
    const int index = static_cast<int>(q.cluster_queues.size());
    const bool in_snapshot = by_name.contains(name) && !own.contains(name);
    add_cluster_queue(
        q, std::move(cq), std::move(quota), std::move(named), by_name, quotas, groups_of,
        [&](const std::string& at) {
          return c.error(c.get("name"), "name",
                         in_snapshot ? "ClusterQueue '" + c.string("name") +
                                           "' is also in the cluster snapshot (" + at +
                                           "); declare it in one place"
                                     : "cluster queue '" + c.string("name") + "' is listed twice");
        });
    own[name] = index;
  }
  if (q.cluster_queues.empty()) {
    throw objects ? f.error(f.get("from_snapshot"), "from_snapshot",
                            "the snapshot has no ClusterQueue and `cluster_queues` is absent")
                  : f.error(cqs, "cluster_queues", "needs at least one cluster queue");
  }
  index_quotas(q, quotas, groups_of);
  q.local_queues = parse_local_queues(
      f, by_name, own,
      objects ? snapshot_local_queues(*objects, by_name) : std::map<std::string, int>{});
  f.finish();
  return q;
}

void check_job_queues(const workloads::WorkloadSpec& workload, const QuotaConfig& quotas,
                      const std::string& policy) {
  for (std::size_t i = 0; i < workload.mix.size(); ++i) {
    const workloads::MixEntry& entry = workload.mix[i];
    const auto where = entry.label_where.find(kQueueNameLabel);
    if (where == entry.label_where.end()) {
      continue;  // no inline queue label
    }
    const std::string& queue = entry.job.pod_template.labels.at(kQueueNameLabel);
    if (!quotas.local_queues.contains(queue)) {
      throw InputError(where->second,
                       fmt::format("workload.jobs[{}].pod.labels.{}", i, kQueueNameLabel),
                       fmt::format("names queue '{}', which policy '{}' does not declare (its "
                                   "{}.local_queues)",
                                   queue, policy, quotas.path));
    }
  }
}

}  // namespace tidesim
