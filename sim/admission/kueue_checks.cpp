#include "tidesim/sim/admission/kueue_checks.hpp"

#include <algorithm>

namespace tidesim::tas {

bool QueueCheck::applies_to(const std::string& flavor) const {
  return on_flavors.empty() || on_flavors.contains(flavor);
}

bool delays_topology(const std::vector<QueueCheck>& checks, const std::string& flavor) {
  return std::any_of(checks.begin(), checks.end(),
                     [&](const QueueCheck& c) { return c.provisioning() && c.applies_to(flavor); });
}

std::set<std::string> checks_for(const std::vector<QueueCheck>& checks,
                                 const std::set<std::string>& flavors) {
  std::set<std::string> out;
  for (const QueueCheck& c : checks) {
    if (std::any_of(flavors.begin(), flavors.end(),
                    [&](const std::string& f) { return c.applies_to(f); })) {
      out.insert(c.name);
    }
  }
  return out;
}

std::vector<std::string> waiting_for(const std::set<std::string>& required,
                                     const std::vector<CheckState>& states) {
  std::vector<std::string> out;
  for (const std::string& name : required) {
    auto it = std::find_if(states.begin(), states.end(),
                           [&](const CheckState& s) { return s.name == name; });
    const std::string state = it == states.end() ? "Pending" : it->state;
    if (state != "Ready") {
      out.push_back(name + " (" + state + ")");
    }
  }
  return out;
}

std::string apply_updates(TasPodSet& podset, const std::vector<CheckState>& states) {
  for (const CheckState& s : states) {
    if (s.state != "Ready") {
      continue;
    }
    for (const PodSetUpdate& u : s.updates) {
      if (u.podset != podset.name) {
        continue;
      }
      for (const auto& [key, value] : podset.node_selector) {
        if (auto it = u.node_selector.find(key);
            it != u.node_selector.end() && it->second != value) {
          return "invalid admission check PodSetUpdate: conflict for nodeSelector: conflict for "
                 "key=" +
                 key + ", value1=" + value + ", value2=" + it->second;
        }
      }
      podset.node_selector.insert(u.node_selector.begin(), u.node_selector.end());
      for (const Toleration& t : u.tolerations) {
        if (std::find(podset.tolerations.begin(), podset.tolerations.end(), t) ==
            podset.tolerations.end()) {
          podset.tolerations.push_back(t);
        }
      }
    }
  }
  return "";
}

}  // namespace tidesim::tas
