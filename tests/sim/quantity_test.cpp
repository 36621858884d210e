// Kubernetes quantities (sim/input/quantity.hpp). Expected values by hand from the grammar in
// k8s.io/apimachinery/pkg/api/resource/quantity.go and its rounding (Value / MilliValue round up).
#include "tidesim/sim/input/quantity.hpp"

#include <gtest/gtest.h>

#include <string>

namespace tidesim {
namespace {

TEST(Quantity, DecimalBinaryAndExponentSuffixes) {
  EXPECT_EQ(parse_quantity("4000"), 4000);
  EXPECT_EQ(parse_quantity("1k"), 1000);
  EXPECT_EQ(parse_quantity("2M"), 2'000'000);
  EXPECT_EQ(parse_quantity("3G"), 3'000'000'000);
  EXPECT_EQ(parse_quantity("1T"), 1'000'000'000'000);
  EXPECT_EQ(parse_quantity("1P"), 1'000'000'000'000'000);
  EXPECT_EQ(parse_quantity("1E"), 1'000'000'000'000'000'000);
  EXPECT_EQ(parse_quantity("1Ki"), 1024);
  EXPECT_EQ(parse_quantity("16Gi"), 16LL << 30);
  EXPECT_EQ(parse_quantity("1.5Gi"), 3LL << 29);
  EXPECT_EQ(parse_quantity("1000Mi"), 1000LL << 20);
  EXPECT_EQ(parse_quantity("1Ei"), 1LL << 60);
  EXPECT_EQ(parse_quantity("1e3"), 1000);
  EXPECT_EQ(parse_quantity("1E3"), 1000);  // E followed by digits is an exponent, not exa
  EXPECT_EQ(parse_quantity("12e-1"), 2);   // 1.2 rounds up
  EXPECT_EQ(parse_quantity("+5"), 5);
  EXPECT_EQ(parse_quantity("5."), 5);
  EXPECT_EQ(parse_quantity("-0"), 0);
  EXPECT_EQ(parse_quantity("0"), 0);
  EXPECT_EQ(parse_quantity("9223372036854775807"), 9'223'372'036'854'775'807);
}

TEST(Quantity, MilliValuesAndRoundingUp) {
  EXPECT_EQ(parse_quantity("500m", 3), 500);
  EXPECT_EQ(parse_quantity("4", 3), 4000);
  EXPECT_EQ(parse_quantity("1.5", 3), 1500);
  EXPECT_EQ(parse_quantity("0.5m", 3), 1);  // MilliValue rounds up
  EXPECT_EQ(parse_quantity(".5"), 1);       // Value rounds up
  EXPECT_EQ(parse_quantity("0.1"), 1);
  EXPECT_EQ(parse_quantity("250m"), 1);  // 0.25 byte -> 1
  EXPECT_EQ(parse_quantity("1e-1000000"), 1);
  EXPECT_EQ(parse_quantity("1e15", 3), 1'000'000'000'000'000'000);
}

TEST(Quantity, IntegerQuantities) {
  EXPECT_EQ(parse_integer_quantity("2"), 2);
  EXPECT_EQ(parse_integer_quantity("1k"), 1000);
  EXPECT_EQ(parse_integer_quantity("2000m"), 2);
  EXPECT_THROW(parse_integer_quantity("0.5"), QuantityError);
  EXPECT_THROW(parse_integer_quantity("500m"), QuantityError);
}

std::string error_of(const std::string& text, int milli = 0) {
  try {
    parse_quantity(text, milli);
  } catch (const QuantityError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(Quantity, NegativeValuesAreRejected) {
  EXPECT_EQ(error_of("-1"), "'-1' is negative; resource quantities must be 0 or more");
  EXPECT_EQ(error_of("-500m", 3), "'-500m' is negative; resource quantities must be 0 or more");
  EXPECT_EQ(error_of("-1Gi"), "'-1Gi' is negative; resource quantities must be 0 or more");
}

TEST(Quantity, OutOfRangeValuesAreRejected) {
  EXPECT_EQ(error_of("9223372036854775808"), "'9223372036854775808' is out of range");
  EXPECT_EQ(error_of("8Ei"), "'8Ei' is out of range");  // 2^63
  EXPECT_EQ(error_of("1e19"), "'1e19' is out of range");
  EXPECT_EQ(error_of("1e16", 3), "'1e16' is out of range");  // 10^19 millicores
  EXPECT_EQ(error_of("1e999999999999999999999"), "'1e999999999999999999999' is out of range");
  EXPECT_EQ(error_of(std::string(500, '9')), "'" + std::string(500, '9') + "' has too many digits");
}

TEST(Quantity, MalformedTextIsRejected) {
  for (const char* bad :
       {"", "abc", "1.2.3", "1 Gi", "1GiB", "1K", "1e", "--1", ".", "1e+", "0x10", "1m5"}) {
    EXPECT_THROW(parse_quantity(bad), QuantityError) << "'" << bad << "'";
  }
}

}  // namespace
}  // namespace tidesim
