// Overflow-safe arithmetic on validated values (issue 16; docs/robustness.md, "Arithmetic").
// Every case below was signed overflow (undefined behaviour: UBSan aborts on it under
// tools/test.sh --sanitize) or an exception with no place before the change; the expected values
// follow from the int64 limits, 2^63 - 1 = 9,223,372,036,854,775,807. The sums of the API's
// resources are in tests/sim/api/resources_arithmetic_test.cpp.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "tidesim/sim/engine/checked.hpp"
#include "tidesim/sim/engine/simulation.hpp"
#include "tidesim/sim/engine/time.hpp"

namespace tidesim {
namespace {

using namespace std::chrono_literals;

constexpr std::int64_t k2to31 = std::int64_t{1} << 31;
constexpr std::int64_t k2to32 = std::int64_t{1} << 32;

TEST(Checked, SaturatesAtTheInt64Limits) {
  EXPECT_EQ(saturating_add(2, 3), 5);
  EXPECT_EQ(saturating_add(kInt64Max, 1), kInt64Max);
  EXPECT_EQ(saturating_add(kInt64Max, kInt64Max), kInt64Max);
  EXPECT_EQ(saturating_add(kInt64Min, -1), kInt64Min);
  EXPECT_EQ(saturating_sub(5, 7), -2);
  EXPECT_EQ(saturating_sub(kInt64Min, 1), kInt64Min);
  EXPECT_EQ(saturating_sub(0, kInt64Min), kInt64Max);  // 2^63 does not fit
  EXPECT_EQ(saturating_mul(k2to31, k2to31), std::int64_t{1} << 62);
  EXPECT_EQ(saturating_mul(k2to32, k2to32), kInt64Max);  // 2^64
  EXPECT_EQ(saturating_mul(-k2to32, k2to32), kInt64Min);
}

TEST(Checked, SaysWhenTheExactResultDoesNotFit) {
  EXPECT_EQ(checked_mul(k2to31, k2to31), std::int64_t{1} << 62);
  EXPECT_FALSE(checked_mul(k2to32, k2to31).has_value());  // 2^63
  EXPECT_EQ(checked_add(kInt64Max - 1, 1), kInt64Max);
  EXPECT_FALSE(checked_add(kInt64Max, 1).has_value());
}

TEST(Checked, MulDivKeepsTheWideProduct) {
  // x * 100 / x = 100 for any x; (2^63 - 1) * 100 needs 70 bits.
  EXPECT_EQ(mul_div(kInt64Max, 100, kInt64Max), 100);
  // (2^62 - 1) * 100 / (2^63 - 1): the ratio is just under 1/2, so the floor is 49.
  EXPECT_EQ(mul_div(kInt64Max / 2, 100, kInt64Max), 49);
  EXPECT_EQ(mul_div(3, 100, 4), 75);
}

TEST(SimulationClock, ADelayPastTheEndOfTimeSaturates) {
  // now = 5 us; now + Duration::max() would overflow: the event goes to TimePoint::max(),
  // after any horizon.
  Simulation sim;
  sim.schedule_in(5us, [] {});
  sim.run();
  bool fired = false;
  sim.schedule_in(Duration::max(), [&] { fired = true; });
  sim.run(TimePoint(kMaxInputDuration));
  EXPECT_FALSE(fired);
  EXPECT_EQ(sim.now(), TimePoint(kMaxInputDuration));
}

TEST(Durations, AtMostAThousandYears) {
  // 1000 years of 365.25 days = 365,250 days.
  EXPECT_EQ(parse_duration("365250d"), kMaxInputDuration);
  try {
    parse_duration("365251d");
    FAIL() << "365251d accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "'365251d' is out of range (at most 365250d, 1000 years)");
  }
  // 400 digits: std::stod threw std::out_of_range (which no reader caught); now the ordinary
  // range error.
  const std::string huge = "1" + std::string(400, '0') + "s";
  EXPECT_THROW(parse_duration(huge), std::invalid_argument);
}

}  // namespace
}  // namespace tidesim
