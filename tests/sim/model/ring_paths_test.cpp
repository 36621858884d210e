#include "tidesim/sim/model/ring_path.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "tests/common/temp_file.hpp"
#include "tidesim/sim/scenario/scenario.hpp"

namespace tidesim {
namespace {

void expect_same(const RingPath& got, const RingPath& want) {
  EXPECT_EQ(got.path, want.path);
  ASSERT_EQ(got.prepared.size(), want.prepared.size());
  for (std::size_t i = 0; i < got.prepared.size(); ++i) {
    EXPECT_EQ(got.prepared.uses()[i].index, want.prepared.uses()[i].index) << i;
    EXPECT_EQ(got.prepared.uses()[i].weight, want.prepared.uses()[i].weight) << i;
  }
  EXPECT_EQ(got.alone, want.alone);
  EXPECT_EQ(got.latency, want.latency);
  EXPECT_EQ(got.nic, want.nic);
}

std::vector<int> all_cards() {
  return {0, 1, 2, 3, 4, 5, 6, 7};
}

// RingPaths keeps a job's ring for its places: the same places give the kept ring, places with a
// pod moved (a node replaced by a spare) or capacities changed give ring_path()'s ring for the
// new places, resource for resource. Four HGX H100 nodes whose NICs reach the fabric at
// 8 x 400 Gbit/s = 400 GB/s (tests/sim/data/fabric_two_gangs.yaml).
TEST(RingPaths, KeptRingIsRingPathsForTheSamePlacesAndFollowsMovesAndCapacities) {
  const Scenario s = load_scenario("tests/sim/data/fabric_two_gangs.yaml");
  FluidSolver fluid;
  Cluster cluster(s, fluid);
  RingPaths paths;
  const std::vector<PodPlace> first{{0, all_cards()}, {2, all_cards()}};
  const RingPath& kept = paths.ring(7, cluster, fluid, first);
  expect_same(kept, ring_path(cluster, fluid, first));
  EXPECT_EQ(kept.nic, 400e9);
  EXPECT_FALSE(kept.path.empty());
  // Restarted in place: the kept ring itself.
  EXPECT_EQ(&paths.ring(7, cluster, fluid, first), &kept);
  // Node 2's pod moved to node 3 (the other leaf's second node): node 0's part is kept.
  const std::vector<PodPlace> moved{{0, all_cards()}, {3, all_cards()}};
  expect_same(paths.ring(7, cluster, fluid, moved), ring_path(cluster, fluid, moved));
  // Half the cards on node 0: its links change too.
  const std::vector<PodPlace> half{{0, {0, 1, 2, 3}}, {3, all_cards()}};
  expect_same(paths.ring(7, cluster, fluid, half), ring_path(cluster, fluid, half));
  // A third pod: every part is found again (a ring of another size).
  const std::vector<PodPlace> three{{0, all_cards()}, {1, all_cards()}, {3, all_cards()}};
  expect_same(paths.ring(7, cluster, fluid, three), ring_path(cluster, fluid, three));
  // Node 1's NICs at half their capacity: the same places, another ring bandwidth.
  fluid.set_capacity(cluster.node(1).uplink, 200e9);
  const RingPath& slower = paths.ring(7, cluster, fluid, three);
  expect_same(slower, ring_path(cluster, fluid, three));
  EXPECT_EQ(slower.nic, 200e9);
  // Another job's ring is kept apart; a forgotten job's is found again.
  expect_same(paths.ring(8, cluster, fluid, first), ring_path(cluster, fluid, first));
  paths.forget(7);
  expect_same(paths.ring(7, cluster, fluid, three), ring_path(cluster, fluid, three));
}

// Eight pods, one of them moved to a node of another leaf (a node replaced by a spare): the kept
// ring's prepared path is changed by that pod's part and the fabric's crossings instead of
// prepared again, and is ring_path()'s for the new places, use for use. Twelve HGX H100 nodes,
// leaves of four.
TEST(RingPaths, OnePodOfEightMovedChangesTheKeptPreparedPath) {
  const Scenario s = load_scenario(test::temp_file("ring-paths-eight", R"(name: eight
cluster:
  fabric:
    nics_per_node: 8
    nic_bandwidth: 400Gbit/s
    tiers:
      - {name: leaf, nodes: 4, oversubscription: 2}
  node_groups:
    - {name: h, count: 12, gpu: H100-SXM, topology: hgx-h100x8}
workload:
  arrivals: {process: burst, count: 1}
  jobs:
    - {name: g, replicas: 8, pod: {gpus: 8}, model: gpt2-1.5b, batch_size: 1, precision: fp32,
       steps: 10}
policies: [default-k8s]
)"));
  FluidSolver fluid;
  Cluster cluster(s, fluid);
  RingPaths paths;
  std::vector<PodPlace> places;
  for (int n = 0; n < 8; ++n) {
    places.push_back({n, all_cards()});
  }
  expect_same(paths.ring(1, cluster, fluid, places), ring_path(cluster, fluid, places));
  // Pod 3 to node 9: leaves 0 and 1 become 0, 1 and 2.
  places[3].node = 9;
  expect_same(paths.ring(1, cluster, fluid, places), ring_path(cluster, fluid, places));
  // And back: leaf 2 is crossed no more.
  places[3].node = 3;
  expect_same(paths.ring(1, cluster, fluid, places), ring_path(cluster, fluid, places));
  // Half of pod 5's cards: its node's links change, the nodes do not.
  places[5].cards = {0, 1, 2, 3};
  expect_same(paths.ring(1, cluster, fluid, places), ring_path(cluster, fluid, places));
  // Two pods moved at once (found whole again).
  places[0].node = 10;
  places[7].node = 11;
  expect_same(paths.ring(1, cluster, fluid, places), ring_path(cluster, fluid, places));
}

// A prepared path changed by crossings added and removed is the path prepared from the changed
// list: by hand, {r0, r1, r1, r3} less one r1 and r3, plus r2 and r0, is {r0 x2, r1, r2}.
TEST(FluidPathChange, IsThePreparedChangedList) {
  FluidSolver fluid;
  std::vector<ResourceId> r;
  for (int i = 0; i < 4; ++i) {
    r.push_back(fluid.add_resource(1.0 + i));
  }
  const FluidPath path = fluid.prepare({r[0], r[1], r[1], r[3]});
  const FluidPath changed =
      fluid.change(path, {{r[1], -1.0}, {r[3], -1.0}, {r[2], 1.0}, {r[0], 1.0}});
  const FluidPath want = fluid.prepare({r[0], r[0], r[1], r[2]});
  ASSERT_EQ(changed.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(changed.uses()[i].index, want.uses()[i].index);
    EXPECT_EQ(changed.uses()[i].weight, want.uses()[i].weight);
  }
  EXPECT_THROW((void)fluid.change(path, {{r[2], -1.0}}), std::invalid_argument);
  EXPECT_THROW((void)fluid.change(path, {{static_cast<ResourceId>(9), 1.0}}),
               std::invalid_argument);
}

}  // namespace
}  // namespace tidesim
