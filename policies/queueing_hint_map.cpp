#include "tidesim/policies/queueing_hint_map.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace tidesim::policies {

QueueingHintMap::QueueingHintMap(std::span<const Plugin* const> plugins) {
  for (const Plugin* p : plugins) {
    if (p == nullptr || std::find(plugins_.begin(), plugins_.end(), p) != plugins_.end()) {
      continue;
    }
    if (plugins_.size() == kMaxPlugins) {
      throw std::length_error("a scheduler profile has more than 64 plugins");
    }
    const int index = static_cast<int>(plugins_.size());
    plugins_.push_back(p);
    const Rejectors b = Rejectors{1} << index;
    for (ClusterEventWithHint& e : p->events_to_register()) {
      for (int k = 0; k < kClusterEventCount; ++k) {
        if ((e.event & (1U << k)) == 0) {
          continue;
        }
        registered_[k] |= b;
        if (e.hint) {
          hints_[k].push_back(Hint{.plugin = index, .fn = e.hint});
        } else {
          always_[k] |= b;
        }
      }
    }
  }
}

int QueueingHintMap::index_of(ClusterEvent event) {
  return std::countr_zero(static_cast<unsigned>(event));
}

Rejectors QueueingHintMap::bit(const Plugin* plugin) const {
  const auto it = std::find(plugins_.begin(), plugins_.end(), plugin);
  return it == plugins_.end() ? 0 : Rejectors{1} << (it - plugins_.begin());
}

bool QueueingHintMap::worth_requeuing(const PodSpec& pod, Rejectors rejectors,
                                      const ClusterEventInfo& event) const {
  if (rejectors == 0) {
    return event.event == kClusterChanged;
  }
  const int k = index_of(event.event);
  if ((rejectors & always_[k]) != 0) {
    return true;
  }
  if ((rejectors & registered_[k]) == 0) {
    return false;
  }
  return std::any_of(hints_[k].begin(), hints_[k].end(), [&](const Hint& h) {
    return (rejectors >> h.plugin & 1U) != 0 && h.fn(pod, event) == QueueingHint::kQueue;
  });
}

unsigned QueueingHintMap::events_of(Rejectors rejectors) const {
  unsigned out = 0;
  for (int k = 0; k < kClusterEventCount; ++k) {
    if ((rejectors & registered_[k]) != 0) {
      out |= 1U << k;
    }
  }
  return out;
}

}  // namespace tidesim::policies
