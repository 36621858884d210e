// Kubernetes quantities and byte sizes (sim/input/units.hpp). The cases of Kubernetes' own tests
// (k8s.io/apimachinery/pkg/api/resource/quantity_test.go: TestQuantityParse, TestParseQuantity,
// TestScaledValue, TestQuantityRoundUp) are checked against the values their tables give; where
// tidesim refuses what Kubernetes accepts, the test says so and why. The other expected values are
// by hand from quantity.go's grammar and its rounding (Value / MilliValue round up).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/input/units.hpp"

namespace tidesim {
namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

std::string error_of(const std::string& text, int milli = 0) {
  try {
    parse_quantity(text, milli);
  } catch (const QuantityError& e) {
    return e.what();
  }
  return "(accepted)";
}

// A row of TestQuantityParse's table: the text and the exact value Kubernetes stores for it,
// decQuantity(mantissa, scale) = mantissa * 10^scale (below 1n rounded up to 1n, as ParseQuantity
// does; rounding up again to 1 or 1m gives what rounding the exact value up would).
struct Case {
  const char* text;
  std::int64_t mantissa;
  int scale;
};

// TestQuantityParse's table, less "9Ei", "9223372036854775807Ki" and "12E" (see
// KubernetesValuesBeyondInt64AreRefused).
const std::vector<Case> kParseCases = {
    {"0", 0, 0},
    {"0n", 0, 0},
    {"0u", 0, 0},
    {"0m", 0, 0},
    {"0Ki", 0, 0},
    {"0k", 0, 0},
    {"0Mi", 0, 0},
    {"0M", 0, 0},
    {"0Gi", 0, 0},
    {"0G", 0, 0},
    {"0Ti", 0, 0},
    {"0T", 0, 0},
    // Quantity less numbers are allowed
    {"1", 1, 0},
    // Binary suffixes
    {"1Ki", 1024, 0},
    {"8Ki", 8 * 1024, 0},
    {"7Mi", 7LL << 20, 0},
    {"6Gi", 6LL << 30, 0},
    {"5Ti", 5LL << 40, 0},
    {"4Pi", 4LL << 50, 0},
    {"3Ei", 3LL << 60, 0},
    {"10Ti", 10LL << 40, 0},
    {"100Ti", 100LL << 40, 0},
    // Decimal suffixes
    {"5n", 5, -9},
    {"4u", 4, -6},
    {"3m", 3, -3},
    {"9", 9, 0},
    {"8k", 8, 3},
    {"50k", 5, 4},
    {"7M", 7, 6},
    {"6G", 6, 9},
    {"5T", 5, 12},
    {"40T", 4, 13},
    {"300T", 3, 14},
    {"2P", 2, 15},
    {"1E", 1, 18},
    // Decimal exponents
    {"1E-3", 1, -3},
    {"1e3", 1, 3},
    {"1E6", 1, 6},
    {"1e9", 1, 9},
    {"1E12", 1, 12},
    {"1e15", 1, 15},
    {"1E18", 1, 18},
    // Nonstandard but still parsable
    {"1e14", 1, 14},
    {"1e13", 1, 13},
    {"100.035k", 100035, 0},
    // Things that look like floating point
    {"0.001", 1, -3},
    {"0.0005k", 5, -1},
    {"0.005", 5, -3},
    {"0.05", 5, -2},
    {"0.5", 5, -1},
    {"0.00050k", 5, -1},
    {"0.00500", 5, -3},
    {"0.05000", 5, -2},
    {"0.50000", 5, -1},
    {"0.5e0", 5, -1},
    {"0.5e-1", 5, -2},
    {"0.5e-2", 5, -3},
    {"10.035M", 10035, 3},
    {"1.2e3", 12, 2},
    {"1.3E+6", 13, 5},
    {"1.40e9", 14, 8},
    {"1.53E12", 153, 10},
    {"1.6e15", 16, 14},
    {"1.7E18", 17, 17},
    {"9.01", 901, -2},
    {"8.1k", 81, 2},
    {"7.123456M", 7123456, 0},
    {"6.987654321G", 6987654321, 0},
    {"5.444T", 5444, 9},
    {"40.1T", 401, 11},
    {"300.2T", 3002, 11},
    {"2.5P", 25, 14},
    {"1.01E", 101, 16},
    // Things that saturate/round
    {"3.001n", 4, -9},
    {"1.1E-9", 2, -9},
    {"0.0000000001", 1, -9},
    {"0.0000000005", 1, -9},
    {"0.00000000050", 1, -9},
    {"0.5e-9", 1, -9},
    {"0.9n", 1, -9},
    {"0.00000012345", 124, -9},
    {"0.00000012354", 124, -9},
    // We'll accept fractional binary stuff, too.
    {"100.035Ki", 10243584, -2},
    {"0.5Mi", 524288, 0},
    {"0.05Gi", 536870912, -1},
    {"0.025Ti", 274877906944, -1},
    // Things written by trolls
    {"0.000000000001Ki", 2, -9},
    {".001", 1, -3},
    {".0001k", 100, -3},
    {"1.", 1, 0},
    {"1.G", 1, 9},
};

// mantissa * 10^scale in units of 10^-digits, rounded up (Quantity.ScaledValue(-digits)); nullopt
// when that is beyond int64. mantissa >= 0.
std::optional<std::int64_t> ceil_scaled(std::int64_t mantissa, int scale, int digits) {
  const int e = scale + digits;
  if (e >= 0) {
    std::int64_t v = mantissa;
    for (int k = 0; k < e; ++k) {
      if (v > kMax / 10) {
        return std::nullopt;
      }
      v *= 10;
    }
    return v;
  }
  std::int64_t divisor = 1;
  for (int k = 0; k < -e; ++k) {
    if (divisor > kMax / 10) {
      return mantissa > 0 ? 1 : 0;  // 10^-e exceeds any mantissa
    }
    divisor *= 10;
  }
  return mantissa / divisor + (mantissa % divisor != 0 ? 1 : 0);
}

// Value() and MilliValue() of each row, written as is and with a "+" (as TestQuantityParse also
// tries); a result beyond int64 (MilliValue of "1.7E18", which Kubernetes lets overflow) is
// refused.
TEST(Quantity, KubernetesParseCasesGiveTheirValueAndMilliValue) {
  for (const Case& c : kParseCases) {
    for (const std::string sign : {"", "+"}) {
      const std::string text = sign + c.text;
      for (const int digits : {0, 3}) {
        const auto want = ceil_scaled(c.mantissa, c.scale, digits);
        if (want) {
          EXPECT_EQ(parse_quantity(text, digits), *want) << text << " at 10^-" << digits;
        } else {
          EXPECT_EQ(error_of(text, digits), "'" + text + "' is out of range");
        }
      }
    }
  }
}

// TestQuantityParse also parses "-" + each row: Kubernetes keeps the negative value; a resource
// amount must be 0 or more (the API server's ValidateNonnegativeQuantity), so only the zeros pass.
TEST(Quantity, KubernetesParseCasesNegatedAreRefusedUnlessZero) {
  for (const Case& c : kParseCases) {
    const std::string text = std::string("-") + c.text;
    if (c.mantissa == 0) {
      EXPECT_EQ(parse_quantity(text), 0) << text;
    } else {
      EXPECT_EQ(error_of(text),
                "'" + text + "' is negative; resource quantities must be 0 or more");
    }
  }
}

// TestQuantityParse's invalid list, and its empty string.
TEST(Quantity, KubernetesInvalidCasesAreRefused) {
  for (const char* bad : {"", "1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i",
                          "-3.01e-", " 1", "1 "}) {
    EXPECT_THROW(parse_quantity(bad), QuantityError) << "'" << bad << "'";
  }
}

// TestParseQuantity's rows around 10^18 and 2^63 (positive ones), read with Value(): those whose
// value rounded up fits in int64 give it, the others are out of range.
TEST(Quantity, KubernetesBoundaryCases) {
  const std::vector<std::pair<const char*, std::int64_t>> fits = {
      {"999999999999999999", 999'999'999'999'999'999},
      {"999999999999999999.0", 999'999'999'999'999'999},
      {"999999999999999999.1", 1'000'000'000'000'000'000},
      {"1E", 1'000'000'000'000'000'000},
      {"1.0E", 1'000'000'000'000'000'000},
      {"1000000000000000000", 1'000'000'000'000'000'000},
      {"1000000000000000000.0", 1'000'000'000'000'000'000},
      {"1.0000000000000000001E", 1'000'000'000'000'000'001},
      {"1000000000000000000.1", 1'000'000'000'000'000'001},
      {"1.000000000000000001E", 1'000'000'000'000'000'001},
      {"1000000000000000001", 1'000'000'000'000'000'001},
      {"9223372036854775806", kMax - 1},
      {"9223372036854775806.0", kMax - 1},
      {"9223372036854775806000m", kMax - 1},
      {"9223372036854775806.1", kMax},
      {"9223372036854775807", kMax},
      {"9223372036854775807.0", kMax},
      {"9223372036854775807000m", kMax},
  };
  for (const auto& [text, value] : fits) {
    EXPECT_EQ(parse_quantity(text), value) << text;
  }
  for (const char* text :
       {"9223372036854775807.1", "9223372036854775808", "9223372036854775808.0",
        "9223372036854775808000m", "9223372036854775808.1", "9999999999999999999",
        "9999999999999999999.0", "9999999999999999999000m", "10E", "10.0E", "10000000000000000000",
        "10000000000000000000000m", "10.000000000000000001E", "10000000000000000001"}) {
    EXPECT_EQ(error_of(text), "'" + std::string(text) + "' is out of range");
  }
  EXPECT_EQ(error_of("-9223372036854775808"),
            "'-9223372036854775808' is negative; resource quantities must be 0 or more");
}

// TestScaledValue: 1 at scale n, u, m or 1 read at each other scale (rounded up), and 1e2 at
// 10^-2.
TEST(Quantity, KubernetesScaledValues) {
  const std::vector<std::pair<const char*, int>> ones = {{"1n", 9}, {"1u", 6}, {"1m", 3}, {"1", 0}};
  for (const auto& [text, from] : ones) {
    for (const int to : {9, 6, 3, 0}) {
      const std::int64_t want = from >= to ? 1 : ceil_scaled(1, to - from, 0).value();
      EXPECT_EQ(parse_quantity(text, to), want) << text << " at 10^-" << to;
    }
  }
  EXPECT_EQ(parse_quantity("1e2", 2), 100 * 100);
}

// TestQuantityRoundUp's positive rows: 9.01 rounded up at 10^-3 ... 10^2.
TEST(Quantity, KubernetesRoundUp) {
  EXPECT_EQ(parse_quantity("9.01", 3), 9010);
  EXPECT_EQ(parse_quantity("9.01", 2), 901);
  EXPECT_EQ(parse_quantity("9.01", 1), 91);
  EXPECT_EQ(parse_quantity("9.01", 0), 10);
  EXPECT_EQ(parse_quantity("9.01", -1), 1);  // 10 in units of 10
  EXPECT_EQ(parse_quantity("9.01", -2), 1);  // 100 in units of 100
}

// Where tidesim refuses what Kubernetes accepts. Beyond int64: quantity.go caps "9Ei" and
// "9223372036854775807Ki" at 2^63 - 1 and keeps "12E" (1.2 * 10^19) as a decimal whose Value()
// overflows; no resource amount is that large. Without a digit: quantity.go's scanner reads "."
// and "-." (TestParseQuantityString), "+" or a bare suffix ("Gi") as 0, contrary to its grammar's
// <number>, which needs one; a missing number is a mistake worth an error.
TEST(Quantity, KubernetesQuirksAreRefused) {
  for (const char* text : {"9Ei", "9223372036854775807Ki", "12E"}) {
    EXPECT_EQ(error_of(text), "'" + std::string(text) + "' is out of range");
  }
  for (const char* text : {".", "-.", "+", "-", "Gi", "m", "k", "e3"}) {
    EXPECT_EQ(error_of(text),
              "'" + std::string(text) + "' is not a Kubernetes quantity (e.g. 500m, 2, 16Gi, 1e3)");
  }
}

TEST(Quantity, MilliValuesAndRoundingUp) {
  EXPECT_EQ(parse_quantity("500m", 3), 500);
  EXPECT_EQ(parse_quantity("4", 3), 4000);
  EXPECT_EQ(parse_quantity("1.5", 3), 1500);
  EXPECT_EQ(parse_quantity("1k", 3), 1'000'000);
  EXPECT_EQ(parse_quantity("0.5m", 3), 1);  // MilliValue rounds up
  EXPECT_EQ(parse_quantity("0.4m", 3), 1);
  EXPECT_EQ(parse_quantity("1n", 3), 1);
  EXPECT_EQ(parse_quantity("1500000u", 3), 1500);
  EXPECT_EQ(parse_quantity(".5"), 1);  // Value rounds up
  EXPECT_EQ(parse_quantity("0.1"), 1);
  EXPECT_EQ(parse_quantity("250m"), 1);  // 0.25 byte -> 1
  EXPECT_EQ(parse_quantity(".5Gi"), 1LL << 29);
  EXPECT_EQ(parse_quantity("1E3"), 1000);  // E followed by digits is an exponent, not exa
  EXPECT_EQ(parse_quantity("12e-1"), 2);   // 1.2 rounds up
  EXPECT_EQ(parse_quantity("1e-1000000"), 1);
  EXPECT_EQ(parse_quantity("1e15", 3), 1'000'000'000'000'000'000);
}

TEST(Quantity, IntegerQuantities) {
  EXPECT_EQ(parse_integer_quantity("2"), 2);
  EXPECT_EQ(parse_integer_quantity("1k"), 1000);
  EXPECT_EQ(parse_integer_quantity("2000m"), 2);
  EXPECT_EQ(parse_integer_quantity("1e3"), 1000);
  EXPECT_THROW(parse_integer_quantity("0.5"), QuantityError);
  EXPECT_THROW(parse_integer_quantity("500m"), QuantityError);
  EXPECT_THROW(parse_integer_quantity("1n"), QuantityError);
}

TEST(Quantity, NegativeValuesAreRejected) {
  EXPECT_EQ(error_of("-1"), "'-1' is negative; resource quantities must be 0 or more");
  EXPECT_EQ(error_of("-500m", 3), "'-500m' is negative; resource quantities must be 0 or more");
  EXPECT_EQ(error_of("-1Gi"), "'-1Gi' is negative; resource quantities must be 0 or more");
  EXPECT_EQ(parse_quantity("-0"), 0);
}

TEST(Quantity, OutOfRangeValuesAreRejected) {
  EXPECT_EQ(error_of("8Ei"), "'8Ei' is out of range");  // 2^63
  EXPECT_EQ(error_of("1e19"), "'1e19' is out of range");
  EXPECT_EQ(error_of("1e16", 3), "'1e16' is out of range");  // 10^19 millicores
  EXPECT_EQ(error_of("1e999999999999999999999"), "'1e999999999999999999999' is out of range");
  EXPECT_EQ(error_of(std::string(500, '9')), "'" + std::string(500, '9') + "' has too many digits");
}

TEST(Quantity, MalformedTextIsRejected) {
  EXPECT_EQ(error_of(""), "'' is not a Kubernetes quantity (e.g. 500m, 2, 16Gi, 1e3): it is empty");
  EXPECT_EQ(error_of("1e+"), "'1e+' has an exponent without digits");
  // "1GiB" and "1K" are byte sizes (parse_bytes), not quantities.
  for (const char* bad :
       {"abc", "1.2.3", "1 Gi", "1GiB", "1K", "1e", "--1", "0x10", "1m5", "1e3k"}) {
    EXPECT_THROW(parse_quantity(bad), QuantityError) << "'" << bad << "'";
  }
}

// A byte size is a quantity, optionally followed by B: every quantity of Kubernetes' table reads
// as parse_quantity reads it, and so does each one of a whole-byte or larger suffix with a B.
TEST(ByteSize, KubernetesQuantitiesReadAsQuantities) {
  for (const Case& c : kParseCases) {
    const auto want = ceil_scaled(c.mantissa, c.scale, 0);
    ASSERT_TRUE(want) << c.text;
    EXPECT_EQ(parse_bytes(c.text), *want) << c.text;
    const std::string text = c.text;
    const char last = text.back();
    if (last != 'n' && last != 'u' && last != 'm') {
      EXPECT_EQ(parse_bytes(text + "B"), *want) << text << "B";
    }
  }
}

TEST(ByteSize, TheProjectsSpellings) {
  EXPECT_EQ(parse_bytes("24GiB"), 24LL << 30);
  EXPECT_EQ(parse_bytes("192GiB"), 192LL << 30);
  EXPECT_EQ(parse_bytes("1TiB"), 1LL << 40);
  EXPECT_EQ(parse_bytes("512MB"), 512'000'000);
  EXPECT_EQ(parse_bytes("1.5TB"), 1'500'000'000'000);
  EXPECT_EQ(parse_bytes("100KB"), 100'000);
  EXPECT_EQ(parse_bytes("100kB"), 100'000);
  EXPECT_EQ(parse_bytes("4096B"), 4096);
  EXPECT_EQ(parse_bytes("4096"), 4096);
  EXPECT_EQ(parse_bytes("1EB"), 1'000'000'000'000'000'000);
  EXPECT_EQ(parse_bytes("1e9B"), 1'000'000'000);
  EXPECT_EQ(parse_bytes("0.1GiB"), 107'374'183);  // 107374182.4 rounds up
  EXPECT_EQ(parse_bytes("-0B"), 0);
}

TEST(ByteSize, Errors) {
  const auto error = [](const std::string& text) {
    try {
      parse_bytes(text);
    } catch (const QuantityError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(error("-1GiB"), "'-1GiB' is negative; sizes must be 0 or more");
  EXPECT_EQ(error("8EiB"), "'8EiB' is out of range");
  EXPECT_EQ(error(""), "'' is not a byte size (e.g. 24GiB, 16Gi, 512MB): it is empty");
  // m, u and n before a B: megabytes mistyped, not thousandths of a byte.
  for (const char* bad :
       {"512mB", "1uB", "1nB", "B", "GiB", "1K", "1Kb", "24 gallons", "lots", "1iB", "1GiBB"}) {
    EXPECT_EQ(error(bad),
              "'" + std::string(bad) + "' is not a byte size (e.g. 24GiB, 16Gi, 512MB)");
  }
}

}  // namespace
}  // namespace tidesim
