#include "tidesim/sim/admission/gavel_restart.hpp"

#include <algorithm>
#include <cmath>

namespace tidesim::gavel {

double restart_delay(const RestartCase& c, double round_s, double overhead_s) {
  if (overhead_s <= 0.0 || c.ran_last_round || c.first_round || c.throughput <= 0.0) {
    return 0.0;
  }
  const double steps = std::min(std::floor(c.throughput * round_s), c.steps_left);
  const double seconds = steps / c.throughput;
  return seconds > round_s - kRestartMarginS ? overhead_s : 0.0;
}

}  // namespace tidesim::gavel
