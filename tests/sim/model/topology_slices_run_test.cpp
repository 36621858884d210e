// Kueue's multi-layer slices (`kueue.x-k8s.io/podset-slice-required-topology-constraints`) in
// runs (sim/model/topology_admission.hpp), placed by tas::TasSnapshot::find_assignments as
// `tidesim admit` and the ported Kueue cases place them: hand-worked runs on
// tests/sim/data/tas-slices-run.yaml (eight one-GPU nodes, leaves of two under spines of four:
// gpu-01/02 and gpu-03/04 under the first spine, gpu-05/06 and gpu-07/08 under the second) with a
// 2-pod gang G submitted at 1 s after one-pod fillers pinned to their nodes at 0 s.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/common/gang_run.hpp"
#include "tidesim/sim/experiments/run.hpp"

namespace tidesim {
namespace {

constexpr const char* kSpine = "network.topology.nvidia.com/spine";
constexpr const char* kLeaf = "network.topology.nvidia.com/leaf";
constexpr const char* kConstraints = "kueue.x-k8s.io/podset-slice-required-topology-constraints";

using test::Filler;

using Outcome = test::TopologyGangOutcome;

// G with the podset annotations `annotations`, after `fillers`.
Outcome run_gang(const std::map<std::string, std::string>& annotations,
                 const std::vector<Filler>& fillers) {
  const Scenario s = load_scenario("tests/sim/data/tas-slices-run.yaml");
  Workload w = test::gang_after_fillers(s, fillers);
  w.jobs.back().pod_template.annotations = annotations;
  RunSignals signals;
  Outcome o;
  test::run_recording_topology(s, w, "", signals, o);
  return o;
}

// Slices of 2 pods within a spine, each made of one slice of 2 within a leaf.
std::map<std::string, std::string> two_layers() {
  return {{kConstraints, std::string(R"([{"topology": ")") + kSpine + R"(", "size": 2}, )" +
                             R"({"topology": ")" + kLeaf + R"(", "size": 2}])"}};
}

// Within 1 s of the hand-worked times (binds take scheduling cycles; steps are whole).
constexpr double kTol = 1.0;

TEST(TopologySlicesRun, TheInnerLayerKeepsEachSliceInOneLeaf) {
  // F1..F3 hold gpu-02, gpu-04 and gpu-05. Free: gpu-01, gpu-03 under the first spine (one per
  // leaf), gpu-06, gpu-07, gpu-08 under the second (gpu-07/08 one whole leaf). Slices alone
  // place at the top level with LeastFreeCapacity (KEP-2724, useLeastFreeCapacityAlgorithm).
  // With the inner layer a leaf contributes ⌊free/2⌋ x 2 pods: the first spine 0, the second 2
  // (leaf gpu-07/08), so the one slice goes to the second spine and inside it to that leaf.
  const Outcome o = run_gang(two_layers(), {{"gpu-02", 3}, {"gpu-04", 3}, {"gpu-05", 3}});
  EXPECT_EQ(o.summary.succeeded, 4);
  EXPECT_EQ(o.nodes.at("G"), (std::multiset<std::string>{"gpu-07", "gpu-08"}));
  EXPECT_NEAR(o.bound_s.at("G"), 1.0, kTol);
  ASSERT_EQ(o.topology.size(), 1U);
  EXPECT_TRUE(o.topology[0].admitted) << o.topology[0].reason;
  // Its span: 1 spine, 1 leaf, 2 hosts.
  ASSERT_EQ(o.topology[0].span.size(), 3U);
  EXPECT_EQ(o.topology[0].span[0], (std::pair<std::string, int>{kSpine, 1}));
  EXPECT_EQ(o.topology[0].span[1], (std::pair<std::string, int>{kLeaf, 1}));
}

TEST(TopologySlicesRun, OneLayerAloneTakesTheSpineWithLeastFreeCapacity) {
  // The same cluster with only the outer layer: each spine holds one slice of 2 (the first 2
  // free pods, the second 3); LeastFreeCapacity takes the fewest slices, then the fewest pods:
  // the first spine, whose two free nodes are in different leaves.
  const Outcome o =
      run_gang({{kConstraints, std::string(R"([{"topology": ")") + kSpine + R"(", "size": 2}])"}},
               {{"gpu-02", 3}, {"gpu-04", 3}, {"gpu-05", 3}});
  EXPECT_EQ(o.nodes.at("G"), (std::multiset<std::string>{"gpu-01", "gpu-03"}));
  EXPECT_NEAR(o.bound_s.at("G"), 1.0, kTol);
  ASSERT_EQ(o.topology.size(), 1U);
  EXPECT_EQ(o.topology[0].span[1], (std::pair<std::string, int>{kLeaf, 2}));
}

TEST(TopologySlicesRun, NoWholeInnerSliceWaitsWithKueuesMultiLayerReason) {
  // F1 (100 s) holds gpu-02, F2..F4 (300 s) gpu-04, gpu-05 and gpu-07: every leaf has one free
  // node, so no leaf holds an inner slice of 2 although each spine has 2 free GPUs. G waits
  // with Kueue's multi-layer message (tas_flavor_snapshot.go, notFitMessage for
  // multi-layer slices: the spine with the most slices, the first by name on a tie, and its
  // slices of each layer) until F1 ends at 100 s; then gpu-01/02 is a whole leaf.
  const Outcome o =
      run_gang(two_layers(), {{"gpu-02", 1}, {"gpu-04", 3}, {"gpu-05", 3}, {"gpu-07", 3}});
  EXPECT_EQ(o.nodes.at("G"), (std::multiset<std::string>{"gpu-01", "gpu-02"}));
  EXPECT_NEAR(o.bound_s.at("G"), 100.0, kTol);
  ASSERT_EQ(o.topology.size(), 2U);
  EXPECT_FALSE(o.topology[0].admitted);
  // The first spine (0 slices, as the second): 0 of the 1 outer slice (its leaves contribute
  // ⌊1/2⌋ x 2 = 0 pods each), 0 of the 1 leaf slice; the four fillers' nodes have no GPU left.
  EXPECT_EQ(o.topology[0].reason,
            "topology \"default\" doesn't allow to fit; 0/1 slice(s) fit on level "
            "network.topology.nvidia.com/spine; 0/1 slice(s) fit on level "
            "network.topology.nvidia.com/leaf. Total nodes: 8; excluded: resource "
            "\"nvidia.com/gpu\": 4");
  EXPECT_TRUE(o.topology[1].admitted);
  EXPECT_NEAR(o.topology[1].topology_wait_s, 99.0, kTol);
}

}  // namespace
}  // namespace tidesim
