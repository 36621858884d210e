#pragma once
// The cluster of the job-level policies' placement tests: two nodes of two GPUs each, nothing
// bound; and their jobs' common fields (tiresias_artifact_test, optimus_test, pollux_test).
#include <chrono>
#include <string>

#include "tidesim/sim/admission/job_policy.hpp"
#include "tidesim/sim/api/cluster_view.hpp"

namespace tidesim::testing {

inline ClusterView two_nodes() {
  ClusterView c;
  for (const char* name : {"node-a", "node-b"}) {
    NodeInfo n;
    n.node.name = name;
    n.node.allocatable.gpus = 2;
    c.nodes.push_back(n);
  }
  return c;
}

/// Job `id`: named job-<id>, submitted at <id> s, <id>-th in submission order.
inline JobView job_view(int id) {
  JobView j;
  j.id = id;
  j.name = "job-" + std::to_string(id);
  j.submitted = TimePoint(std::chrono::seconds(id));
  j.order = id;
  return j;
}

}  // namespace tidesim::testing
