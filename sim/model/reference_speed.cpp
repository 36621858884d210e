#include "tidesim/sim/model/reference_speed.hpp"

#include <algorithm>
#include <limits>

#include "tidesim/sim/model/cluster.hpp"
#include "tidesim/sim/model/ring_path.hpp"

namespace tidesim {

std::string default_reference_gpu(const Scenario& scenario) {
  if (!scenario.workload.reference_gpu.empty()) {
    return scenario.workload.reference_gpu;
  }
  std::map<std::string, std::int64_t> gpus;
  std::map<std::pair<std::string, std::string>, int> per_node;  // by topology and model
  for (const NodeGroup& g : scenario.cluster.groups) {
    if (g.gpu_model.empty()) {
      continue;
    }
    int count = g.gpus;
    if (count < 0) {
      auto [it, fresh] = per_node.try_emplace({g.topology, g.gpu_model}, 0);
      if (fresh) {
        it->second = group_topology(g, scenario.folder).gpu_count();
      }
      count = it->second;
    }
    gpus[g.gpu_model] += static_cast<std::int64_t>(count) * g.count;
  }
  std::string best;
  std::int64_t most = -1;
  for (const auto& [model, n] : gpus) {  // in name order: the first of equals wins
    if (n > most) {
      best = model;
      most = n;
    }
  }
  return best;
}

struct ReferenceSpeed::Reference {
  Scenario scenario;  // the cluster's groups of one GPU model, at most `nodes` nodes
  FluidSolver fluid;
  std::unique_ptr<Cluster> cluster;
  int nodes = 0;  // nodes built
  int total = 0;  // nodes of the model in the cluster
};

ReferenceSpeed::ReferenceSpeed(const Scenario& scenario) : scenario_(scenario) {}
ReferenceSpeed::~ReferenceSpeed() = default;

ReferenceSpeed::Reference* ReferenceSpeed::reference(const std::string& gpu, int nodes) {
  std::unique_ptr<Reference>& ref = references_[gpu];
  if (ref && (ref->total == 0 || ref->nodes >= nodes || ref->nodes == ref->total)) {
    return ref->total > 0 ? ref.get() : nullptr;
  }
  int total = 0;
  for (const NodeGroup& g : scenario_.cluster.groups) {
    total += g.gpu_model == gpu ? g.count : 0;
  }
  // Grow by doubling, so that a workload of rising sizes builds O(log) references.
  const int want = std::min(total, std::max(nodes, ref ? 2 * ref->nodes : nodes));
  ref = std::make_unique<Reference>();
  ref->scenario.folder = scenario_.folder;
  ref->scenario.cluster.fabric = scenario_.cluster.fabric;
  ref->scenario.cluster.shared_storage = scenario_.cluster.shared_storage;
  ref->total = total;
  int left = want;
  for (const NodeGroup& g : scenario_.cluster.groups) {
    if (g.gpu_model == gpu && left > 0) {
      NodeGroup copy = g;
      copy.count = std::min(g.count, left);
      copy.unschedulable = false;
      copy.taints.clear();
      left -= copy.count;
      ref->scenario.cluster.groups.push_back(std::move(copy));
    }
  }
  ref->nodes = want;
  if (want == 0) {
    return nullptr;
  }
  try {
    ref->cluster = std::make_unique<Cluster>(ref->scenario, ref->fluid);
  } catch (const InputError&) {
    // A node group the run itself refuses (its Cluster names the first bad group): no reference.
    ref->total = 0;
    return nullptr;
  }
  return ref.get();
}

// Binds the job's pods first-fit onto the reference nodes in order (the device plugin chooses
// their cards, as in a run), takes its ring, and unbinds them. nullopt when they do not fit.
std::optional<workloads::StepConditions> ReferenceSpeed::place(Reference& ref,
                                                               const workloads::JobSpec& job) {
  Cluster& cluster = *ref.cluster;
  std::vector<PodPlace> places;
  std::vector<std::string> names;
  const int nodes = static_cast<int>(cluster.nodes().size());
  int node = 0;
  for (int i = 0; i < job.replicas && node < nodes; ++i) {
    auto pod = std::make_shared<PodSpec>(job.pod_template);
    pod->name = "reference-" + std::to_string(i);
    while (node < nodes) {
      const auto process = static_cast<std::uint64_t>(i) + 1;
      if (auto cards = cluster.bind(node, process, pod, TimePoint{})) {
        places.push_back(PodPlace{node, std::move(*cards)});
        names.push_back(pod->name);
        break;
      }
      ++node;
    }
  }
  std::optional<workloads::StepConditions> out;
  if (static_cast<int>(places.size()) == job.replicas) {
    const RingPath ring = ring_path(cluster, ref.fluid, places);
    workloads::StepConditions c;
    c.gpus = static_cast<int>(std::max<std::int64_t>(1, workloads::job_gpus(job)));
    if (!ring.path.empty() && ring.alone > 0) {
      c.allreduce_bandwidth = ring.alone;
      c.allreduce_latency = ring.latency;
    }
    out = c;
  }
  for (std::size_t i = 0; i < places.size(); ++i) {
    cluster.unbind(places[i].node, static_cast<std::uint64_t>(i) + 1, names[i]);
  }
  return out;
}

workloads::StepConditions ReferenceSpeed::conditions(const workloads::JobSpec& job,
                                                     const std::string& gpu) {
  workloads::StepConditions none;
  none.gpus = static_cast<int>(std::max<std::int64_t>(1, workloads::job_gpus(job)));
  const auto& r = job.pod_template.requests;
  if (none.gpus <= 1 || gpu.empty()) {
    return none;
  }
  const auto key = std::make_tuple(gpu, r.gpus, r.gpu_milli, job.replicas);
  if (const auto it = cache_.find(key); it != cache_.end()) {
    return it->second;
  }
  // The nodes the pods fill at least (whole pods per node), then all of them if they do not
  // fit those (a node group with fewer GPUs).
  workloads::StepConditions c = none;
  if (Reference* ref = reference(gpu, 1)) {
    const int node_gpus = ref->cluster->node(0).topology->gpu_count();
    const int per_node =
        std::max(1, node_gpus / static_cast<int>(std::max<std::int64_t>(1, r.gpus)));
    ref = reference(gpu, (job.replicas + per_node - 1) / per_node);
    std::optional<workloads::StepConditions> placed = place(*ref, job);
    if (!placed && ref->nodes < ref->total) {
      ref = reference(gpu, ref->total);
      placed = place(*ref, job);
    }
    c = placed.value_or(none);
  }
  cache_.emplace(key, c);
  return c;
}

}  // namespace tidesim
