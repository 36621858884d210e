#include "tidesim/sim/experiments/fit_warnings.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "tidesim/sim/input/units.hpp"

namespace tidesim {
namespace {

bool fits(const Resources& want, const Resources& node) {
  return want.gpus <= node.gpus && want.cpu_milli <= node.cpu_milli &&
         want.memory_bytes <= node.memory_bytes;
}

std::string describe(std::int64_t gpus, std::int64_t cpu_milli, std::int64_t memory) {
  return fmt::format("{} GPU{}, {:g} CPU, {} memory", gpus, gpus == 1 ? "" : "s",
                     static_cast<double>(cpu_milli) / 1000.0, format_bytes(memory));
}

}  // namespace

std::vector<std::string> fit_warnings(const std::vector<workloads::JobSpec>& jobs,
                                      const ClusterView& view) {
  // Each distinct (GPUs, CPU, memory) request once, with its first job and how many jobs ask it.
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>,
           std::pair<const workloads::JobSpec*, int>>
      shapes;
  std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>> order;
  for (const auto& job : jobs) {
    const Resources& r = job.pod_template.requests;
    const auto key = std::make_tuple(r.gpus, r.cpu_milli, r.memory_bytes);
    auto [it, inserted] = shapes.emplace(key, std::make_pair(&job, 0));
    if (inserted) {
      order.push_back(key);
    }
    ++it->second.second;
  }
  std::int64_t most_gpus = 0;
  std::int64_t most_cpu = 0;
  std::int64_t most_memory = 0;
  for (const auto& n : view.nodes) {
    most_gpus = std::max(most_gpus, n.node.allocatable.gpus);
    most_cpu = std::max(most_cpu, n.node.allocatable.cpu_milli);
    most_memory = std::max(most_memory, n.node.allocatable.memory_bytes);
  }
  std::vector<std::string> out;
  for (const auto& key : order) {
    const auto& [job, count] = shapes.at(key);
    const Resources& want = job->pod_template.requests;
    const std::string more =
        count > 1 ? fmt::format(" and {} more with the same request", count - 1) : "";
    // "memory: 192" is 192 bytes, as Kubernetes reads it: legal, and hardly what was meant.
    if (want.memory_bytes > 0 && want.memory_bytes < (std::int64_t{1} << 20)) {
      out.push_back(fmt::format(
          "job '{}'{}: each pod asks {} bytes of memory, less than 1 MiB; a number without a "
          "unit is bytes (did you mean {}Gi?)",
          job->name, more, want.memory_bytes, want.memory_bytes));
    }
    const bool some_node = std::any_of(view.nodes.begin(), view.nodes.end(), [&](const auto& n) {
      return fits(want, n.node.allocatable);
    });
    if (some_node) {
      continue;
    }
    out.push_back(fmt::format(
        "job '{}'{}: each pod asks {}, which no node can allocate (the most any node has: {}); "
        "its pods will never bind",
        job->name, more, describe(want.gpus, want.cpu_milli, want.memory_bytes),
        describe(most_gpus, most_cpu, most_memory)));
  }
  return out;
}

}  // namespace tidesim
