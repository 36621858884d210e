// The topology metrics (sim/metrics/topology.hpp) on hand-worked samples and topology events.
#include "tidesim/sim/metrics/topology.hpp"

#include <gtest/gtest.h>

namespace tidesim::metrics {
namespace {

using namespace std::chrono_literals;

ClusterSample sample(TimePoint at, std::vector<int> allocated) {
  ClusterSample s;
  s.at = at;
  for (std::size_t k = 0; k < allocated.size(); ++k) {
    NodeState n;
    n.name = "n" + std::to_string(k);
    n.gpus_allocatable = 8;
    n.gpus_allocated = allocated[k];
    s.nodes.push_back(n);
  }
  return s;
}

TEST(TopologyMetrics, StrandedGpusInPartlyUsedDomains) {
  // Four 8-GPU nodes, leaves {n0, n1} and {n2, n3}. 0-10 s: n0 uses 4: leaf 0 is partly used
  // and strands its 12 free GPUs; 10-20 s: n0 and n1 full, leaf 1 empty: nothing stranded.
  // stranded_gpus_mean = 12 x 10 / 20 = 6; free GPU-time = 28 x 10 + 16 x 10 = 440, stranded
  // share = 120 / 440.
  TopologyCollector c(TopologyOptions{{"leaf"}, {{0, 0, 1, 1}}});
  c.on_sample(sample(TimePoint{}, {4, 0, 0, 0}));
  c.on_sample(sample(TimePoint(10s), {8, 8, 0, 0}));
  MetricValues out;
  c.finish(TimePoint(20s), out);
  EXPECT_DOUBLE_EQ(out.at("stranded_gpus_mean/leaf"), 6.0);
  EXPECT_DOUBLE_EQ(out.at("stranded_gpus_share/leaf"), 120.0 / 440.0);
  EXPECT_FALSE(out.contains("tas_admitted"));  // no topology events
}

TEST(TopologyMetrics, SpanWaitAndRefusals) {
  // G refused at 1 s (twice, the same reason counted once by the admission layer), admitted at
  // 5 s after 4 s, on 1 leaf and 2 hosts; H admitted at once on 2 leaves and 2 hosts.
  TopologyCollector c;
  TopologyEvent g;
  g.job = "G";
  g.reason = "does not fit";
  c.on_topology(g);
  g.admitted = true;
  g.reason.clear();
  g.topology_wait_s = 4.0;
  g.span = {{"network.topology.nvidia.com/leaf", 1}, {"kubernetes.io/hostname", 2}};
  c.on_topology(g);
  TopologyEvent h = g;
  h.job = "H";
  h.topology_wait_s = 0.0;
  h.span = {{"network.topology.nvidia.com/leaf", 2}, {"kubernetes.io/hostname", 2}};
  c.on_topology(h);
  MetricValues out;
  c.finish(TimePoint(20s), out);
  EXPECT_EQ(out.at("tas_admitted"), 2);
  EXPECT_EQ(out.at("tas_refusals"), 1);
  EXPECT_EQ(out.at("tas_refused_jobs"), 1);
  EXPECT_DOUBLE_EQ(out.at("tas_topology_wait_mean_s"), 2.0);
  EXPECT_DOUBLE_EQ(out.at("tas_span_mean/leaf"), 1.5);
  EXPECT_DOUBLE_EQ(out.at("tas_span_mean/hostname"), 2.0);
  EXPECT_FALSE(out.contains("stranded_gpus_mean/leaf"));  // no fabric
}

}  // namespace
}  // namespace tidesim::metrics
