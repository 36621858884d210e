#include "tidesim/sim/metrics/nvlink_contention.hpp"

#include <stdexcept>

namespace tidesim::metrics {
namespace {

void accumulate(NvlinkContentionCollector::JobTotals& totals, bool counted, bool contended,
                Duration dt) {
  if (!counted || dt.count() <= 0) {
    return;
  }
  totals.counted_s += to_seconds(dt);
  if (contended) {
    totals.contended_s += to_seconds(dt);
  }
}

}  // namespace

void NvlinkContentionCollector::on_rate(const JobRate& rate) {
  auto it = running_.find(rate.job);
  bool inserted = false;
  if (it == running_.end()) {
    if (auto node = stopped_.extract(rate.job)) {
      it = running_.insert(std::move(node)).position;
    } else {
      it = running_.try_emplace(rate.job).first;
      inserted = true;
    }
  }
  State& state = it->second;
  if (!inserted) {
    if (rate.at < state.since) {
      throw std::logic_error("NvlinkContentionCollector: rate earlier than the job's previous one");
    }
    accumulate(state.totals, state.counted, state.contended, rate.at - state.since);
  }
  state.since = rate.at;
  state.counted = rate.running && rate.nvlink_required && rate.ideal_collective_bandwidth > 0.0;
  state.contended = state.counted && rate.collective_bandwidth <
                                         options_.threshold * rate.ideal_collective_bandwidth;
  if (!rate.running) {
    // Not counted until its next rate: kept aside so that running_ holds only running jobs.
    stopped_.insert(running_.extract(it));
  }
}

std::map<std::string, NvlinkContentionCollector::JobTotals, std::less<>>
NvlinkContentionCollector::job_totals(TimePoint end) const {
  std::map<std::string, JobTotals, std::less<>> totals;
  for (const auto* jobs : {&running_, &stopped_}) {
    for (const auto& [name, state] : *jobs) {
      JobTotals t = state.totals;
      if (end > state.since) {
        accumulate(t, state.counted, state.contended, end - state.since);
      }
      totals.emplace(name, t);
    }
  }
  return totals;
}

void NvlinkContentionCollector::finish(TimePoint end, MetricValues& out) const {
  double counted = 0.0;
  double contended = 0.0;
  long jobs = 0;
  long contended_jobs = 0;
  for (const auto& [name, t] : job_totals(end)) {
    counted += t.counted_s;
    contended += t.contended_s;
    if (t.counted_s > 0.0) {
      ++jobs;
      if (t.contended_s > options_.job_share * t.counted_s) {
        ++contended_jobs;
      }
    }
  }
  if (counted > 0.0) {
    out["nvlink_contention_rate"] = contended / counted;
  }
  if (jobs > 0) {
    out["nvlink_contended_jobs_share"] =
        static_cast<double>(contended_jobs) / static_cast<double>(jobs);
  }
}

}  // namespace tidesim::metrics
