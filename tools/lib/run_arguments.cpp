#include "tidesim/tools/lib/run_arguments.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace tidesim::app {

std::uint64_t parse_seed(const std::string& text) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || p != end) {
    throw std::invalid_argument("'" + text + "' is not a non-negative integer below 2^64");
  }
  return value;
}

int parse_threads(const std::string& text) {
  int value = 0;
  const char* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || p != end || value < 1 || value > 1024) {
    // CLI11's words for a value out of its Range(1, 1024).
    throw std::invalid_argument("Value " + text + " not in range 1 to 1024");
  }
  return value;
}

std::int64_t parse_count(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(v >= 1 && v <= 9e18) || v != std::floor(v)) {
    throw std::invalid_argument("'" + text + "' is not a count in [1, 9e18]");
  }
  return static_cast<std::int64_t>(v);
}

}  // namespace tidesim::app
