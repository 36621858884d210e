#include "tidesim/sim/api/telemetry.hpp"

#include <stdexcept>

namespace tidesim {

double nvlink_competition_index(int nvlink_tasks, int gpus) {
  if (nvlink_tasks < 0 || gpus < 0) {
    throw std::invalid_argument("nvlink_competition_index: negative count");
  }
  return gpus == 0 ? 0.0 : static_cast<double>(nvlink_tasks) / (static_cast<double>(gpus) * 2.0);
}

}  // namespace tidesim
