#include "tidesim/sim/admission/volcano_policy.hpp"

#include <algorithm>
#include <stdexcept>

#include "tidesim/sim/admission/tas_snapshot.hpp"

namespace tidesim {
namespace {

/// Kubelet's default --max-pods (KubeletConfiguration maxPods, 110): a node's `pods`.
constexpr std::int64_t kMaxPods = 110;

volcano::Amounts amounts(const Resources& r) {
  volcano::Amounts a;
  for (const auto& [k, v] : tas::resource_map(r)) {
    a[k] = v;
  }
  return a;
}

volcano::NetworkTopology topology_of(const workloads::NetworkTopologySpec& spec) {
  volcano::NetworkTopology t;
  t.hard = spec.hard;
  t.highest_tier = spec.highest_tier_allowed;
  t.highest_tier_name = spec.highest_tier_name;
  return t;
}

bool known_arg(const std::string& key) {
  static const std::vector<std::string> keys = {"mode",
                                                "highest_tier_allowed",
                                                "highest_tier_name",
                                                "weight",
                                                "hypernode.binpack.cpu",
                                                "hypernode.binpack.memory",
                                                "hypernode.binpack.resources",
                                                "hypernode.binpack.normal-pod.enable",
                                                "hypernode.binpack.normal-pod.fading"};
  return std::find(keys.begin(), keys.end(), key) != keys.end() ||
         key.rfind("hypernode.binpack.resources.", 0) == 0 ||
         // The binpack node-order plugin's (volcano_binpack.hpp).
         key == "binpack.weight" || key == "binpack.cpu" || key == "binpack.memory" ||
         key == "binpack.resources" || key.rfind("binpack.resources.", 0) == 0;
}

}  // namespace

VolcanoPolicy::VolcanoPolicy(const AdmissionConfig& config)
    : source_(config.hypernodes), args_(volcano::plugin_args(config.args)) {
  if (!source_) {
    throw std::invalid_argument(
        "policy volcano needs `hypernodes:` (a list of HyperNode objects, from_labels or file)");
  }
  for (const auto& [k, v] : config.args) {
    if (!known_arg(k)) {
      throw std::invalid_argument("unknown argument '" + k +
                                  "' (volcano reads mode, highest_tier_allowed, "
                                  "highest_tier_name, the "
                                  "network-topology-aware plugin's keys and binpack.*)");
    }
  }
  const auto mode = config.args.find("mode");
  const auto tier = config.args.find("highest_tier_allowed");
  const auto tier_name = config.args.find("highest_tier_name");
  if (mode != config.args.end()) {
    if (mode->second != "hard" && mode->second != "soft") {
      throw std::invalid_argument("argument 'mode': expected hard or soft, not '" + mode->second +
                                  "'");
    }
    volcano::NetworkTopology t;
    t.hard = mode->second == "hard";
    if (t.hard && tier == config.args.end() && tier_name == config.args.end()) {
      throw std::invalid_argument("mode hard needs highest_tier_allowed or highest_tier_name");
    }
    default_topology_ = t;
  }
  if (tier_name != config.args.end()) {
    if (!default_topology_ || tier != config.args.end() || tier_name->second.empty()) {
      throw std::invalid_argument(
          "argument 'highest_tier_name': expected a HyperNode tierName with mode, without "
          "highest_tier_allowed");
    }
    default_topology_->highest_tier_name = tier_name->second;
  }
  if (tier != config.args.end()) {
    std::size_t used = 0;
    int v = -1;
    try {
      v = std::stoi(tier->second, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != tier->second.size() || v < 0 || !default_topology_) {
      throw std::invalid_argument(
          "argument 'highest_tier_allowed': expected a tier (an integer of at least 0) with mode");
    }
    default_topology_->highest_tier = v;
  }
}

const std::string& VolcanoPolicy::reason(int id) const {
  static const std::string none;
  const auto it = reasons_.find(id);
  return it == reasons_.end() ? none : it->second;
}

void VolcanoPolicy::build_tree(const ClusterView& cluster) {
  for (const NodeInfo& n : cluster.nodes) {
    node_index_[n.node.name] = static_cast<int>(nodes_.size());
    nodes_.push_back(n.node);
  }
  const std::vector<volcano::HyperNodeSpec> specs =
      source_->label_keys.empty() ? source_->listed
                                  : volcano::hypernodes_from_labels(source_->label_keys, nodes_);
  tree_ = std::make_unique<volcano::HyperNodeTree>(specs, nodes_);
  tier_names_ = volcano::tier_names(specs);
}

volcano::JobRequest VolcanoPolicy::request(const JobView& job) const {
  volcano::JobRequest r;
  volcano::Task t;
  const workloads::PartitionPolicySpec* partitions = nullptr;
  if (job.spec != nullptr) {
    t.request = amounts(job.spec->pod_template.requests);
    t.node_selector = job.spec->pod_template.node_selector;
    const std::optional<workloads::GangSpec>& gang = job.spec->gang;
    if (gang && gang->network_topology) {
      r.topology = topology_of(*gang->network_topology);
    } else if (gang && job.replicas > 1) {
      r.topology = default_topology_;
    }
    if (gang && gang->partition_policy) {
      partitions = &*gang->partition_policy;
    }
  } else {
    t.request["nvidia.com/gpu"] = job.gpus_per_replica;
  }
  t.request["pods"] = 1;
  r.tasks.assign(static_cast<std::size_t>(job.replicas), t);
  r.min_available = job.replicas;  // a tidesim job's gang is all of its pods
  if (partitions != nullptr) {
    // The PodGroup's subGroupPolicy as Volcano's job controller writes it, and the partition
    // label it gives pod i; the task's minAvailable is minPartitions x partitionSize when
    // minPartitions is set (the job webhook's default), else all its pods.
    volcano::SubGroupPolicy p;
    p.name = "task";
    p.match_label_keys = {workloads::kPartitionIdLabel};
    if (partitions->network_topology) {
      p.topology = topology_of(*partitions->network_topology);
    }
    p.sub_group_size = partitions->partition_size;
    p.min_sub_groups = partitions->min_partitions;
    r.sub_groups.push_back(std::move(p));
    for (std::size_t i = 0; i < r.tasks.size(); ++i) {
      r.tasks[i].labels[workloads::kPartitionIdLabel] =
          std::to_string(static_cast<int>(i) / partitions->partition_size);
    }
    if (partitions->min_partitions > 0) {
      r.min_available =
          std::min(job.replicas, partitions->min_partitions * partitions->partition_size);
    }
  }
  return r;
}

std::vector<volcano::Amounts> VolcanoPolicy::used_now(const JobPolicyState& state) const {
  std::vector<volcano::Amounts> used(nodes_.size());
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const NodeInfo& n = state.cluster->nodes[i];
    // A cordoned node (down for repair) takes no task (Volcano's predicates: the node is
    // unschedulable): it counts as full.
    used[i] = amounts(n.node.unschedulable ? n.node.allocatable : n.requested);
    used[i]["pods"] = n.node.unschedulable ? kMaxPods : static_cast<std::int64_t>(n.pods.size());
  }
  // Admitted jobs' pods not bound yet count on the nodes Volcano gave them.
  for (const JobView& j : state.jobs) {
    const auto plan = plans_.find(j.id);
    if (!j.admitted || plan == plans_.end()) {
      continue;
    }
    std::map<int, int> unbound;
    for (const int n : plan->second) {
      if (n >= 0) {  // a task left pending holds nothing
        ++unbound[n];
      }
    }
    const std::vector<int> bound = j.replica_placement();
    for (std::size_t k = 0; k < j.nodes.size() && k < bound.size(); ++k) {
      if (const auto it = node_index_.find(j.nodes[k]); it != node_index_.end()) {
        unbound[it->second] -= bound[k];
      }
    }
    const volcano::Task t = request(j).tasks.front();
    for (const auto& [n, count] : unbound) {
      for (int c = 0; c < count; ++c) {
        for (const auto& [k, v] : t.request) {
          used[static_cast<std::size_t>(n)][k] += v;
        }
      }
    }
  }
  return used;
}

JobDecision VolcanoPolicy::decide(const JobPolicyState& state) {
  JobDecision d;
  if (state.cluster == nullptr) {
    return d;
  }
  if (!tree_) {
    build_tree(*state.cluster);
  }
  std::vector<volcano::Amounts> allocatable(nodes_.size());
  std::vector<std::map<std::string, std::string>> labels(nodes_.size());
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    allocatable[i] = amounts(nodes_[i].allocatable);
    allocatable[i]["pods"] = kMaxPods;
    labels[i] = nodes_[i].labels;
  }
  volcano::Allocator alloc(*tree_, std::move(labels), std::move(allocatable), used_now(state),
                           args_);
  alloc.set_tier_names(tier_names_);
  std::map<int, std::vector<int>> kept;
  std::vector<const JobView*> waiting;
  std::vector<const JobView*> partial;  // admitted (ready) gangs with pods still unplaced
  for (const JobView& j : state.jobs) {
    if (j.admitted) {
      d.run.push_back(j.id);
      if (const auto p = plans_.find(j.id); p != plans_.end()) {
        std::vector<int>& plan = kept[j.id] = p->second;
        for (const int k : j.held) {
          if (static_cast<std::size_t>(k) < plan.size()) {
            plan[static_cast<std::size_t>(k)] = -1;  // its pod was replaced: placed anew
          }
        }
        if (std::find(plan.begin(), plan.end(), -1) != plan.end()) {
          partial.push_back(&j);
        }
      }
    } else {
      waiting.push_back(&j);
    }
  }
  const auto by_submission = [](const JobView* a, const JobView* b) {
    return a->submitted != b->submitted ? a->submitted < b->submitted : a->order < b->order;
  };
  std::sort(waiting.begin(), waiting.end(), by_submission);
  std::sort(partial.begin(), partial.end(), by_submission);
  reasons_.clear();
  // The gang plugin's job order puts the jobs that are not ready first (gang.go, jobOrderFn):
  // the waiting gangs, then the ready ones with pending tasks.
  for (const JobView* j : waiting) {
    const volcano::JobRequest r = request(*j);
    const volcano::Allocation a = alloc.allocate(r);
    if (!a.ready) {
      reasons_[j->id] = a.reason;
      continue;
    }
    // A ready gang is bound (allocate.go commits the statement once ssn.JobReady): the tasks it
    // placed; those left pending (minPartitions below the partitions) wait for a later decision.
    alloc.commit(r, a);
    d.run.push_back(j->id);
    kept[j->id] = a.nodes;
    d.pod_nodes[j->id] = names(a.nodes);
  }
  for (const JobView* j : partial) {
    std::vector<int>& plan = kept.at(j->id);
    volcano::JobRequest r = request(*j);
    for (std::size_t k = 0; k < r.tasks.size() && k < plan.size(); ++k) {
      r.tasks[k].node = plan[k];  // placed already: the session sees it allocated
    }
    const volcano::Allocation a = alloc.allocate(r);
    if (!a.ready || a.nodes == plan) {
      continue;
    }
    alloc.commit(r, a);
    plan = a.nodes;
    d.pod_nodes[j->id] = names(a.nodes);
  }
  plans_ = std::move(kept);
  std::sort(d.run.begin(), d.run.end());
  return d;
}

std::vector<std::string> VolcanoPolicy::names(const std::vector<int>& nodes) const {
  std::vector<std::string> out;
  for (const int n : nodes) {
    out.push_back(n < 0 ? std::string() : nodes_[static_cast<std::size_t>(n)].name);
  }
  return out;
}

}  // namespace tidesim
