#pragma once
/// Quantities with units, as written in scenario files and Kubernetes manifests.
#include <cstdint>
#include <string>
#include <string_view>

namespace tidesim {

/// Parses a byte count: "24GiB", "16Gi" (Kubernetes), "512MiB", "1.5TB", "24576MB", "100KB",
/// "4096B" or "4096". SI prefixes (k/K, M, G, T, P with or without "B") are powers of 1000, binary
/// ones (Ki, Mi, Gi, Ti, Pi, with or without "B") powers of 1024. Throws std::invalid_argument on
/// anything else or a negative value.
std::int64_t parse_bytes(std::string_view text);

/// Parses a bandwidth into bytes per second: "25GB/s", "300GiB/s", "100Gbit/s" or "100Gb/s" (bits),
/// "500MB/s". The "/s" is required. Throws std::invalid_argument.
double parse_bandwidth(std::string_view text);

/// Parses a fraction: "85%" is 0.85; a bare number must lie in [0, 1] ("0.85").
/// Throws std::invalid_argument when malformed or outside [0, 1] (a percentage outside [0, 100]).
double parse_fraction(std::string_view text);

/// Parses a Kubernetes CPU quantity into millicores: "500m" -> 500, "4" -> 4000, "1.5" -> 1500.
std::int64_t parse_cpu_millis(std::string_view text);

/// Formats bytes with a binary prefix and up to two decimals: "24GiB", "1.5GiB", "300MiB".
std::string format_bytes(std::int64_t bytes);

/// Formats a bandwidth in SI units: "25GB/s", "12.4GB/s".
std::string format_bandwidth(double bytes_per_second);

}  // namespace tidesim
