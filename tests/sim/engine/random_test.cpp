#include "tidesim/sim/engine/random.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "tidesim/sim/engine/simulation.hpp"

namespace tidesim {
namespace {

std::vector<std::uint64_t> draws(RandomStream s, int n) {
  std::vector<std::uint64_t> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(s.next_u64());
  }
  return out;
}

TEST(RandomStream, SameSeedAndNameReproduce) {
  EXPECT_EQ(draws(RandomStream(42, "scheduler"), 50), draws(RandomStream(42, "scheduler"), 50));
}

TEST(RandomStream, DifferentNamesOrSeedsGiveDifferentStreams) {
  EXPECT_NE(draws(RandomStream(42, "scheduler"), 5), draws(RandomStream(42, "workload"), 5));
  EXPECT_NE(draws(RandomStream(42, "scheduler"), 5), draws(RandomStream(43, "scheduler"), 5));
}

// The first draws of component "arrivals" (and "telemetry") in a run of seed 7, computed outside
// tidesim: a transcription of FNV-1a 64, splitmix64 and xoshiro256** (the reference algorithms)
// applied to the derivation in random.cpp, raw seed = seed ^ rotl(fnv1a(name), 17) ^ 0x5DEECE66D
// (0x84594402464B847D for "arrivals", 0x56A7ECF9D16DA6EF for "telemetry").
const std::vector<std::uint64_t> kArrivalsSeed7 = {0xD01A5694AA24A853ULL, 0xA956C3F333AE037DULL,
                                                   0x17546D07E9CDEE25ULL};
const std::vector<std::uint64_t> kTelemetrySeed7 = {0x9C06F2C170AA1116ULL, 0x6DD3835A70DA2ABAULL,
                                                    0x917A5CEA58FCCCC4ULL};

TEST(RandomStream, AddingAComponentDoesNotShiftAnother) {
  // A run where "arrivals" is the only component.
  {
    const Simulation sim(7);
    EXPECT_EQ(draws(sim.stream("arrivals"), 3), kArrivalsSeed7);
  }
  // A run where two other components are created first and draw, one of them a lot: "arrivals"
  // is the third stream created, after 1001 draws elsewhere, and still draws the same values.
  const Simulation sim(7);
  RandomStream telemetry = sim.stream("telemetry");
  for (int i = 0; i < 1000; ++i) {
    telemetry.next_u64();
  }
  RandomStream faults = sim.stream("faults");
  faults.uniform01();
  RandomStream arrivals = sim.stream("arrivals");
  EXPECT_EQ(draws(arrivals, 3), kArrivalsSeed7);
  // A second handle on the same component starts over: the stream is a function of (seed, name).
  EXPECT_EQ(draws(sim.stream("arrivals"), 3), kArrivalsSeed7);
  EXPECT_EQ(draws(RandomStream(7, "arrivals"), 3), kArrivalsSeed7);
  // The other name has its own sequence, also fixed by (seed, name) alone.
  EXPECT_EQ(draws(sim.stream("telemetry"), 3), kTelemetrySeed7);
}

TEST(RandomStream, StableHashIsFnv1a) {
  // The published FNV-1a 64-bit test vectors.
  EXPECT_EQ(stable_hash(""), 0xCBF29CE484222325ULL);
  EXPECT_EQ(stable_hash("a"), 0xAF63DC4C8601EC8CULL);
  EXPECT_EQ(stable_hash("foobar"), 0x85944171F73967E8ULL);
}

TEST(RandomStream, KnownFirstValueIsStable) {
  // xoshiro256** seeded by splitmix64(0): the reference implementation's first output.
  RandomStream s(0);
  EXPECT_EQ(s.next_u64(), 0x99EC5F36CB75F2B4ULL);
}

TEST(RandomStream, Uniform01StaysInRangeWithTheRightMean) {
  RandomStream s(1, "u");
  double sum = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    const double u = s.uniform01();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  EXPECT_NEAR(sum / n, 0.5, 0.005);  // 5 sigma: sigma = sqrt(1/12/n) = 0.0009
}

TEST(RandomStream, AChanceDrawsAsUniform01BelowItsProbability) {
  // draw(Chance(p)) must be exactly uniform01() < p, the same draw: on many draws at ordinary and
  // edge probabilities, and at the boundary, where p is the very value the next uniform01() gives
  // (false: not below) and the next double above it (true).
  RandomStream a(7, "chance");
  RandomStream b(7, "chance");
  const std::array<double, 10> ps = {
      0.0, -0.5, 1e-300, 0.1, 1.0 / 3.0, 0.5, std::nextafter(1.0, 0.0), 1.0, 1.5, std::nan("")};
  for (const double p : ps) {
    const RandomStream::Chance chance(p);
    for (int i = 0; i < 20000; ++i) {
      ASSERT_EQ(a.draw(chance), b.uniform01() < p) << "p = " << p << ", draw " << i;
    }
  }
  for (int i = 0; i < 1000; ++i) {
    RandomStream peek = a;
    const double next = peek.uniform01();
    ASSERT_GT(next, 0.0);  // a zero draw has no double below it to test; 2^-53 odds
    RandomStream again = a;
    EXPECT_FALSE(a.draw(RandomStream::Chance(next)));
    EXPECT_TRUE(again.draw(RandomStream::Chance(std::nextafter(next, 1.0))));
  }
}

TEST(RandomStream, UniformIntIsUnbiasedOverSmallRange) {
  RandomStream s(2, "i");
  std::array<int, 3> counts{};
  const int n = 60000;
  for (int i = 0; i < n; ++i) {
    const auto v = s.uniform_int(3);
    ASSERT_LT(v, 3u);
    ++counts[v];
  }
  for (const int c : counts) {
    EXPECT_NEAR(c, n / 3, 600);  // 5 sigma: sqrt(n p (1-p)) = 115
  }
}

TEST(RandomStream, ExponentialMeanIsOneOverRate) {
  RandomStream s(3, "e");
  double sum = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    sum += s.exponential(4.0);
  }
  EXPECT_NEAR(sum / n, 0.25, 0.004);  // sigma of the mean = 0.25 / sqrt(n) = 0.0008
}

TEST(RandomStream, NormalAndLognormalMoments) {
  RandomStream s(4, "n");
  const int n = 100000;
  double sum = 0;
  double sq = 0;
  for (int i = 0; i < n; ++i) {
    const double x = s.normal(10.0, 2.0);
    sum += x;
    sq += x * x;
  }
  const double mean = sum / n;
  EXPECT_NEAR(mean, 10.0, 0.04);
  EXPECT_NEAR(std::sqrt(sq / n - mean * mean), 2.0, 0.04);
  // Median of a lognormal is exp(mu).
  std::vector<double> xs;
  for (int i = 0; i < 20001; ++i) {
    xs.push_back(s.lognormal(1.0, 0.5));
  }
  std::nth_element(xs.begin(), xs.begin() + 10000, xs.end());
  EXPECT_NEAR(xs[10000], std::exp(1.0), 0.05);
}

TEST(RandomStream, WeightedChoiceFollowsWeightsAndSkipsZero) {
  RandomStream s(5, "w");
  const std::array<double, 3> w{1.0, 0.0, 3.0};
  std::array<int, 3> counts{};
  const int n = 40000;
  for (int i = 0; i < n; ++i) {
    ++counts[s.weighted_choice(w)];
  }
  EXPECT_EQ(counts[1], 0);
  EXPECT_NEAR(counts[0], n / 4, 450);  // 5 sigma = 5 * sqrt(n * 0.25 * 0.75) = 433
}

}  // namespace
}  // namespace tidesim
