#include "tidesim/sim/metrics/collector.hpp"

namespace tidesim::metrics {

void Collector::attach(RunSignals& signals) {
  signals.job.connect([this](const JobEvent& e) { on_job(e); });
  signals.sample.connect([this](const ClusterSample& s) { on_sample(s); });
  signals.rate.connect([this](const JobRate& r) { on_rate(r); });
  signals.scheduling.connect([this](const SchedulingEvent& e) { on_scheduling(e); });
  signals.gang_life.connect([this](const GangLifeRecord& r) { on_gang_life(r); });
}

void Collector::on_job(const JobEvent& /*event*/) {}
void Collector::on_sample(const ClusterSample& /*sample*/) {}
void Collector::on_rate(const JobRate& /*rate*/) {}
void Collector::on_scheduling(const SchedulingEvent& /*event*/) {}
void Collector::on_gang_life(const GangLifeRecord& /*record*/) {}

}  // namespace tidesim::metrics
