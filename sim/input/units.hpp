#pragma once
/// Quantities with units, as written in scenario files and Kubernetes manifests.
///
/// Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource/quantity.go) have one
/// reader, parse_quantity: the amounts of Pod and Node objects, a scenario's inline pods and node
/// groups, and queue quotas. Its grammar is quantity.go's:
///
///   quantity ::= [+|-] number [suffix]      number ::= digits | digits.digits | digits. | .digits
///   suffix   ::= Ki | Mi | Gi | Ti | Pi | Ei          (powers of 1024)
///              | n | u | m | k | M | G | T | P | E    (powers of 1000; n = 10^-9, m = 10^-3)
///              | (e|E) [+|-] digits                   (a decimal exponent: 1e3 = 1000)
///
/// The value is exact (no floating point) and rounded up as Quantity.Value() / MilliValue() do
/// ("0.1" bytes is 1; "0.5m" CPU is 1m). A negative value is rejected (the API server's
/// ValidateNonnegativeQuantity; "-0" is zero), and so is a value whose result does not fit in a
/// signed 64-bit integer (Kubernetes caps "9Ei" at 2^63 - 1; no resource amount is that large).
/// A number needs a digit: quantity.go's scanner also reads ".", "+" or "Gi" as 0, contrary to
/// its grammar; tidesim refuses them.
///
/// Byte sizes (parse_bytes) are the same quantities, optionally followed by B.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tidesim {

/// Why a quantity or byte size was rejected; what() is a sentence naming the text.
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

/// A byte count: a Kubernetes quantity read as parse_quantity(text) reads it ("16Gi", "1E3",
/// ".5Gi", "4096"), or one followed by B as the project writes sizes: "24GiB" is 24Gi, "512MB"
/// 512M, "1.5TB" 1.5T, "4096B" 4096, and "100KB" (or "100kB") 100k. Before a B the sub-byte
/// suffixes n, u and m are refused ("512mB" is a typo, not 0.512 bytes). Throws QuantityError on
/// anything else or a negative value.
std::int64_t parse_bytes(std::string_view text);

/// Parses a bandwidth into bytes per second: "25GB/s", "300GiB/s", "100Gbit/s" or "100Gb/s" (bits),
/// "500MB/s". The "/s" is required. Throws std::invalid_argument.
double parse_bandwidth(std::string_view text);
/// The largest bandwidth parse_bandwidth reads: 10^18 B/s (1 EB/s).
inline constexpr double kMaxBandwidth = 1e18;

/// Parses a fraction: "85%" is 0.85; a bare number must lie in [0, 1] ("0.85").
/// Throws std::invalid_argument when malformed or outside [0, 1] (a percentage outside [0, 100]).
double parse_fraction(std::string_view text);

/// Formats bytes with a binary prefix and up to two decimals: "24GiB", "1.5GiB", "300MiB".
std::string format_bytes(std::int64_t bytes);

/// Formats a bandwidth in SI units: "25GB/s", "12.4GB/s".
std::string format_bandwidth(double bytes_per_second);

}  // namespace tidesim
