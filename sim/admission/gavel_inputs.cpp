#include "tidesim/sim/admission/gavel_inputs.hpp"

#include <algorithm>
#include <exception>
#include <string>

namespace tidesim::gavel {

namespace {

constexpr const char* kGpuProduct = "nvidia.com/gpu.product";
constexpr const char* kGpuCount = "nvidia.com/gpu.count";

// The rank of type `t` in the walk: its place in `order`, else after all of them.
std::size_t rank(const std::vector<std::string>& order, const std::string& t) {
  return static_cast<std::size_t>(std::find(order.begin(), order.end(), t) - order.begin());
}

}  // namespace

GpuTypes gpu_types_of(const ClusterView& view, const std::map<std::string, std::string>& names,
                      const std::vector<std::string>& order) {
  std::map<std::string, std::vector<std::pair<std::string, int>>> nodes;  // type -> (node, GPUs)
  for (const NodeInfo& info : view.nodes) {
    auto gpus = info.node.allocatable.gpus;
    if (gpus <= 0) {
      continue;
    }
    // The cards (GPU feature discovery's count): a time-sliced node advertises cards x replicas.
    if (const auto count = info.node.labels.find(kGpuCount); count != info.node.labels.end()) {
      try {
        gpus = std::min<decltype(gpus)>(gpus, std::stoi(count->second));
      } catch (const std::exception&) {
        throw AllocationError("gavel: node " + info.node.name + " has a " + kGpuCount +
                              " label that is not a count: '" + count->second + "'");
      }
    }
    const auto label = info.node.labels.find(kGpuProduct);
    if (label == info.node.labels.end() || label->second.empty()) {
      throw AllocationError("gavel: node " + info.node.name + " has GPUs but no " + kGpuProduct +
                            " label (its GPU model)");
    }
    const auto name = names.find(label->second);
    nodes[name == names.end() ? label->second : name->second].emplace_back(info.node.name,
                                                                           static_cast<int>(gpus));
  }
  GpuTypes out;
  for (const auto& [type, list] : nodes) {
    out.types.push_back(type);
  }
  std::stable_sort(out.types.begin(), out.types.end(),
                   [&](const auto& a, const auto& b) { return rank(order, a) < rank(order, b); });
  int next = 0;
  for (const std::string& type : out.types) {
    std::vector<std::vector<int>> servers;
    int count = 0;
    for (const auto& [node, gpus] : nodes.at(type)) {
      std::vector<int> ids;
      for (int g = 0; g < gpus; ++g) {
        ids.push_back(next++);
        out.node_of_gpu.push_back(node);
      }
      count += gpus;
      servers.push_back(std::move(ids));
    }
    out.servers.push_back(std::move(servers));
    out.gpus.push_back(count);
  }
  return out;
}

AllocationProblem problem_from_table(const workloads::ThroughputTable& table,
                                     const std::vector<TableJob>& jobs, const GpuTypes& types) {
  AllocationProblem p;
  p.cluster = {.gpu_types = types.types, .gpus = types.gpus, .prices = {}};
  std::vector<workloads::JobTypeKey> keys;
  for (const TableJob& job : jobs) {
    AllocationJob j;
    j.id = job.id;
    j.throughput = table.isolated_row(job.key, types.types, SourceLocation{.file = table.file},
                                      "job " + std::to_string(job.id));
    j.scale_factor = job.key.scale_factor;
    j.priority_weight = job.priority_weight;
    j.time_since_start_s = job.time_since_start_s;
    j.steps_remaining = job.steps_remaining;
    j.slo_s = job.slo_s;
    p.jobs.push_back(std::move(j));
    keys.push_back(job.key);
  }
  const std::vector<std::string> names = types.types;
  p.colocated = [&table, keys, names](std::size_t a, std::size_t b,
                                      std::size_t t) -> std::optional<Colocated> {
    const auto pair = table.colocated(names.at(t), keys.at(a), keys.at(b));
    if (!pair) {
      return std::nullopt;
    }
    return Colocated{pair->self, pair->other};
  };
  return p;
}

}  // namespace tidesim::gavel
