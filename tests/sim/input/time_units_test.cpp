#include <gtest/gtest.h>

#include <stdexcept>

#include "tidesim/sim/engine/time.hpp"
#include "tidesim/sim/input/units.hpp"

namespace tidesim {
namespace {

using namespace std::chrono_literals;

TEST(Duration, ParsesUnitSuffixes) {
  EXPECT_EQ(parse_duration("10s"), 10s);
  EXPECT_EQ(parse_duration("250ms"), 250ms);
  EXPECT_EQ(parse_duration("6h"), 6h);
  EXPECT_EQ(parse_duration("5m"), 5min);
  EXPECT_EQ(parse_duration("5min"), 5min);
  EXPECT_EQ(parse_duration("2d"), 48h);
  EXPECT_EQ(parse_duration("1.5h"), 90min);
  EXPECT_EQ(parse_duration("1h30m"), 90min);
  EXPECT_EQ(parse_duration("7us"), 7us);
  EXPECT_EQ(parse_duration("0s"), 0s);
}

TEST(Duration, RejectsMissingOrUnknownUnits) {
  EXPECT_THROW(parse_duration("10"), std::invalid_argument);
  EXPECT_THROW(parse_duration("10x"), std::invalid_argument);
  EXPECT_THROW(parse_duration(""), std::invalid_argument);
  EXPECT_THROW(parse_duration("s"), std::invalid_argument);
  EXPECT_THROW(parse_duration("5ns"), std::invalid_argument);
}

// The clock counts whole microseconds. A duration that is not a whole number of them was rounded
// to the nearest: "0.0000004s" and "0.4us" became 0 (a checkpoint interval of 0 means none, a
// cycle time of 0 is free) while "0.0000006s" became 1us. Refused now, whatever the unit.
TEST(Duration, RefusesWhatIsNotAWholeNumberOfMicroseconds) {
  for (const char* text : {"0.0000004s", "0.0000006s", "0.4us", "1.5us", "0.0001ms", "1.0000001s",
                           "1h0.0000001s", "0.00000000000000000001w"}) {
    EXPECT_THROW(parse_duration(text), std::invalid_argument) << text;
  }
  try {
    parse_duration("0.4us");
    FAIL() << "0.4us accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "'0.4us' is not a whole number of microseconds (the clock's resolution is 1us)");
  }
  // Exact values in any unit, by hand: 1us = 0.000001s = 0.001ms; 1.5ms = 1500us; 0.25m = 15s;
  // 1.000001s = 1,000,001us; 0.5w = 3.5d = 84h; trailing zeros change nothing.
  EXPECT_EQ(parse_duration("0.000001s"), 1us);
  EXPECT_EQ(parse_duration("0.001ms"), 1us);
  EXPECT_EQ(parse_duration("1.5ms"), 1500us);
  EXPECT_EQ(parse_duration("0.25m"), 15s);
  EXPECT_EQ(parse_duration("1.000001s"), 1'000'001us);
  EXPECT_EQ(parse_duration("2.50000000000000000000000s"), 2500ms);
  EXPECT_EQ(parse_duration("0.5w"), 84h);
  EXPECT_THROW(parse_duration("0.000000000001w"), std::invalid_argument);  // 0.6048us
}

TEST(Duration, FormatsWithTheLargestExactUnits) {
  EXPECT_EQ(format_duration(10s), "10s");
  EXPECT_EQ(format_duration(250ms), "250ms");
  EXPECT_EQ(format_duration(90min), "1h30m");
  EXPECT_EQ(format_duration(0s), "0s");
  EXPECT_EQ(format_duration(7us), "7us");
  EXPECT_EQ(format_duration(1500ms), "1500ms");
  EXPECT_EQ(format_duration(26h), "1d2h");
}

TEST(Duration, FormatThenParseRoundTrips) {
  for (const Duration d :
       {Duration(1), Duration(999'999), Duration(86'400'000'001), Duration(3'723'000'000)}) {
    EXPECT_EQ(parse_duration(format_duration(d)), d) << format_duration(d);
  }
}

TEST(Units, Bytes) {
  EXPECT_EQ(parse_bytes("24GiB"), 24LL << 30);
  EXPECT_EQ(parse_bytes("16Gi"), 16LL << 30);
  EXPECT_EQ(parse_bytes("512Mi"), 512LL << 20);
  EXPECT_EQ(parse_bytes("24GB"), 24'000'000'000LL);
  EXPECT_EQ(parse_bytes("1.5KiB"), 1536);
  EXPECT_EQ(parse_bytes("4096"), 4096);
  EXPECT_EQ(parse_bytes("100B"), 100);
  EXPECT_THROW(parse_bytes("24 gallons"), std::invalid_argument);
  EXPECT_THROW(parse_bytes("-1GiB"), std::invalid_argument);
  EXPECT_THROW(parse_bytes("GiB"), std::invalid_argument);
  EXPECT_EQ(format_bytes(24LL << 30), "24GiB");
  EXPECT_EQ(format_bytes(1536LL << 20), "1.5GiB");
}

TEST(Units, Bandwidth) {
  EXPECT_DOUBLE_EQ(parse_bandwidth("25GB/s"), 25e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("100Gbit/s"), 12.5e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("100Gb/s"), 12.5e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("1GiB/s"), 1073741824.0);
  EXPECT_THROW(parse_bandwidth("25GB"), std::invalid_argument);
  EXPECT_THROW(parse_bandwidth("fast/s"), std::invalid_argument);
  EXPECT_EQ(format_bandwidth(12.4e9), "12.4GB/s");
}

TEST(Units, Fractions) {
  EXPECT_DOUBLE_EQ(parse_fraction("85%"), 0.85);
  EXPECT_DOUBLE_EQ(parse_fraction("0.85"), 0.85);
  EXPECT_THROW(parse_fraction("1.5"), std::invalid_argument);
  EXPECT_THROW(parse_fraction("120%"), std::invalid_argument);
  EXPECT_THROW(parse_fraction("-5%"), std::invalid_argument);
}

}  // namespace
}  // namespace tidesim
