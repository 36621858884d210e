#include "largest_first.hpp"

#include <memory>

namespace fewest {

bool LargestFirst::before(const tidesim::JobView& a, const tidesim::JobView& b) const {
  return a.gpus > b.gpus;
}

tidesim::JobPolicyEntry largest_first_entry() {
  tidesim::JobPolicyEntry entry;
  entry.name = "largest-first";
  entry.keys = {tidesim::AdmissionKey::kBackfill};
  entry.factory = [](const tidesim::AdmissionConfig& config) {
    return std::make_unique<LargestFirst>(config.backfill);
  };
  entry.ordered = true;  // an OrderedJobPolicy: usable with Kueue-style queues too
  return entry;
}

}  // namespace fewest
