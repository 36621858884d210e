#pragma once
/// The arguments `tidesim run` takes as text and tidesim.run() takes as Python values, read by
/// the same functions so that both refuse the same input with the same words (docs/python.md).
/// Each throws std::invalid_argument with the message the command line prints after the flag.
#include <cstdint>
#include <string>

namespace tidesim::app {

/// A seed (`--seed`, seeds=): a non-negative integer below 2^64, digits only.
std::uint64_t parse_seed(const std::string& text);

/// Runs in parallel (`--threads`, threads=): an integer in [1, 1024].
int parse_threads(const std::string& text);

/// A positive count written as an integer or in exponent form ("1000000", "1e9"), at most 9e18
/// (`--max-events`, max_events=).
std::int64_t parse_count(const std::string& text);

}  // namespace tidesim::app
