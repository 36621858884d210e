#include "tidesim/workloads/speedup.hpp"

#include <stdexcept>
#include <string>

namespace tidesim::workloads {

SpeedupFunction::SpeedupFunction(const GoodputFunction& goodput, const BatchSearch& search)
    : goodput_(goodput), search_(search) {
  set_base(1, 1);
}

const GoodputChoice& SpeedupFunction::best(int nodes, int replicas) {
  const auto key = std::make_pair(nodes, replicas);
  auto it = memo_.find(key);
  if (it == memo_.end()) {
    it = memo_.emplace(key, goodput_.optimize(nodes, replicas, search_)).first;
  }
  return it->second;
}

void SpeedupFunction::set_base(int nodes, int replicas) {
  const double base = best(nodes, replicas).goodput;
  if (!(base > 0)) {
    throw std::domain_error("SpeedupFunction: the base goodput on " + std::to_string(nodes) +
                            " nodes, " + std::to_string(replicas) +
                            " replicas is 0 (no batch configuration is valid there)");
  }
  base_goodput_ = base;
}

double SpeedupFunction::operator()(int nodes, int replicas) {
  if (nodes < 0 || nodes > replicas || (nodes == 0) != (replicas == 0)) {
    throw std::invalid_argument(
        "SpeedupFunction: need 0 <= nodes <= replicas, nodes = 0 exactly "
        "when replicas = 0; got " +
        std::to_string(nodes) + " nodes, " + std::to_string(replicas) + " replicas");
  }
  if (replicas == 0) {
    return 0;
  }
  return best(nodes, replicas).goodput / base_goodput_;
}

}  // namespace tidesim::workloads
