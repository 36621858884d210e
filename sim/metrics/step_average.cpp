#include "tidesim/sim/metrics/step_average.hpp"

#include <algorithm>
#include <stdexcept>

namespace tidesim::metrics {

void StepAverage::earlier_than_previous() {
  throw std::logic_error("StepAverage: observation earlier than the previous one");
}

void StepAverage::add(TimePoint t, std::optional<double> v) {
  if (v) {
    add(t, *v);
    return;
  }
  close_interval(t);
  last_v_.reset();
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
