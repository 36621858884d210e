#include "tidesim/sim/admission/gavel_restart.hpp"

#include <algorithm>
#include <cmath>

namespace tidesim::gavel {

double micro_task_s(double throughput, double steps_left, double round_s) {
  if (throughput <= 0.0) {
    return 0.0;
  }
  return std::min(std::floor(throughput * round_s), steps_left) / throughput;
}

double restart_delay(const RestartCase& c, double round_s, double overhead_s) {
  if (overhead_s <= 0.0 || c.ran_last_round || c.first_round || c.throughput <= 0.0) {
    return 0.0;
  }
  const double seconds = micro_task_s(c.throughput, c.steps_left, round_s);
  return seconds > round_s - kRestartMarginS ? overhead_s : 0.0;
}

}  // namespace tidesim::gavel
