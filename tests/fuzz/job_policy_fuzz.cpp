// Fuzz harness: job-level policies on random jobs (issue 46). The input's bytes choose a built-in
// policy, a cluster (nodes of 1 to 8 GPUs) and up to 16 jobs (GPUs per pod, pods, elastic or
// fixed, attained service); the policy decides once, at a round. A decision must be one the
// admission controller can carry out: its chosen jobs' GPUs within the cluster's, and its pods
// placed (pod_nodes) on nodes that hold their GPUs. Pollux' search counting replicas against
// GPUs (2-GPU pods: jobs of 10 GPUs on 8) is what this harness finds; a std::logic_error names
// such a decision.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/fuzz/harness.hpp"
#include "tidesim/sim/admission/job_policy_registry.hpp"
#include "tidesim/sim/admission/pollux.hpp"
#include "tidesim/sim/api/cluster_view.hpp"

namespace tidesim::fuzz {
namespace {

// The input's bytes one at a time; 0 once they run out.
class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  int next(int below) { return below <= 0 || at_ >= size_ ? 0 : data_[at_++] % below; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

JobView random_job(int id, Bytes& in) {
  JobView j;
  j.id = id;
  j.name = "job-" + std::to_string(id);
  j.submitted = TimePoint(std::chrono::seconds(id));
  j.order = id;
  j.gpus_per_replica = 1 + in.next(4);
  j.replicas = 1 + in.next(4);
  j.elastic = in.next(2) == 1;
  j.min_replicas = j.elastic ? 1 : j.replicas;
  j.max_replicas = j.elastic ? j.replicas + in.next(8) : j.replicas;
  j.gpus = j.replicas * j.gpus_per_replica;
  j.attained_gpu_s = 60.0 * in.next(100);
  j.estimate_s = j.remaining_s = 60.0 * (1 + in.next(100));
  if (j.elastic) {
    j.min_batch = 32;
    j.max_batch = 4096;
    j.min_atomic_batch = 16;
    j.max_atomic_batch = 256;
  }
  return j;
}

// Throws std::logic_error when `d` is not a decision the admission controller can carry out.
void check_decision(const JobDecision& d, const JobPolicyState& s, const ClusterView& cluster) {
  std::map<int, const JobView*> jobs;
  for (const JobView& j : s.jobs) {
    jobs[j.id] = &j;
  }
  std::int64_t gpus = 0;
  std::map<std::string, std::int64_t> on_node;
  for (const int id : d.run) {
    const JobView& j = *jobs.at(id);
    const auto r = d.replicas.find(id);
    const int replicas = r == d.replicas.end() ? j.replicas : r->second;
    gpus += static_cast<std::int64_t>(replicas) * j.gpus_per_replica;
    if (const auto p = d.pod_nodes.find(id); p != d.pod_nodes.end()) {
      for (const std::string& node : p->second) {
        on_node[node] += j.gpus_per_replica;
      }
    }
  }
  if (gpus > s.capacity_gpus) {
    throw std::logic_error("chose jobs of " + std::to_string(gpus) + " GPUs on a cluster of " +
                           std::to_string(s.capacity_gpus));
  }
  for (const NodeInfo& n : cluster.nodes) {
    if (on_node[n.node.name] > n.node.allocatable.gpus) {
      throw std::logic_error("placed pods of " + std::to_string(on_node[n.node.name]) +
                             " GPUs on node " + n.node.name + " of " +
                             std::to_string(n.node.allocatable.gpus));
    }
  }
}

}  // namespace

int job_policy(const std::uint8_t* data, std::size_t size) {
  Bytes in(data, size);
  static const std::array<const char*, 7> kPolicies = {
      "fifo", "sjf", "srtf", "tiresias", "tiresias-artifact", "optimus", "pollux"};
  AdmissionConfig config;
  config.policy = kPolicies[static_cast<std::size_t>(in.next(kPolicies.size()))];
  config.seed = 1 + static_cast<std::uint64_t>(in.next(256));
  if (config.policy == "pollux") {
    config.typed_args = PolluxArgs{.population = 10, .generations = 5};
  }
  ClusterView cluster;
  const int nodes = 1 + in.next(6);
  JobPolicyState s;
  s.now = TimePoint(std::chrono::seconds(60));  // a round of the artifact's policies
  for (int n = 0; n < nodes; ++n) {
    NodeInfo info;
    info.node.name = "node-" + std::to_string(n);
    info.node.allocatable.gpus = 1 + in.next(8);
    s.capacity_gpus += info.node.allocatable.gpus;
    cluster.nodes.push_back(info);
  }
  const int count = in.next(17);
  for (int id = 0; id < count; ++id) {
    s.jobs.push_back(random_job(id, in));
  }
  s.cluster = &cluster;
  // Optimus' model of a job's time left: its work over its GPUs, with diminishing returns.
  s.remaining_seconds = [&s](int id, const std::vector<int>& placement, int) {
    int gpus = 0;
    for (const int g : placement) {
      gpus += g;
    }
    return s.jobs[static_cast<std::size_t>(id)].remaining_s / std::pow(std::max(gpus, 1), 0.8);
  };
  s.step_seconds = [&s](int id, const std::vector<int>& placement) {
    return s.remaining_seconds(id, placement, 0) / 1000.0;
  };
  const auto policy = make_job_policy(config);
  check_decision(policy->decide(s), s, cluster);
  return 0;
}

}  // namespace tidesim::fuzz

#ifdef TIDESIM_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tidesim::fuzz::job_policy(data, size);
}
#endif
