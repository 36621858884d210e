// Gavel's rounds (sim/admission/gavel_rounds; scheduler.py's _update_priorities,
// _reset_time_run_so_far, _schedule_jobs_on_workers_helper and _schedule_jobs_on_workers),
// worked by hand. Type A: servers {0, 1} and {2}; type B: server {4}. Rounds of 360 s.
// Jobs: 0 on 2 GPUs, X = (1, 0); 1 and 2 on 1 GPU, X = (0.5, 0.5); throughput 1 everywhere.
#include "tidesim/sim/admission/gavel_rounds.hpp"

#include <gtest/gtest.h>

namespace tidesim::gavel {
namespace {

std::map<int, std::vector<double>> allocation() {
  return {{0, {1.0, 0.0}}, {1, {0.5, 0.5}}, {2, {0.5, 0.5}}};
}

Rounds cluster() {
  Rounds r({"A", "B"}, {{{0, 1}, {2}}, {{4}}}, RoundsConfig{});
  r.add_job({.id = 0, .scale_factor = 2, .throughput = {1.0, 1.0}});
  r.add_job({.id = 1, .scale_factor = 1, .throughput = {1.0, 1.0}});
  r.add_job({.id = 2, .scale_factor = 1, .throughput = {1.0, 1.0}});
  return r;
}

void expect_placement(const Placement& p, int job, std::size_t type, std::vector<int> gpus,
                      bool extended) {
  EXPECT_EQ(p.job, job);
  EXPECT_EQ(p.type, type) << job;
  EXPECT_EQ(p.gpus, gpus) << job;
  EXPECT_EQ(p.extended, extended) << job;
}

// Round 1 (t = 0): a reset (jobs arrived, first reset): each job has half a round (180 s) on
// each type, so each has 1/3 of each type's time and priority X / (1/3): A: 3, 1.5, 1.5; B: 0,
// 1.5, 1.5. A (3 GPUs): job 0 (2 GPUs), job 1 (the tie with job 2 keeps arrival order); B: job 2.
// Placement: job 0 fills server {0, 1}, job 1 takes 2.
// Round 2 (t = 360, nothing changed, no reset): times A: 540, 540, 180 of 1,260; B: 180, 180, 540
// of 900. Priorities A: 1 / (540/1260) = 2.33, 0.5 / (540/1260) = 1.17, 0.5 / (180/1260) = 3.5;
// B: 0, 0.5 / 0.2 = 2.5, 0.5 / 0.6 = 0.83. A: job 2, then job 0 (2 GPUs) fills it; B: job 1.
// Job 0 ran on A on {0, 1}, still free: its lease is extended. Job 2 (on B before) takes the
// next free GPU of A, 2; job 1 takes 4. Of the 3 jobs placed in round 1, 1 kept its GPUs.
TEST(GavelRounds, PrioritiesSelectionAndLeaseExtension) {
  Rounds r = cluster();
  int calls = 0;
  const auto allocate = [&] {
    ++calls;
    return allocation();
  };
  auto round = r.schedule(0.0, allocate);
  ASSERT_EQ(round.size(), 3U);
  expect_placement(round[0], 0, 0, {0, 1}, false);
  expect_placement(round[1], 1, 0, {2}, false);
  expect_placement(round[2], 2, 1, {4}, false);
  EXPECT_DOUBLE_EQ(r.priority(0, 0), 3.0);
  EXPECT_DOUBLE_EQ(r.priority(1, 1), 1.5);
  EXPECT_EQ(r.priority(0, 1), 0.0);
  r.record(0, 0, 360.0);
  r.record(1, 0, 360.0);
  r.record(2, 1, 360.0);
  round = r.schedule(360.0, allocate);
  EXPECT_EQ(calls, 1);
  EXPECT_NEAR(r.priority(0, 0), 1260.0 / 540.0, 1e-12);
  EXPECT_NEAR(r.priority(2, 0), 3.5, 1e-12);
  EXPECT_NEAR(r.priority(1, 1), 2.5, 1e-12);
  ASSERT_EQ(round.size(), 3U);
  expect_placement(round[0], 0, 0, {0, 1}, true);
  expect_placement(round[1], 2, 0, {2}, false);
  expect_placement(round[2], 1, 1, {4}, false);
  EXPECT_EQ(r.lease_extensions(), 1);
  EXPECT_EQ(r.lease_extension_opportunities(), 3);
}

// Round 3 (t = 720) after job 1 left: a reset, since the last one was at time 0 (Gavel tests
// `last_reset_time == 0`). Over 720 s job 0 should have had 720 s of A and had 720 (900 - 180);
// job 2 should have had 360 s of each and had 360 of each: every deficit is 0. A job that
// arrives at t = 1,080 waits for the next reset: 360 s since the last one is under the 1,920 s
// minimum, so X is not recomputed and the new job (X = 0) is not placed. At t = 720 + 1,920 the
// allocation is recomputed.
TEST(GavelRounds, ResetsAndDeficits) {
  Rounds r = cluster();
  int calls = 0;
  const auto allocate = [&] {
    ++calls;
    auto x = allocation();
    x[3] = {0.0, 1.0};
    return x;
  };
  (void)r.schedule(0.0, allocate);
  r.record(0, 0, 360.0);
  r.record(1, 0, 360.0);
  r.record(2, 1, 360.0);
  (void)r.schedule(360.0, allocate);
  r.record(0, 0, 360.0);
  r.record(2, 0, 360.0);
  r.record(1, 1, 360.0);
  r.remove_job(1);
  (void)r.schedule(720.0, allocate);
  EXPECT_EQ(calls, 2);
  for (const int id : {0, 2}) {
    for (std::size_t t = 0; t < 2; ++t) {
      EXPECT_NEAR(r.deficit(id, t), 0.0, 1e-9) << id << " " << t;
    }
  }
  r.add_job({.id = 3, .scale_factor = 1, .throughput = {1.0, 1.0}});
  auto round = r.schedule(1080.0, allocate);
  EXPECT_EQ(calls, 2);
  for (const Placement& p : round) {
    EXPECT_NE(p.job, 3);
  }
  round = r.schedule(2640.0, allocate);
  EXPECT_EQ(calls, 3);
  EXPECT_TRUE(std::any_of(round.begin(), round.end(), [](const Placement& p) {
    return p.job == 3 && p.type == 1 && p.gpus == std::vector<int>{4};
  }));
}

// FIFO runs no job of priority 0; the agnostic policies' shuffled type order still places every
// job it can.
TEST(GavelRounds, FifoAndShuffledTypes) {
  RoundsConfig fifo;
  fifo.fifo = true;
  Rounds r({"A"}, {{{0}, {1}}}, fifo);
  r.add_job({.id = 0, .scale_factor = 1, .throughput = {1.0}});
  r.add_job({.id = 1, .scale_factor = 1, .throughput = {1.0}});
  const auto round = r.schedule(0.0, [] { return std::map<int, std::vector<double>>{{1, {1.0}}}; });
  ASSERT_EQ(round.size(), 1U);
  EXPECT_EQ(round[0].job, 1);
  for (std::uint64_t seed = 0; seed < 4; ++seed) {
    RoundsConfig shuffled;
    shuffled.shuffle_types = true;
    shuffled.seed = seed;
    Rounds s({"A", "B"}, {{{0, 1}, {2}}, {{4}}}, shuffled);
    s.add_job({.id = 1, .scale_factor = 1, .throughput = {1.0, 1.0}});
    s.add_job({.id = 2, .scale_factor = 1, .throughput = {1.0, 1.0}});
    EXPECT_EQ(s.schedule(0.0, allocation).size(), 2U);
  }
  EXPECT_THROW(r.add_job({.id = 0, .scale_factor = 1, .throughput = {1.0}}), std::invalid_argument);
}

}  // namespace
}  // namespace tidesim::gavel

