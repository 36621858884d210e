#include "tidesim/sim/admission/kueue_partial.hpp"

namespace tidesim::tas {

bool can_be_partially_admitted(const std::vector<std::int32_t>& counts,
                               const std::vector<std::int32_t>& min_counts) {
  for (std::size_t i = 0; i < counts.size() && i < min_counts.size(); ++i) {
    if (counts[i] > min_counts[i]) {
      return true;
    }
  }
  return false;
}

std::optional<std::vector<std::int32_t>> reduce_counts(
    const std::vector<std::int32_t>& counts, const std::vector<std::int32_t>& min_counts,
    const std::function<bool(const std::vector<std::int32_t>&)>& fits) {
  std::vector<std::int64_t> deltas(counts.size());
  std::int64_t total = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    deltas[i] = counts[i] - (i < min_counts.size() ? min_counts[i] : counts[i]);
    total += deltas[i];
  }
  if (total == 0) {
    return std::nullopt;
  }
  std::vector<std::int32_t> current(counts.size());
  std::optional<std::vector<std::int32_t>> last_good;
  std::int64_t last_good_index = 0;
  auto probe = [&](std::int64_t step) {
    for (std::size_t i = 0; i < counts.size(); ++i) {
      current[i] = counts[i] - static_cast<std::int32_t>(deltas[i] * step / total);
    }
    const bool ok = fits(current);
    if (ok) {
      last_good_index = step;
      last_good = current;
    }
    return ok;
  };
  // Go's sort.Search(total + 1, probe): the smallest step for which probe holds.
  std::int64_t lo = 0;
  std::int64_t hi = total + 1;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (!probe(mid)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo != last_good_index || !last_good) {
    return std::nullopt;
  }
  return last_good;
}

}  // namespace tidesim::tas
