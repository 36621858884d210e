#include "tidesim/sim/model/ring_path.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "tidesim/sim/scenario/scenario.hpp"

namespace tidesim {
namespace {

void expect_same(const RingPath& got, const RingPath& want) {
  EXPECT_EQ(got.path, want.path);
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

}  // namespace
}  // namespace tidesim
