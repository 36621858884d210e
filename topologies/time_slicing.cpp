#include "tidesim/topologies/time_slicing.hpp"

#include <algorithm>
#include <boost/math/tools/roots.hpp>
#include <cstdint>
#include <stdexcept>

namespace tidesim {

std::optional<SliceModel> parse_slice_model(std::string_view text) {
  if (text == "work-conserving") {
    return SliceModel::kWorkConserving;
  }
  if (text == "equal") {
    return SliceModel::kEqual;
  }
  return std::nullopt;
}

std::string_view to_string(SliceModel model) {
  return model == SliceModel::kEqual ? "equal" : "work-conserving";
}

std::vector<double> divide_card_time(const std::vector<SlicedProcess>& processes, SliceModel model,
                                     double interference) {
  if (!(interference >= 0.0 && interference < 1.0)) {
    throw std::invalid_argument("time-slicing: interference must be in [0, 1)");
  }
  for (const SlicedProcess& p : processes) {
    if (!(p.cap > 0.0 && p.cap <= 1.0)) {
      throw std::invalid_argument("time-slicing: a cap must be in (0, 1]");
    }
  }
  const auto k = static_cast<double>(processes.size());
  const double capacity = processes.size() > 1 ? 1.0 - interference : 1.0;
  const auto at = [&](double w) {
    std::vector<double> shares;
    for (const SlicedProcess& p : processes) {
      shares.push_back(std::min(p.cap, w));
    }
    return shares;
  };
  const double fair = processes.empty() ? 1.0 : capacity / k;
  if (model == SliceModel::kEqual || processes.size() <= 1) {
    return at(fair);
  }
  // Time the card is busy with every process computing at ceiling w, less what it has.
  const auto excess = [&](double w) {
    double busy = 0.0;
    for (const SlicedProcess& p : processes) {
      busy += p.busy(std::min(p.cap, w));
    }
    return busy - capacity;
  };
  // At the fair share the busy times fit (each is at most its share): w >= fair.
  if (excess(1.0) <= 0.0) {
    return at(1.0);
  }
  if (excess(fair) >= 0.0) {
    return at(fair);
  }
  std::uintmax_t iterations = 100;
  const auto bracket = boost::math::tools::bisect(
      excess, fair, 1.0, boost::math::tools::eps_tolerance<double>(40), iterations);
  // The lower end keeps excess <= 0 (bisect keeps the sign change inside the bracket).
  return at(bracket.first);
}

}  // namespace tidesim
