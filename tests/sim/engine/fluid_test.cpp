// Max-min fair sharing: every expected rate is computed by hand with progressive filling (raise
// all unfixed flows together; freeze the flows of the first resource to saturate; repeat).
#include "tidesim/sim/engine/fluid.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iterator>
#include <map>
#include <stdexcept>
#include <vector>

#include "tidesim/sim/engine/random.hpp"

namespace tidesim {
namespace {

TEST(FluidSolver, SingleBottleneckSharesEqually) {
  FluidSolver s;
  const ResourceId link = s.add_resource(10.0);
  const FlowId a = s.add_flow({link});
  const FlowId b = s.add_flow({link});
  EXPECT_EQ(s.update(), (std::vector<FlowId>{a, b}));
  // 10 / 2 flows.
  EXPECT_DOUBLE_EQ(s.rate(a), 5.0);
  EXPECT_DOUBLE_EQ(s.rate(b), 5.0);
  const FlowId c = s.add_flow({link});
  // 10 / 3 flows: all three change.
  EXPECT_EQ(s.update(), (std::vector<FlowId>{a, b, c}));
  EXPECT_DOUBLE_EQ(s.rate(c), 10.0 / 3.0);
  EXPECT_DOUBLE_EQ(s.load(link), 10.0);
  EXPECT_DOUBLE_EQ(s.utilisation(link), 1.0);
}

TEST(FluidSolver, TwoIndependentBottlenecks) {
  FluidSolver s;
  const ResourceId r1 = s.add_resource(10.0);
  const ResourceId r2 = s.add_resource(6.0);
  const FlowId a = s.add_flow({r1});
  const FlowId b = s.add_flow({r1});
  const FlowId c = s.add_flow({r2});
  const FlowId d = s.add_flow({r2});
  const FlowId e = s.add_flow({r2});
  s.update();
  // r1: 10 / 2 = 5; r2: 6 / 3 = 2.
  EXPECT_DOUBLE_EQ(s.rate(a), 5.0);
  EXPECT_DOUBLE_EQ(s.rate(b), 5.0);
  EXPECT_DOUBLE_EQ(s.rate(c), 2.0);
  EXPECT_DOUBLE_EQ(s.rate(d), 2.0);
  EXPECT_DOUBLE_EQ(s.rate(e), 2.0);
}

TEST(FluidSolver, FlowCrossingBothBottlenecks) {
  FluidSolver s;
  const ResourceId r1 = s.add_resource(10.0);
  const ResourceId r2 = s.add_resource(4.0);
  const FlowId a = s.add_flow({r1});
  const FlowId x = s.add_flow({r1, r2});
  const FlowId b = s.add_flow({r2});
  s.update();
  // Level rises to min(10/2, 4/2) = 2: r2 saturates, x and b freeze at 2.
  // r1 has 10 - 2 = 8 left for a alone.
  EXPECT_DOUBLE_EQ(s.rate(x), 2.0);
  EXPECT_DOUBLE_EQ(s.rate(b), 2.0);
  EXPECT_DOUBLE_EQ(s.rate(a), 8.0);
}

TEST(FluidSolver, ParkingLot) {
  // Two unit links in a row; one long flow crosses both, one short flow on each: all get 1/2.
  FluidSolver s;
  const ResourceId l1 = s.add_resource(1.0);
  const ResourceId l2 = s.add_resource(1.0);
  const FlowId lng = s.add_flow({l1, l2});
  const FlowId s1 = s.add_flow({l1});
  const FlowId s2 = s.add_flow({l2});
  s.update();
  EXPECT_DOUBLE_EQ(s.rate(lng), 0.5);
  EXPECT_DOUBLE_EQ(s.rate(s1), 0.5);
  EXPECT_DOUBLE_EQ(s.rate(s2), 0.5);
}

TEST(FluidSolver, RateBoundFreesCapacityForOthers) {
  FluidSolver s;
  const ResourceId r = s.add_resource(10.0);
  const FlowId a = s.add_flow({r}, 2.0);
  const FlowId b = s.add_flow({r});
  s.update();
  // a stops at its bound 2; b takes the remaining 8.
  EXPECT_DOUBLE_EQ(s.rate(a), 2.0);
  EXPECT_DOUBLE_EQ(s.rate(b), 8.0);
  s.set_max_rate(a, FluidSolver::kUnbounded);
  EXPECT_EQ(s.update(), (std::vector<FlowId>{a, b}));
  EXPECT_DOUBLE_EQ(s.rate(a), 5.0);
}

TEST(FluidSolver, DistinctBoundsFreezeRoundByRound) {
  FluidSolver s;
  const ResourceId r = s.add_resource(10.0);
  // Added out of bound order on purpose.
  const FlowId f3 = s.add_flow({r}, 3.0);
  const FlowId f1 = s.add_flow({r}, 1.0);
  const FlowId free_flow = s.add_flow({r});
  const FlowId f2 = s.add_flow({r}, 2.0);
  s.update();
  // Level 1 (f1's bound; share 10/4 = 2.5 is higher): f1 = 1, 9 left for 3 flows.
  // Level 2 (f2's bound; share 3): f2 = 2, 7 left for 2. Level 3 (f3's bound; share 3.5):
  // f3 = 3, 4 left for the unbounded flow.
  EXPECT_DOUBLE_EQ(s.rate(f1), 1.0);
  EXPECT_DOUBLE_EQ(s.rate(f2), 2.0);
  EXPECT_DOUBLE_EQ(s.rate(f3), 3.0);
  EXPECT_DOUBLE_EQ(s.rate(free_flow), 4.0);
}

TEST(FluidSolver, RepeatedResourceCountsTwice) {
  FluidSolver s;
  const ResourceId r = s.add_resource(9.0);
  const FlowId twice = s.add_flow({r, r});
  const FlowId once = s.add_flow({r});
  s.update();
  // 2x + x = 9 -> x = 3 for both; the resource carries 2*3 + 3 = 9.
  EXPECT_DOUBLE_EQ(s.rate(twice), 3.0);
  EXPECT_DOUBLE_EQ(s.rate(once), 3.0);
  EXPECT_DOUBLE_EQ(s.load(r), 9.0);
}

// A flow alone in its component (the solver's one-flow case): its rate is the smallest of its
// bound and each resource's capacity over the times it crosses it, the first round of
// progressive filling; exactly the rate it gets when a second flow joins and leaves again.
// Three resources of capacity 10, 3 and 7 (the alone-flow cases' hand-worked numbers).
struct ThreeResources {
  FluidSolver s;
  ResourceId wide = s.add_resource(10.0);
  ResourceId narrow = s.add_resource(3.0);
  ResourceId other = s.add_resource(7.0);
};

TEST(FluidSolver, FlowAloneRunsAtItsTightestResourceOrBound) {
  ThreeResources three;
  auto& [s, wide, narrow, other] = three;
  // Crossing `narrow` twice: min(10, 3 / 2, 7) = 1.5.
  const FlowId ring = s.add_flow({wide, narrow, other, narrow});
  EXPECT_EQ(s.update(), (std::vector<FlowId>{ring}));
  EXPECT_EQ(s.last_component_flows(), 1);
  EXPECT_EQ(s.last_component_resources(), 3);
  EXPECT_EQ(s.rate(ring), 1.5);
  EXPECT_DOUBLE_EQ(s.load(narrow), 3.0);
  // Bounded below that: its bound, 1.2.
  s.set_max_rate(ring, 1.2);
  EXPECT_EQ(s.update(), (std::vector<FlowId>{ring}));
  EXPECT_EQ(s.rate(ring), 1.2);
  // A second flow on `wide` (10): level 1.2 fixes the ring at its bound, the other takes the
  // remaining 10 - 1.2 = 8.8. Removed again, the ring keeps 1.2 and is not reported.
  const FlowId guest = s.add_flow({wide});
  s.update();
  EXPECT_EQ(s.rate(ring), 1.2);
  EXPECT_DOUBLE_EQ(s.rate(guest), 8.8);
  s.remove_flow(guest);
  EXPECT_TRUE(s.update().empty());
  EXPECT_EQ(s.rate(ring), 1.2);
  // A failed link (capacity 0) stops it.
  s.set_capacity(other, 0.0);
  s.update();
  EXPECT_EQ(s.rate(ring), 0.0);
}

TEST(FluidSolver, UpdateTouchesOnlyTheConnectedComponent) {
  FluidSolver s;
  const ResourceId r1 = s.add_resource(10.0);
  const ResourceId r2 = s.add_resource(10.0);
  const ResourceId r3 = s.add_resource(10.0);
  const FlowId a = s.add_flow({r1});
  const FlowId b = s.add_flow({r1, r2});
  const FlowId c = s.add_flow({r3});
  s.update();
  EXPECT_DOUBLE_EQ(s.rate(a), 5.0);
  EXPECT_DOUBLE_EQ(s.rate(b), 5.0);
  EXPECT_DOUBLE_EQ(s.rate(c), 10.0);
  // A new flow on r2 joins the component {a, b} (via b) and not c's.
  const FlowId d = s.add_flow({r2});
  const auto changed = s.update();
  EXPECT_EQ(s.last_component_flows(), 3);      // a, b, d
  EXPECT_EQ(s.last_component_resources(), 2);  // r1, r2
  // Level 5 saturates r1 (a, b) and r2 (b, d) at once; nothing else moves, only d is reported.
  EXPECT_EQ(changed, (std::vector<FlowId>{d}));
  EXPECT_DOUBLE_EQ(s.rate(d), 5.0);
  EXPECT_DOUBLE_EQ(s.rate(c), 10.0);
  // Removing a: b is still limited by r2 (10 / 2 = 5), so no rate changes.
  s.remove_flow(a);
  EXPECT_TRUE(s.update().empty());
  // Removing d: b alone on r1 and r2 -> 10.
  s.remove_flow(d);
  EXPECT_EQ(s.update(), (std::vector<FlowId>{b}));
  EXPECT_DOUBLE_EQ(s.rate(b), 10.0);
  EXPECT_EQ(s.flow_count(), 2);
}

TEST(FluidSolver, CapacityChangeRescalesItsFlows) {
  FluidSolver s;
  const ResourceId r = s.add_resource(10.0);
  const FlowId a = s.add_flow({r});
  s.update();
  s.set_capacity(r, 4.0);
  EXPECT_EQ(s.update(), (std::vector<FlowId>{a}));
  EXPECT_DOUBLE_EQ(s.rate(a), 4.0);
  s.set_capacity(r, 0.0);
  s.update();
  EXPECT_DOUBLE_EQ(s.rate(a), 0.0);
  EXPECT_DOUBLE_EQ(s.utilisation(r), 0.0);
}

TEST(FluidSolver, FlowOnNothingIsUnboundedOrAtItsBound) {
  FluidSolver s;
  const FlowId free_flow = s.add_flow({});
  const FlowId bounded = s.add_flow({}, 7.0);
  s.update();
  EXPECT_TRUE(std::isinf(s.rate(free_flow)));
  EXPECT_DOUBLE_EQ(s.rate(bounded), 7.0);
}

TEST(FluidSolver, RemovedIdsAreReusedAndNewFlowsReported) {
  FluidSolver s;
  const ResourceId r = s.add_resource(6.0);
  const FlowId a = s.add_flow({r});
  const FlowId b = s.add_flow({r});
  s.update();
  s.remove_flow(a);
  EXPECT_FALSE(s.alive(a));
  const FlowId c = s.add_flow({r});
  EXPECT_EQ(c, a);  // last freed, first reused
  // b keeps 3 (6 / 2), but c is new and must be reported.
  EXPECT_EQ(s.update(), (std::vector<FlowId>{a}));
  EXPECT_DOUBLE_EQ(s.rate(b), 3.0);
}

// A prepared path is the flow add_flow() makes: sorted, a resource crossed twice one use of
// weight 2; its level is the smallest capacity over weight (by hand: min(10, 3 / 2, 7) = 1.5).
TEST(FluidSolver, PreparedPathIsTheSameFlow) {
  ThreeResources three;
  auto& [s, wide, narrow, other] = three;
  const FluidPath path = s.prepare({other, narrow, wide, narrow});
  ASSERT_EQ(path.size(), 3U);
  EXPECT_EQ(path.uses()[0].index, 0);
  EXPECT_EQ(path.uses()[1].index, 1);
  EXPECT_EQ(path.uses()[1].weight, 2.0);
  EXPECT_EQ(path.uses()[2].index, 2);
  EXPECT_EQ(s.level(path), 1.5);
  EXPECT_EQ(s.level(FluidPath{}), FluidSolver::kUnbounded);
  // Added twice from the one path: the two rings share every resource, 0.75 each on `narrow`.
  const FlowId a = s.add_prepared(path);
  s.update();
  EXPECT_EQ(s.rate(a), 1.5);
  const FlowId b = s.add_prepared(path);
  s.update();
  EXPECT_EQ(s.rate(a), 0.75);
  EXPECT_EQ(s.rate(b), 0.75);
  EXPECT_THROW((void)s.prepare({static_cast<ResourceId>(3)}), std::invalid_argument);
  FluidSolver smaller;
  EXPECT_THROW(smaller.add_prepared(path), std::invalid_argument);
}

// The solver re-solves only what changed, and rates a flow alone from the level it keeps: after
// every step of a random sequence of additions, removals, bound and capacity changes, each live
// flow's rate is the one a fresh solver gives the same flows, resources and bounds.
TEST(FluidSolver, IncrementalRatesAreThoseOfAFreshSolve) {
  RandomStream rng(7, "fluid");
  FluidSolver s;
  std::vector<double> capacity;
  for (int r = 0; r < 6; ++r) {
    capacity.push_back(1.0 + static_cast<double>(rng.uniform_int(9)));
    s.add_resource(capacity.back());
  }
  struct Live {
    std::vector<ResourceId> resources;
    double bound;
  };
  std::map<std::int32_t, Live> live;  // by flow id
  for (int step = 0; step < 400; ++step) {
    const std::uint64_t what = rng.uniform_int(4);
    if (what == 0 || live.size() < 2) {
      std::vector<ResourceId> rs;
      const std::uint64_t n = rng.uniform_int(4);  // 0 to 3 crossings, maybe repeated
      for (std::uint64_t k = 0; k < n; ++k) {
        rs.push_back(static_cast<ResourceId>(rng.uniform_int(capacity.size())));
      }
      const double bound = rng.uniform_int(3) == 0 ? 0.5 + static_cast<double>(rng.uniform_int(5))
                                                   : FluidSolver::kUnbounded;
      live[static_cast<std::int32_t>(s.add_flow(rs, bound))] = Live{rs, bound};
    } else if (what == 1) {
      auto it = std::next(live.begin(), static_cast<long>(rng.uniform_int(live.size())));
      s.remove_flow(static_cast<FlowId>(it->first));
      live.erase(it);
    } else if (what == 2) {
      const std::size_t r = rng.uniform_int(capacity.size());
      capacity[r] = static_cast<double>(rng.uniform_int(10));  // 0: a failed link
      s.set_capacity(static_cast<ResourceId>(r), capacity[r]);
    } else {
      auto it = std::next(live.begin(), static_cast<long>(rng.uniform_int(live.size())));
      it->second.bound = 0.5 + static_cast<double>(rng.uniform_int(5));
      s.set_max_rate(static_cast<FlowId>(it->first), it->second.bound);
    }
    s.update();
    FluidSolver fresh;
    for (const double c : capacity) {
      fresh.add_resource(c);
    }
    std::vector<FlowId> ids;
    for (const auto& [id, flow] : live) {
      ids.push_back(fresh.add_flow(flow.resources, flow.bound));
    }
    fresh.update();
    std::size_t i = 0;
    for (const auto& [id, flow] : live) {
      const double want = fresh.rate(ids[i++]);
      const double got = s.rate(static_cast<FlowId>(id));
      if (std::isinf(want)) {
        EXPECT_TRUE(std::isinf(got)) << "step " << step << ", flow " << id;
      } else {
        EXPECT_NEAR(got, want, 1e-9 * (1.0 + want)) << "step " << step << ", flow " << id;
      }
    }
  }
}

TEST(FluidSolver, RejectsMisuse) {
  FluidSolver s;
  EXPECT_THROW(s.add_resource(-1.0), std::invalid_argument);
  EXPECT_THROW(s.add_resource(std::nan("")), std::invalid_argument);
  EXPECT_THROW(s.add_flow({static_cast<ResourceId>(3)}), std::invalid_argument);
  const ResourceId r = s.add_resource(1.0);
  EXPECT_THROW(s.add_flow({r}, 0.0), std::invalid_argument);
  const FlowId f = s.add_flow({r});
  s.remove_flow(f);
  EXPECT_THROW(s.remove_flow(f), std::invalid_argument);
  EXPECT_THROW((void)s.rate(f), std::invalid_argument);
}

}  // namespace
}  // namespace tidesim
