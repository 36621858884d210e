#include "tidesim/sim/metrics/scheduling_metrics.hpp"

namespace tidesim::metrics {

void SchedulingMetricsCollector::on_scheduling(const SchedulingEvent& event) {
  ++cycles_;
  if (event.node.empty()) {
    ++unschedulable_;
  }
  if (event.fallback_stage >= 1) {
    ++fallback_cycles_;
    if (previous_stage_ == 0) {
      ++activations_;
    }
  }
  if (event.fallback_stage >= 2) {
    ++stage2_cycles_;
  }
  previous_stage_ = event.fallback_stage;
}

void SchedulingMetricsCollector::finish(TimePoint /*end*/, MetricValues& out) const {
  if (cycles_ == 0) {
    return;
  }
  out["scheduling_cycles"] = static_cast<double>(cycles_);
  out["unschedulable_cycles"] = static_cast<double>(unschedulable_);
  out["fallback_cycles"] = static_cast<double>(fallback_cycles_);
  out["fallback_stage2_cycles"] = static_cast<double>(stage2_cycles_);
  out["fallback_activations"] = static_cast<double>(activations_);
}

}  // namespace tidesim::metrics
