#pragma once
/// Metrics of scheduling cycles: the seed's two-stage metrics fallback and unschedulable cycles.
#include "tidesim/sim/metrics/collector.hpp"

namespace tidesim::metrics {

/// From SchedulingEvent signals. Produces scheduling_cycles, unschedulable_cycles (no node),
/// fallback_cycles (fallback_stage >= 1), fallback_stage2_cycles (stage 2: pinned to the golden
/// node pool), and fallback_activations: the number of cycles with fallback_stage >= 1 whose
/// previous cycle (or none, for the first) had stage 0 — the number of times the scheduler
/// entered the fallback. All are absent when no cycle was seen.
class SchedulingMetricsCollector : public Collector {
 public:
  void on_scheduling(const SchedulingEvent& event) override;
  void finish(TimePoint end, MetricValues& out) const override;

 private:
  long cycles_ = 0;
  long unschedulable_ = 0;
  long fallback_cycles_ = 0;
  long stage2_cycles_ = 0;
  long activations_ = 0;
  int previous_stage_ = 0;
};

}  // namespace tidesim::metrics
