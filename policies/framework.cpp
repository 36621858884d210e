#include "tidesim/policies/framework.hpp"

#include <algorithm>

namespace tidesim::policies {

std::string Status::message() const {
  std::string out;
  for (const auto& r : reasons) {
    out += (out.empty() ? "" : ", ") + r;
  }
  return out;
}

void default_normalize_score(std::int64_t max_priority, bool reverse,
                             std::span<std::int64_t> scores) {
  std::int64_t max_count = 0;
  for (const auto s : scores) {
    max_count = std::max(max_count, s);
  }
  if (max_count == 0) {
    if (reverse) {
      std::fill(scores.begin(), scores.end(), max_priority);
    }
    return;
  }
  for (auto& s : scores) {
    s = max_priority * s / max_count;
    if (reverse) {
      s = max_priority - s;
    }
  }
}

}  // namespace tidesim::policies
