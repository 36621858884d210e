// Per-card state under the three sharing modes; expected placements worked out by hand.
#include "tidesim/topologies/gpu_node.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "tidesim/topologies/presets.hpp"

namespace tidesim {
namespace {

constexpr std::int64_t kGiB = 1LL << 30;
using Cards = std::vector<int>;
using Procs = std::vector<std::uint64_t>;

// Divides every card of a time-sliced node among its running processes, each compute-bound (it
// keeps the card busy for the whole share it gets).
void divide_compute_bound(GpuNodeState& node) {
  for (int c = 0; c < node.card_count(); ++c) {
    node.divide_time(c, [](std::uint64_t, double share) { return share; });
  }
}

TEST(GpuNode, ExclusiveUsesBestFreeSet) {
  const Topology t = preset("dgx1-v100");
  GpuNodeState node(t, 16 * kGiB, GpuSharing{});
  EXPECT_EQ(node.schedulable_units(), 8);
  EXPECT_EQ(node.allocate(1, 2, 0), (Cards{0, 3}));  // the lowest NV2 pair
  // Free {1,2,4,5,6,7}: {1,2,5,6} is the lowest set with an all-NVLink ring
  // (1-2 NV2, 2-6 NV1, 6-5 NV2, 5-1 NV2: 25 GB/s); {1,2,4,5} would need a SYS hop.
  EXPECT_EQ(node.allocate(2, 4, 0), (Cards{1, 2, 5, 6}));
  EXPECT_EQ(node.free_units(), 2);
  EXPECT_EQ(node.allocate(3, 3, 0), std::nullopt);
  EXPECT_EQ(node.free_units(), 2);  // a failed allocation changes nothing
  EXPECT_DOUBLE_EQ(node.compute_share(2, 5), 1.0);
  EXPECT_DOUBLE_EQ(node.compute_share(2, 0), 0.0);
  EXPECT_EQ(node.occupants(3), (Procs{1}));
  node.release(1);
  EXPECT_EQ(node.free_units(), 4);
  EXPECT_TRUE(node.occupants(3).empty());
  EXPECT_EQ(node.cards_of(2), (Cards{1, 2, 5, 6}));
}

// set_stopped is set_running(false) and set_memory(0) on each of the process's cards: a twin node
// driven by those calls ends in the same state; the cards stay allocated.
TEST(GpuNode, SetStoppedFreesMemoryAndStopsOnEveryCard) {
  const Topology t = preset("a10x4-pcie");
  GpuSharing sharing;
  sharing.mode = SharingMode::kTimeSlicing;
  sharing.replicas = 2;
  GpuNodeState node(t, 24 * kGiB, sharing);
  GpuNodeState twin(t, 24 * kGiB, sharing);
  for (GpuNodeState* n : {&node, &twin}) {
    EXPECT_EQ(n->allocate_on(1, {0, 1}, 0), (Cards{0, 1}));
    EXPECT_EQ(n->allocate_on(2, {0}, 0), (Cards{0}));
    n->set_running(1, true);
    n->set_running(2, true);
    divide_compute_bound(*n);
    EXPECT_FALSE(n->set_memory(1, 0, 10 * kGiB));
    EXPECT_FALSE(n->set_memory(1, 1, 6 * kGiB));
    EXPECT_FALSE(n->set_memory(2, 0, 3 * kGiB));
  }
  node.set_stopped(1);
  twin.set_running(1, false);
  twin.set_memory(1, 0, 0);
  twin.set_memory(1, 1, 0);
  for (GpuNodeState* n : {&node, &twin}) {
    EXPECT_FALSE(n->running(1));
    EXPECT_TRUE(n->running(2));
    EXPECT_EQ(n->memory_used(0), 3 * kGiB);  // process 2's only
    EXPECT_EQ(n->memory_used(1), 0);
    EXPECT_EQ(n->memory_of(1, 0), 0);
    EXPECT_TRUE(n->needs_division(0));          // its running processes changed
    EXPECT_EQ(n->occupants(0), (Procs{1, 2}));  // the cards stay allocated
    EXPECT_EQ(n->free_units(), 8 - 3);
    divide_compute_bound(*n);
    EXPECT_DOUBLE_EQ(n->compute_share(1, 0), 0.0);
    EXPECT_DOUBLE_EQ(n->compute_share(2, 0), 1.0);  // alone on card 0 now
  }
  node.set_stopped(7);  // unknown: nothing changes
  EXPECT_EQ(node.memory_used(0), 3 * kGiB);
}

TEST(GpuNode, TimeSlicingDistributesReplicasAndSharesMemory) {
  const Topology t = preset("a10x4-pcie");
  GpuNodeState node(t, 24 * kGiB, GpuSharing{.mode = SharingMode::kTimeSlicing, .replicas = 4});
  EXPECT_EQ(node.schedulable_units(), 16);
  // Distributed: fewest allocated replicas first, lowest index among equals.
  EXPECT_EQ(node.allocate(1, 1, 0), (Cards{0}));
  EXPECT_EQ(node.allocate(2, 1, 0), (Cards{1}));
  EXPECT_EQ(node.allocate(3, 1, 0), (Cards{2}));
  EXPECT_EQ(node.allocate(4, 1, 0), (Cards{3}));
  EXPECT_EQ(node.allocate(5, 1, 0), (Cards{0}));
  // Counts now 2,1,1,1: card 1 first, then (1 now has 2) card 2.
  EXPECT_EQ(node.allocate(6, 2, 0), (Cards{1, 2}));
  EXPECT_EQ(node.free_units(), 16 - 7);
  EXPECT_EQ(node.occupants(0), (Procs{1, 5}));
  // Placed but not started: no process computes yet, and none is waiting for a division.
  EXPECT_DOUBLE_EQ(node.compute_share(1, 0), 0.0);
  for (std::uint64_t p = 1; p <= 6; ++p) {
    node.set_running(p, true);
  }
  EXPECT_TRUE(node.needs_division(0));
  EXPECT_THROW(node.compute_share(1, 0), std::logic_error);
  divide_compute_bound(node);
  EXPECT_DOUBLE_EQ(node.compute_share(1, 0), 0.5);  // two processes time-share card 0
  EXPECT_DOUBLE_EQ(node.compute_share(4, 3), 1.0);
  // Memory is not isolated: 14 GiB + 12 GiB > 24 GiB; the second allocation crosses the line.
  EXPECT_FALSE(node.set_memory(1, 0, 14 * kGiB));
  EXPECT_TRUE(node.set_memory(5, 0, 12 * kGiB));
  EXPECT_EQ(node.memory_used(0), 26 * kGiB);
  EXPECT_EQ(node.memory_of(5, 0), 12 * kGiB);
  EXPECT_EQ(node.memory_of(5, 1), 0);
  node.release(5);  // the caller kills the process that crossed the line
  EXPECT_EQ(node.memory_used(0), 14 * kGiB);
  // A running process left card 0: its share is undefined until the card is divided again.
  EXPECT_TRUE(node.needs_division(0));
  divide_compute_bound(node);
  // The card's total follows a process's new allocation (it replaces the old one): 4 GiB.
  EXPECT_FALSE(node.set_memory(1, 0, 4 * kGiB));
  EXPECT_EQ(node.memory_used(0), 4 * kGiB);
  EXPECT_FALSE(node.set_memory(1, 0, 14 * kGiB));
  EXPECT_EQ(node.memory_used(0), 14 * kGiB);
  EXPECT_DOUBLE_EQ(node.compute_share(1, 0), 1.0);
  // 6 slots are held (processes 1, 2, 3, 4 and two of 6): 10 free, so 11 do not fit.
  EXPECT_EQ(node.free_units(), 10);
  EXPECT_EQ(node.allocate(7, 11, 0), std::nullopt);
}

TEST(GpuNode, NodesShareOneTopology) {
  // Two nodes built from one shared topology place independently.
  const auto t = std::make_shared<const Topology>(preset("a10x4-pcie"));
  GpuNodeState a(t, 24 * kGiB, GpuSharing{});
  GpuNodeState b(t, 24 * kGiB, GpuSharing{});
  EXPECT_EQ(a.allocate(1, 4, 0), (Cards{0, 1, 2, 3}));
  EXPECT_EQ(b.allocate(1, 2, 0)->size(), 2u);
  EXPECT_EQ(a.free_units(), 0);
  EXPECT_EQ(b.free_units(), 2);
  EXPECT_EQ(t.use_count(), 3);
  EXPECT_THROW(GpuNodeState(std::shared_ptr<const Topology>{}, kGiB, GpuSharing{}),
               std::invalid_argument);
}

TEST(GpuNode, TimeSlicingPackedFillsOneCardFirst) {
  const Topology t = preset("a10x4-pcie");
  GpuNodeState node(
      t, 24 * kGiB,
      GpuSharing{
          .mode = SharingMode::kTimeSlicing, .replicas = 2, .policy = ReplicaPolicy::kPacked});
  EXPECT_EQ(node.allocate(1, 1, 0), (Cards{0}));
  EXPECT_EQ(node.allocate(2, 1, 0), (Cards{0}));
  EXPECT_EQ(node.allocate(3, 3, 0), (Cards{1, 1, 2}));
  EXPECT_EQ(node.cards_of(3), (Cards{1, 2}));
  EXPECT_EQ(node.free_units(), 3);
  EXPECT_EQ(node.allocate(4, 4, 0), std::nullopt);
}

TEST(GpuNode, FractionalBestFit) {
  const Topology t = preset("a10x4-pcie");
  GpuNodeState node(t, 24 * kGiB, GpuSharing{.mode = SharingMode::kFractional});
  EXPECT_EQ(node.schedulable_units(), 4);
  EXPECT_EQ(node.allocate(1, 1, 500), (Cards{0}));
  EXPECT_EQ(node.allocate(2, 1, 300), (Cards{0}));   // best fit: card 0 has 500 left
  EXPECT_EQ(node.allocate(3, 1, 300), (Cards{1}));   // card 0 has only 200 left
  EXPECT_EQ(node.allocate(4, 1, 1000), (Cards{2}));  // a whole unshared card
  EXPECT_DOUBLE_EQ(node.compute_share(2, 0), 0.3);
  EXPECT_DOUBLE_EQ(node.compute_share(4, 2), 1.0);
  EXPECT_EQ(node.free_units(), 1);
  EXPECT_EQ(node.allocate(5, 2, 1000), std::nullopt);
  EXPECT_THROW(node.allocate(6, 2, 500), std::invalid_argument);
  EXPECT_EQ(node.allocate(7, 1, 200), (Cards{0}));  // exactly fills card 0
  EXPECT_EQ(node.allocate(8, 1, 1), (Cards{1}));
}

TEST(GpuNode, Misuse) {
  const Topology t = preset("a10x4-pcie");
  EXPECT_THROW(GpuNodeState(t, 0, GpuSharing{}), std::invalid_argument);
  EXPECT_THROW(GpuNodeState(t, kGiB, GpuSharing{.mode = SharingMode::kTimeSlicing, .replicas = 0}),
               std::invalid_argument);
  GpuNodeState node(t, kGiB, GpuSharing{});
  ASSERT_TRUE(node.allocate(1, 1, 0));
  EXPECT_THROW(node.allocate(1, 1, 0), std::invalid_argument);
  EXPECT_THROW(node.allocate(2, 0, 0), std::invalid_argument);
  EXPECT_THROW(node.allocate(2, 1, 1001), std::invalid_argument);
  EXPECT_THROW(node.set_memory(1, 3, 10), std::invalid_argument);
  EXPECT_THROW(node.memory_used(4), std::out_of_range);
  node.release(99);  // unknown: no-op
  EXPECT_EQ(parse_sharing_mode("time-slicing"), SharingMode::kTimeSlicing);
  EXPECT_EQ(parse_sharing_mode("mig"), SharingMode::kMig);
  EXPECT_EQ(parse_sharing_mode("MIG"), std::nullopt);
  EXPECT_EQ(to_string(SharingMode::kFractional), "fractional");
}

TEST(GpuNode, AllocateOnHonoursTheSchedulersCards) {
  const Topology t = preset("pcie-4");
  GpuNodeState node(t, 16 * kGiB, GpuSharing{.mode = SharingMode::kFractional});
  // A share of 300 on card 0 (best fit would pick any card: all are free, so it takes card 0;
  // the hint moves it to card 2).
  EXPECT_EQ(node.allocate_on(1, Cards{2}, 300), (Cards{2}));
  EXPECT_EQ(node.cards_of(1), (Cards{2}));
  // 800 more on card 2: only 700 left, refused, nothing changes.
  EXPECT_EQ(node.allocate_on(2, Cards{2}, 800), std::nullopt);
  EXPECT_TRUE(node.cards_of(2).empty());
  // Whole cards: 1 and 3 are free, 2 is shared.
  EXPECT_EQ(node.allocate_on(3, Cards{1, 3}, 1000), (Cards{1, 3}));
  EXPECT_EQ(node.allocate_on(4, Cards{0, 2}, 1000), std::nullopt);
  // A partial share on two cards is refused; a repeated card too.
  EXPECT_EQ(node.allocate_on(5, Cards{0, 2}, 300), std::nullopt);
  EXPECT_EQ(node.allocate_on(6, Cards{0, 0}, 1000), std::nullopt);
  EXPECT_EQ(node.free_units(), 1);  // card 0
}

}  // namespace
}  // namespace tidesim
