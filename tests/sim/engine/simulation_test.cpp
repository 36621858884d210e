#include "tidesim/sim/engine/simulation.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

namespace tidesim {
namespace {

using namespace std::chrono_literals;

TEST(Simulation, ClockAdvancesToEachEvent) {
  Simulation sim;
  std::vector<std::int64_t> seen;
  sim.schedule_in(10s, [&] {
    seen.push_back(sim.now().time_since_epoch().count());
    sim.schedule_in(5s, [&] { seen.push_back(sim.now().time_since_epoch().count()); });
  });
  EXPECT_EQ(sim.run(), 2u);
  EXPECT_EQ(seen, (std::vector<std::int64_t>{10'000'000, 15'000'000}));
}

TEST(Simulation, RunUntilStopsBeforeLaterEvents) {
  Simulation sim;
  int fired = 0;
  sim.schedule_in(1s, [&] { ++fired; });
  sim.schedule_in(3s, [&] { ++fired; });
  sim.run(TimePoint(2s));
  EXPECT_EQ(fired, 1);
  EXPECT_EQ(sim.now(), TimePoint(2s));
  EXPECT_EQ(sim.pending_events(), 1u);
  sim.run();
  EXPECT_EQ(fired, 2);
}

TEST(Simulation, StopEndsTheRunAfterTheCurrentEvent) {
  Simulation sim;
  int fired = 0;
  sim.schedule_in(1s, [&] {
    ++fired;
    sim.stop();
  });
  sim.schedule_in(1s, [&] { ++fired; });
  sim.run();
  EXPECT_EQ(fired, 1);
}

TEST(Simulation, NegativeDelayIsAProgrammingError) {
  Simulation sim;
  EXPECT_THROW(sim.schedule_in(Duration(-1), [] {}), std::logic_error);
  sim.schedule_in(5s, [] {});
  sim.run();
  EXPECT_THROW(sim.schedule_at(TimePoint(1s), [] {}), std::logic_error);
}

TEST(Simulation, TwoSimulationsAreIndependent) {
  Simulation a(1);
  Simulation b(1);
  int fa = 0;
  a.schedule_in(1s, [&] { ++fa; });
  b.run();
  EXPECT_EQ(fa, 0);
  a.run();
  EXPECT_EQ(fa, 1);
  EXPECT_EQ(b.now(), TimePoint{});
}

// A wall-clock timeout sets the interrupt flag from another thread; the run checks it after
// every event (one event can take long). Here it is set before the run: 10,000 events one
// second apart stop after the first, at 1 s, and the clock stays there (not at `until`).
TEST(Simulation, AnInterruptStopsTheRunAfterTheCurrentEvent) {
  Simulation sim;
  int fired = 0;
  for (int i = 1; i <= 10'000; ++i) {
    sim.schedule_in(std::chrono::seconds(i), [&] { ++fired; });
  }
  std::atomic<bool> flag{true};
  sim.set_interrupt(&flag);
  sim.run(TimePoint(std::chrono::hours(10)));
  EXPECT_TRUE(sim.interrupted());
  EXPECT_EQ(fired, 1);
  EXPECT_EQ(sim.now(), TimePoint(std::chrono::seconds(1)));
  // Unset, the same kind of run goes to its end.
  Simulation other;
  std::atomic<bool> unset{false};
  other.set_interrupt(&unset);
  for (int i = 1; i <= 10'000; ++i) {
    other.schedule_in(std::chrono::seconds(i), [] {});
  }
  EXPECT_EQ(other.run(), 10'000u);
  EXPECT_FALSE(other.interrupted());
}

// The event limit counts dispatched events and the work charged inside them: 10,000 events, each
// charging 2 more, pass a limit of 3,000 at the 1,001st event (3 x 1,001 = 3,003); the clock
// stays at that event. Without a limit the same run goes to its end, and counted() is 30,000.
TEST(Simulation, TheEventLimitCountsChargedWorkAndStopsTheRun) {
  const auto fill = [](Simulation& sim, int& fired) {
    for (int i = 1; i <= 10'000; ++i) {
      sim.schedule_in(std::chrono::seconds(i), [&sim, &fired] {
        ++fired;
        sim.charge(2);
      });
    }
  };
  Simulation sim;
  int fired = 0;
  fill(sim, fired);
  sim.set_event_limit(3'000);
  sim.run(TimePoint(std::chrono::hours(10)));
  EXPECT_TRUE(sim.over_limit());
  EXPECT_FALSE(sim.interrupted());
  EXPECT_EQ(fired, 1'001);
  EXPECT_EQ(sim.dispatched(), 1'001u);
  EXPECT_EQ(sim.counted(), 3'003u);
  EXPECT_EQ(sim.now(), TimePoint(std::chrono::seconds(1'001)));
  Simulation free;
  int all = 0;
  fill(free, all);
  free.run();
  EXPECT_FALSE(free.over_limit());
  EXPECT_EQ(all, 10'000);
  EXPECT_EQ(free.counted(), 30'000u);
}

}  // namespace
}  // namespace tidesim
