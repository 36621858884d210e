#pragma once
/// Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource/quantity.go), the one
/// reader of the amounts in Pod and Node objects:
///
///   quantity ::= [+|-] number [suffix]      number ::= digits | digits.digits | digits. | .digits
///   suffix   ::= Ki | Mi | Gi | Ti | Pi | Ei          (powers of 1024)
///              | m | k | M | G | T | P | E            (powers of 1000; m = 1/1000)
///              | (e|E) [+|-] digits                   (a decimal exponent: 1e3 = 1000)
///
/// The value is exact (no floating point) and rounded up as Quantity.Value() / MilliValue() do
/// ("0.1" bytes is 1; "0.5m" CPU is 1m). A negative value is rejected (the API server's
/// ValidateNonnegativeQuantity; "-0" is zero), and so is a value whose result does not fit in a
/// signed 64-bit integer.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tidesim {

/// Why a quantity was rejected; what() is a sentence naming the text.
class QuantityError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// The quantity in `text` in units of 10^-`milli_digits` (0: Value(), 3: MilliValue()), rounded up.
/// Throws QuantityError when `text` is not a quantity, is negative or is out of range.
std::int64_t parse_quantity(std::string_view text, int milli_digits = 0);

/// Like parse_quantity(text) but the quantity must be a whole number ("2", "1k", "1e3"; not
/// "0.5" or "500m"): how the API server validates extended resources such as nvidia.com/gpu.
std::int64_t parse_integer_quantity(std::string_view text);

}  // namespace tidesim
