#pragma once
/// Metric collectors: objects that listen to a run's signals and, at the end of the run, turn what
/// they heard into named numbers. Models and policies never call them; the run driver (or a test)
/// emits signals, or calls the on_* handlers directly.
#include <map>
#include <string>

#include "tidesim/sim/api/run_signals.hpp"
#include "tidesim/sim/engine/time.hpp"

namespace tidesim::metrics {

/// Named metric values of one run. A metric that cannot be computed (no data, division by zero)
/// is absent from the map, never 0. Names and units are listed in sim/metrics/catalog.hpp.
using MetricValues = std::map<std::string, double, std::less<>>;

/// Base of every collector: four signal handlers (no-ops by default) and finish().
///
/// attach() connects the handlers to a RunSignals; the collector must then outlive every emit on
/// it and must not be moved (the subscriptions hold `this`). Handlers expect signals in
/// non-decreasing time order, as a run emits them; a sample earlier than the previous one is a
/// programming error (std::logic_error).
class Collector {
 public:
  Collector() = default;
  Collector(const Collector&) = delete;
  Collector& operator=(const Collector&) = delete;
  virtual ~Collector() = default;

  /// Subscribes on_job, on_sample, on_rate, on_scheduling and on_gang_life to `signals`.
  void attach(RunSignals& signals);

  /// A job or pod event.
  virtual void on_job(const JobEvent& event);
  /// A sample of the true cluster state.
  virtual void on_sample(const ClusterSample& sample);
  /// A job's speed changed.
  virtual void on_rate(const JobRate& rate);
  /// A scheduling cycle finished.
  virtual void on_scheduling(const SchedulingEvent& event);
  /// A gang's life under `faults.gang` failures ended.
  virtual void on_gang_life(const GangLifeRecord& record);

  /// Adds this collector's metrics, computed over [start of run, end], to `out`. `end` is the
  /// instant the run stopped (>= every signal's time). May be called more than once; it does not
  /// change the collector.
  virtual void finish(TimePoint end, MetricValues& out) const = 0;
};

}  // namespace tidesim::metrics