namespace tidesim::gavel {
namespace {

// A pair (space sharing, Gavel's JobIdPair) is an entry of its own: type A, servers {0} and {1};
// jobs 1, 2, 3 on 1 GPU; X: job 3 alone 1, the pair (1, 2) 1. At the first reset every entry has
// half a round (180 s), the pair too, so the type's time is 4 x 180 = 720 s and job 3 and the pair
// have priority 1 / (180 / 720) = 4 (jobs 1 and 2, with no X of their own, 0). The tie keeps
// Gavel's order of its priority lists, where a pair comes right after its later job: job 1, job 2,
// the pair (2, 1), job 3. So the pair takes GPU 0, both its jobs on it, and job 3 GPU 1 (placed
// in the order chosen). Its time is recorded under its key; when job 2 leaves, the pair leaves
// with it.
TEST(GavelRounds, APairTakesOneGpuForBothItsJobs) {
  Rounds r({"A"}, {{{0}, {1}}}, RoundsConfig{});
  for (const int id : {1, 2, 3}) {
    r.add_job({.id = id, .scale_factor = 1, .throughput = {1.0}});
  }
  const auto placements = r.schedule(0.0, [] {
    return RoundAllocation({{3, {1.0}}},
                           {RoundPair{.a = 1, .b = 2, .share = {1.0}, .throughput = {0.5}}});
  });
  const int key = r.pair_key(2, 1);
  ASSERT_LT(key, 0);
  EXPECT_DOUBLE_EQ(r.priority(key, 0), 4.0);
  EXPECT_DOUBLE_EQ(r.priority(3, 0), 4.0);
  EXPECT_DOUBLE_EQ(r.priority(1, 0), 0.0);
  ASSERT_EQ(placements.size(), 3u);
  expect_placement(placements[0], 1, 0, {0}, false);
  expect_placement(placements[1], 2, 0, {0}, false);
  expect_placement(placements[2], 3, 0, {1}, false);
  EXPECT_EQ(placements[0].entry, key);
  EXPECT_EQ(placements[0].partner, 2);
  EXPECT_EQ(placements[1].partner, 1);
  EXPECT_EQ(placements[2].entry, 3);
  EXPECT_EQ(placements[2].partner, -1);
  // Round 2: the pair ran 360 s, job 3 too: both 540 of 1,440 s, priority 1 / 0.375 = 2.67.
  r.record(key, 0, 360.0);
  r.record(3, 0, 360.0);
  const auto again = r.schedule(360.0, [] { return RoundAllocation{}; });
  EXPECT_NEAR(r.priority(key, 0), 1440.0 / 540.0, 1e-12);
  ASSERT_EQ(again.size(), 3u);
  EXPECT_TRUE(again[0].extended);
  r.remove_job(2);
  EXPECT_EQ(r.pair_key(1, 2), 0);
  EXPECT_EQ(r.allocation().count(key), 0u);
}

// A pair the allocation gives a share but whose co-located throughput is 0 on the type (every
// pair of multi-GPU jobs in Gavel's table) has priority 0 there (Gavel's _update_priorities) and
// is passed over when its turn comes ("Don't schedule jobs with 0 throughput"). Type A, servers
// {0} and {1}; jobs 1, 2, 3 on 1 GPU; X: job 3 alone 1, jobs 1 and 2 alone 0, the pair (1, 2) 1.
// Job 3 has priority 1 / (180 / 720) = 4 and takes GPU 0; then the pair (priority 0, deficit 0,
// X 1) is passed over, and job 1 (priority 0, deficit 0, X 0, first by arrival) takes GPU 1 alone.
TEST(GavelRounds, APairOfThroughputZeroIsNotRun) {
  Rounds r({"A"}, {{{0}, {1}}}, RoundsConfig{});
  for (const int id : {1, 2, 3}) {
    r.add_job({.id = id, .scale_factor = 1, .throughput = {1.0}});
  }
  const auto placements = r.schedule(0.0, [] {
    return RoundAllocation({{1, {0.0}}, {2, {0.0}}, {3, {1.0}}},
                           {RoundPair{.a = 1, .b = 2, .share = {1.0}, .throughput = {0.0}}});
  });
  const int key = r.pair_key(2, 1);
  ASSERT_LT(key, 0);
  EXPECT_DOUBLE_EQ(r.priority(key, 0), 0.0);
  EXPECT_DOUBLE_EQ(r.priority(3, 0), 4.0);
  ASSERT_EQ(placements.size(), 2u);
  expect_placement(placements[0], 3, 0, {0}, false);
  expect_placement(placements[1], 1, 0, {1}, false);
  EXPECT_EQ(placements[1].partner, -1);
}

// Gavel's packing policies rank every two jobs of the same scale factor as a pair from the later
// one's arrival, at priority 0 while X gives it nothing, and from time 0: the first reset gives it
// a deficit of half a round (0 x elapsed - (0 - 180 s)). Type A, servers {0} and {1}; jobs 1, 2, 3
// on 1 GPU; X: job 1 alone 1, jobs 2 and 3 0. Job 1 (priority > 0) takes GPU 0. Then, on the
// GPU left, the pair (2, 3) at (0, 180, 0) comes before jobs 2 and 3 at (0, 0, 0): both run,
// sharing GPU 1. Without the pairs, job 2 (the first by arrival) takes it alone.
TEST(GavelRounds, EveryPairRanksAtPriorityZeroWhenXGivesItNothing) {
  const auto allocate = [] { return RoundAllocation({{1, {1.0}}, {2, {0.0}}, {3, {0.0}}}); };
  for (const bool all_pairs : {true, false}) {
    Rounds r({"A"}, {{{0}, {1}}}, RoundsConfig{});
    if (all_pairs) {
      r.set_pair_throughput([](int, int) { return std::vector<double>{0.5}; });
    }
    for (const int id : {1, 2, 3}) {
      r.add_job({.id = id, .scale_factor = 1, .throughput = {1.0}});
    }
    const auto placements = r.schedule(0.0, allocate);
    expect_placement(placements.at(0), 1, 0, {0}, false);
    if (!all_pairs) {
      ASSERT_EQ(placements.size(), 2u);
      expect_placement(placements[1], 2, 0, {1}, false);
      EXPECT_EQ(r.pair_key(2, 3), 0);
      continue;
    }
    ASSERT_EQ(placements.size(), 3u);
    const int key = r.pair_key(2, 3);
    ASSERT_LT(key, 0);
    expect_placement(placements[1], 2, 0, {1}, false);
    expect_placement(placements[2], 3, 0, {1}, false);
    EXPECT_EQ(placements[1].entry, key);
    EXPECT_EQ(placements[1].partner, 3);
    EXPECT_DOUBLE_EQ(r.deficit(key, 0), 180.0);
    EXPECT_DOUBLE_EQ(r.priority(key, 0), 0.0);
  }
}

}  // namespace
}  // namespace tidesim::gavel
