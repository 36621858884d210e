#include "tidesim/sim/metrics/standard_collectors.hpp"

namespace tidesim::metrics {

StandardCollectors::StandardCollectors(StandardCollectorOptions options)
    : jobs_(options.jobs),
      finish_time_fairness_(options.finish_time_fairness),
      nvlink_contention_(options.nvlink_contention),
      lscs_(options.lscs),
      nvlink_variance_(options.nvlink_variance),
      fragmentation_(std::move(options.fragmentation)),
      fabric_traffic_(std::move(options.fabric_traffic)),
      topology_(std::move(options.topology)) {}

void StandardCollectors::on_job(const JobEvent& event) {
  jobs_.on_job(event);
  job_scheduling_.on_job(event);
  finish_time_fairness_.on_job(event);
  gpu_hours_.on_job(event);
  fragmentation_.on_job(event);
  interruptions_.on_job(event);
  fabric_traffic_.on_job(event);
}

void StandardCollectors::on_sample(const ClusterSample& sample) {
  balance_.on_sample(sample);
  finish_time_fairness_.on_sample(sample);
  lscs_.on_sample(sample);
  nvlink_variance_.on_sample(sample);
  fragmentation_.on_sample(sample);
  prediction_.on_sample(sample);
  topology_.on_sample(sample);
}

void StandardCollectors::on_rate(const JobRate& rate) {
  nvlink_contention_.on_rate(rate);
  placement_speed_.on_rate(rate);
  fabric_traffic_.on_rate(rate);
}

void StandardCollectors::on_scheduling(const SchedulingEvent& event) {
  scheduling_.on_scheduling(event);
}

void StandardCollectors::on_forecast(const LoadForecastBatch& batch) {
  prediction_.on_forecast(batch);
}

void StandardCollectors::on_quota(const QuotaEvent& event) {
  quota_.on_quota(event);
}

void StandardCollectors::on_gang_life(const GangLifeRecord& record) {
  gang_failures_.on_gang_life(record);
}

void StandardCollectors::on_topology(const TopologyEvent& event) {
  topology_.on_topology(event);
}

void StandardCollectors::finish(TimePoint end, MetricValues& out) const {
  balance_.finish(end, out);
  jobs_.finish(end, out);
  job_scheduling_.finish(end, out);
  finish_time_fairness_.finish(end, out);
  gpu_hours_.finish(end, out);
  nvlink_contention_.finish(end, out);
  placement_speed_.finish(end, out);
  fabric_traffic_.finish(end, out);
  lscs_.finish(end, out);
  nvlink_variance_.finish(end, out);
  fragmentation_.finish(end, out);
  scheduling_.finish(end, out);
  prediction_.finish(end, out);
  interruptions_.finish(end, out);
  gang_failures_.finish(end, out);
  quota_.finish(end, out);
  topology_.finish(end, out);
}

}  // namespace tidesim::metrics
