// The watchdog's memory guard: how long it waits between looks (memory_poll_interval, derived by
// hand from its rule: half the headroom at 4 GiB/s, held to 10 ms..1 s) and that a limit already
// passed raises the flag at the first look.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "tidesim/tools/lib/watchdog.hpp"

namespace tidesim::app {
namespace {

using std::chrono::milliseconds;
constexpr std::int64_t kGiB = std::int64_t{1} << 30;

TEST(Watchdog, PollsSoonerNearerTheLimit) {
  // 16 GiB of headroom: 8 GiB at 4 GiB/s is 2 s, held to 1 s.
  EXPECT_EQ(memory_poll_interval(0, 16 * kGiB), milliseconds(1000));
  // 8 GiB of headroom: exactly 1 s.
  EXPECT_EQ(memory_poll_interval(8 * kGiB, 16 * kGiB), milliseconds(1000));
  // 1 GiB of headroom: 0.5 GiB at 4 GiB/s = 125 ms.
  EXPECT_EQ(memory_poll_interval(15 * kGiB, 16 * kGiB), milliseconds(125));
  // 64 MiB of headroom: 32 MiB at 4 GiB/s = 7.8 ms, held to 10 ms.
  EXPECT_EQ(memory_poll_interval(kGiB - 64 * (kGiB >> 10), kGiB), milliseconds(10));
  // At and over the limit: 10 ms.
  EXPECT_EQ(memory_poll_interval(kGiB, kGiB), milliseconds(10));
  EXPECT_EQ(memory_poll_interval(2 * kGiB, kGiB), milliseconds(10));
}

TEST(Watchdog, ALimitPassedRaisesTheFlag) {
  // Any process holds more than one byte resident.
  Watchdog watchdog(std::nullopt, true, std::int64_t{1});
  for (int i = 0; i < 500 && !watchdog.expired(); ++i) {
    std::this_thread::sleep_for(milliseconds(2));
  }
  EXPECT_TRUE(watchdog.expired());
  EXPECT_TRUE(watchdog.memory_exceeded());
  EXPECT_GT(watchdog.memory_seen(), 1);
}

TEST(Watchdog, NoLimitNoFlag) {
  Watchdog watchdog(std::nullopt, true, std::nullopt);
  EXPECT_EQ(watchdog.flag(), nullptr);
  EXPECT_EQ(watchdog.check_memory(), 0);
  EXPECT_FALSE(watchdog.expired());
}

}  // namespace
}  // namespace tidesim::app
