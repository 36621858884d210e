#pragma once
// The cluster of the job-level policies' placement tests: two nodes of two GPUs each, nothing
// bound (tiresias_artifact_test, optimus_test, pollux_test).
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

}  // namespace tidesim::testing
