// Overflow-safe sums of the API's resources (issue 16; docs/robustness.md, "Arithmetic"): they
// saturate at the int64 limits (tidesim/sim/engine/checked.hpp) instead of overflowing, which was
// undefined behaviour before the change. 2^63 - 1 = 9,223,372,036,854,775,807.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tidesim/sim/api/api.hpp"
#include "tidesim/sim/engine/checked.hpp"

namespace tidesim {
namespace {

TEST(ResourcesArithmetic, SumsSaturateInsteadOfOverflowing) {
  // Two pods of memory 2^63 - 6 and 10 bytes, cpu 9e18 millicores each: the exact sums pass
  // 2^63; they stop at 2^63 - 1, which still exceeds every allocatable.
  Resources a;
  a.memory_bytes = kInt64Max - 5;
  a.cpu_milli = 9'000'000'000'000'000'000;
  a.extended["example.com/fpga"] = kInt64Max;
  Resources b;
  b.memory_bytes = 10;
  b.cpu_milli = 9'000'000'000'000'000'000;
  b.gpus = 3;
  b.extended["example.com/fpga"] = 1;
  a += b;
  EXPECT_EQ(a.memory_bytes, kInt64Max);
  EXPECT_EQ(a.cpu_milli, kInt64Max);
  EXPECT_EQ(a.gpus, 3);
  EXPECT_EQ(a.extended["example.com/fpga"], kInt64Max);
  Resources c;
  c.gpus = -10;
  Resources big;
  big.gpus = kInt64Max;
  c -= big;  // -10 - (2^63 - 1) < -2^63
  EXPECT_EQ(c.gpus, kInt64Min);
}

TEST(ResourcesArithmetic, PodRequestsOfHugeContainersSaturate) {
  // Two containers of memory 2^62 + 2^62 = 2^63: one past the limit.
  PodSpec pod;
  Container one;
  one.requests.memory_bytes = std::int64_t{1} << 62;
  one.memory_set = true;
  pod.containers = std::vector<Container>{one, one};
  EXPECT_EQ(pod_requests(pod).memory_bytes, kInt64Max);
}

}  // namespace
}  // namespace tidesim
