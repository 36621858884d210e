#pragma once
/// Synchronous gangs under the failures of `faults.gang` (GangLifeRecord, docs/failures.md
/// "Gangs"; Kokolis et al., "Revisiting Reliability in Large-Scale Machine Learning Research
/// Clusters", HPCA 2025, for the effective training time ratio). Metrics (docs/metrics.md):
///   ettr: sum of productive seconds / sum of wall seconds of the gangs' lives;
///   interruptions_unexpected, interruptions_planned, interruptions_<component>: counts;
///   interruptions_per_day: unexpected interruptions per day of gang wall time;
///   failure_hours_lost_work, _detection, _restart, _checkpoint, _planned: gang wall hours lost;
///   mtti_hours: gang running hours / unexpected interruptions; mtti_hours_under_1k_gpus and
///   mtti_hours_1k_gpus_plus: the same over gangs of fewer than 1,024 GPUs, and of 1,024 or more.
/// All absent when no gang life was recorded; an MTTI when its gangs had no interruption.
#include <map>
#include <string>
#include <vector>

#include "tidesim/sim/metrics/collector.hpp"

namespace tidesim::metrics {

class GangFailuresCollector : public Collector {
 public:
  void on_gang_life(const GangLifeRecord& record) override;
  void finish(TimePoint end, MetricValues& out) const override;

 private:
  struct Totals {
    double running = 0.0;
    int unexpected = 0;
  };
  int lives_ = 0;
  double wall_ = 0.0;
  double productive_ = 0.0;
  double lost_work_ = 0.0;
  double detection_ = 0.0;
  double restart_ = 0.0;
  double checkpoint_ = 0.0;
  double planned_downtime_ = 0.0;
  int planned_ = 0;
  std::vector<std::pair<std::string, int>> by_component_;  // first record's order
  Totals small_;
  Totals large_;
};

}  // namespace tidesim::metrics
