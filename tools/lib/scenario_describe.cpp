#include "tidesim/tools/lib/scenario_describe.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <utility>
#include <vector>

namespace tidesim::app {

namespace {

std::string file_name(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

std::string plural(long long n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace

std::string describe_cluster(const ClusterConfig& cluster) {
  long long nodes = 0;
  // Per (model, GPUs per node), in the order first seen.
  std::vector<std::pair<std::pair<std::string, int>, long long>> kinds;
  for (const NodeGroup& g : cluster.groups) {
    nodes += g.count;
    const std::pair<std::string, int> kind{g.gpu_model, g.gpus};
    auto it = kinds.begin();
    while (it != kinds.end() && it->first != kind) {
      ++it;
    }
    if (it == kinds.end()) {
      kinds.push_back({kind, g.count});
    } else {
      it->second += g.count;
    }
  }
  std::string out = plural(nodes, "node", "nodes");
  if (cluster.nodes_from) {
    return out + " from " + file_name(cluster.nodes_from->file);
  }
  std::string parts;
  for (const auto& [kind, count] : kinds) {
    std::string part = fmt::format("{} x {}", count, kind.first.empty() ? "CPU-only" : kind.first);
    if (!kind.first.empty() && kind.second >= 0) {
      part += fmt::format(" ({} GPU{} each)", kind.second, kind.second == 1 ? "" : "s");
    }
    parts += (parts.empty() ? "" : ", ") + part;
  }
  return parts.empty() ? out : out + ": " + parts;
}

std::string describe_workload(const workloads::WorkloadSpec& workload) {
  using Process = workloads::ArrivalSpec::Process;
  if (workload.pollux) {
    if (const auto& g = workload.pollux->generate) {
      return fmt::format("Pollux workload of {} jobs generated from {}", g->jobs,
                         file_name(g->trace));
    }
    return "Pollux workload " + file_name(workload.pollux->file);
  }
  if (workload.trace) {
    return "trace " + file_name(workload.trace->file);
  }
  std::string names;
  for (const auto& m : workload.mix) {
    names += (names.empty() ? "" : ", ") + m.name;
  }
  std::string out = plural(static_cast<long long>(workload.mix.size()), "job kind", "job kinds");
  if (!names.empty()) {
    out += " (" + names + ")";
  }
  if (workload.arrivals) {
    static const std::map<Process, const char*> kProcess{{Process::kBurst, "at once"},
                                                         {Process::kPoisson, "Poisson arrivals"},
                                                         {Process::kDiurnal, "diurnal arrivals"}};
    out += fmt::format(", {}, {}", plural(workload.arrivals->count, "job", "jobs"),
                       kProcess.at(workload.arrivals->process));
  }
  return out;
}

}  // namespace tidesim::app
