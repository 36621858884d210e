#include "tidesim/sim/admission/job_policy.hpp"

#include <algorithm>
#include <tuple>

namespace tidesim {
namespace {

// The policy's order made strict: ties go by submission (time, then order, which is unique).
bool goes_before(const OrderedJobPolicy& policy, const JobView& a, const JobView& b) {
  if (policy.before(a, b)) {
    return true;
  }
  if (policy.before(b, a)) {
    return false;
  }
  return std::tie(a.submitted, a.order) < std::tie(b.submitted, b.order);
}

}  // namespace

std::vector<int> JobView::replica_placement() const {
  std::vector<int> out;
  out.reserve(placement.size());
  for (const int g : placement) {
    out.push_back(g / std::max(1, gpus_per_replica));
  }
  return out;
}

std::vector<std::size_t> OrderedJobPolicy::order(const JobPolicyState& state) const {
  std::vector<std::size_t> order(state.jobs.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
  }
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return goes_before(*this, state.jobs[a], state.jobs[b]);
  });
  return order;
}

JobDecision OrderedJobPolicy::decide(const JobPolicyState& state) {
  prepare(state);
  JobDecision decision;
  std::vector<const JobView*> candidates;
  std::int64_t free = state.capacity_gpus;
  for (const JobView& j : state.jobs) {
    if (!preemptive_ && j.admitted) {
      decision.run.push_back(j.id);
      free -= j.gpus;
    } else {
      candidates.push_back(&j);
    }
  }
  std::sort(candidates.begin(), candidates.end(),
            [this](const JobView* a, const JobView* b) { return goes_before(*this, *a, *b); });
  for (const JobView* j : candidates) {
    if (j->gpus <= free) {
      decision.run.push_back(j->id);
      free -= j->gpus;
    } else if (!backfill_) {
      break;
    }
  }
  std::sort(decision.run.begin(), decision.run.end());
  return decision;
}

}  // namespace tidesim
