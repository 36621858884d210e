#include "sim/metrics/step_average.hpp"

#include <algorithm>
#include <stdexcept>

namespace tidesim::metrics {

void StepAverage::earlier_than_previous() {
  throw std::logic_error("StepAverage: observation earlier than the previous one");
}

void StepAverage::add(TimePoint t, std::optional<double> v) {
  if (last_t_) {
    if (t < *last_t_) {
      earlier_than_previous();
    }
    if (last_v_) {
      const Duration dt = t - *last_t_;
      weighted_sum_ += *last_v_ * to_seconds(dt);
      total_ += dt;
    }
  }
  last_t_ = t;
  last_v_ = v;
  if (v) {
    max_ = max_ ? std::max(*max_, *v) : *v;
    last_defined_ = v;
  }
}

Duration StepAverage::weight(TimePoint end) const {
  Duration total = total_;
  if (last_t_ && last_v_ && end > *last_t_) {
    total += end - *last_t_;
  }
  return total;
}

std::optional<double> StepAverage::mean(TimePoint end) const {
  if (!last_defined_) {
    return std::nullopt;
  }
  double sum = weighted_sum_;
  Duration total = total_;
  if (last_t_ && last_v_ && end > *last_t_) {
    const Duration dt = end - *last_t_;
    sum += *last_v_ * to_seconds(dt);
    total += dt;
  }
  if (total.count() == 0) {
    return last_defined_;
  }
  return sum / to_seconds(total);
}

}  // namespace tidesim::metrics
