#include "tidesim/sim/metrics/gang_failures.hpp"

#include <algorithm>

namespace tidesim::metrics {

void GangFailuresCollector::on_gang_life(const GangLifeRecord& r) {
  ++lives_;
  wall_ += r.wall;
  productive_ += r.productive;
  lost_work_ += r.lost_work;
  detection_ += r.detection;
  restart_ += r.restart;
  checkpoint_ += r.checkpoint;
  planned_downtime_ += r.planned_downtime;
  planned_ += r.planned;
  int unexpected = 0;
  for (const auto& [name, count] : r.unexpected) {
    unexpected += count;
    auto it = std::find_if(by_component_.begin(), by_component_.end(),
                           [&name](const auto& e) { return e.first == name; });
    if (it == by_component_.end()) {
      by_component_.emplace_back(name, count);
    } else {
      it->second += count;
    }
  }
  Totals& t = r.gpus < 1024 ? small_ : large_;
  t.running += r.running;
  t.unexpected += unexpected;
}

void GangFailuresCollector::finish(TimePoint /*end*/, MetricValues& out) const {
  if (lives_ == 0) {
    return;
  }
  const int unexpected = small_.unexpected + large_.unexpected;
  out["interruptions_unexpected"] = unexpected;
  out["interruptions_planned"] = planned_;
  for (const auto& [name, count] : by_component_) {
    out["interruptions_" + name] = count;
  }
  if (wall_ > 0) {
    out["ettr"] = productive_ / wall_;
    out["interruptions_per_day"] = unexpected / (wall_ / 86'400.0);
  }
  out["failure_hours_lost_work"] = lost_work_ / 3600.0;
  out["failure_hours_detection"] = detection_ / 3600.0;
  out["failure_hours_restart"] = restart_ / 3600.0;
  out["failure_hours_checkpoint"] = checkpoint_ / 3600.0;
  out["failure_hours_planned"] = planned_downtime_ / 3600.0;
  auto mtti = [&out](const char* name, double running, int count) {
    if (count > 0) {
      out[name] = running / count / 3600.0;
    }
  };
  mtti("mtti_hours", small_.running + large_.running, unexpected);
  mtti("mtti_hours_under_1k_gpus", small_.running, small_.unexpected);
  mtti("mtti_hours_1k_gpus_plus", large_.running, large_.unexpected);
}

}  // namespace tidesim::metrics
