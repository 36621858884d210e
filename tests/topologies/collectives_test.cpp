// Collective times by nccl-tests' busbw factors (doc/PERFORMANCE.md), worked by hand.
#include "tidesim/topologies/collectives.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tidesim {
namespace {

TEST(Collectives, BusFactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kAllReduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kReduceScatter, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kAllGather, 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kAllToAll, 2), 0.5);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kBroadcast, 16), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kPointToPoint, 2), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kAllReduce, 1), 0.0);
}

TEST(Collectives, TimeIsSizeOverBusBandwidthTimesTheFactorPlusLatency) {
  // 1 GB all-reduce over 16 ranks at 100 GB/s busbw: 1e9 / 1e11 x 2 x 15 / 16 = 18.75 ms.
  EXPECT_DOUBLE_EQ(collective_seconds(Collective::kAllReduce, 1'000'000'000, 16, 100e9), 0.01875);
  EXPECT_DOUBLE_EQ(collective_seconds(Collective::kAllGather, 1'000'000'000, 16, 100e9, 20e-6),
                   0.009375 + 20e-6);
  EXPECT_DOUBLE_EQ(collective_seconds(Collective::kPointToPoint, 50'000'000, 2, 25e9), 0.002);
  EXPECT_EQ(collective_seconds(Collective::kAllReduce, 1'000, 1, 1e9, 1.0), 0.0);
  EXPECT_EQ(collective_seconds(Collective::kAllReduce, 0, 8, 1e9), 0.0);
  EXPECT_THROW((void)collective_seconds(Collective::kAllReduce, 8, 2, 0.0), std::invalid_argument);
  EXPECT_DOUBLE_EQ(collective_volume(Collective::kAllReduce, 1'000, 4), 1'500.0);
}

TEST(Collectives, NamesReadBack) {
  for (const Collective c :
       {Collective::kAllReduce, Collective::kReduceScatter, Collective::kAllGather,
        Collective::kAllToAll, Collective::kBroadcast, Collective::kPointToPoint}) {
    EXPECT_EQ(parse_collective(to_string(c)), c);
  }
  EXPECT_FALSE(parse_collective("allreduce"));
}

}  // namespace
}  // namespace tidesim
