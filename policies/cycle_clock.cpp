#include "tidesim/policies/cycle_clock.hpp"

#include <algorithm>
#include <utility>

namespace tidesim::policies {

CycleClock::CycleClock(Simulation& sim, std::function<void()> cycle)
    : sim_(sim), cycle_(std::move(cycle)) {}

void CycleClock::wake(TimePoint at) {
  at = std::max({at, sim_.now(), busy_until_});
  if (next_ && *next_ <= at) {
    return;  // a cycle comes soon enough
  }
  if (next_) {
    sim_.cancel(event_);
  }
  next_ = at;
  event_ = sim_.schedule_at(at, [this] { cycle_(); });
}

}  // namespace tidesim::policies
