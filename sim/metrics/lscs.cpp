#include "tidesim/sim/metrics/lscs.hpp"

#include <algorithm>
#include <stdexcept>

#include "tidesim/sim/metrics/node_stats.hpp"
#include "tidesim/sim/metrics/step_average.hpp"

namespace tidesim::metrics {

void LscsCollector::on_sample(const ClusterSample& sample) {
  if (!series_.empty() && sample.at < series_.back().first) {
    throw std::logic_error("LscsCollector: sample earlier than the previous one");
  }
  memory_.update(sample);
  if (memory_.defined_changed()) {  // else the previous sample's spread, of the same values
    spread_ = population_stddev(memory_.defined());
  }
  if (const auto s = spread_) {
    window_.emplace_back(sample.at, *s);
    window_sum_.add(*s);
  }
  while (!window_.empty() && window_.front().first <= sample.at - options_.window) {
    window_sum_.remove(window_.front().second);
    window_.pop_front();
  }
  // The window's sum is kept exactly (ExactSum), not re-summed per sample: with a 1 ms sample
  // interval a 5 min window holds 300,000 samples.
  std::optional<double> lscs;
  if (!window_.empty()) {
    lscs = window_sum_.value() / static_cast<double>(window_.size());
  }
  series_.emplace_back(sample.at, lscs);
}

void LscsCollector::finish(TimePoint end, MetricValues& out) const {
  StepAverage mean;
  Duration total{0};
  Duration above{0};
  Duration stretch{0};
  Duration longest{0};
  for (std::size_t i = 0; i < series_.size(); ++i) {
    const auto& [t, v] = series_[i];
    mean.add(t, v);
    const TimePoint next = i + 1 < series_.size() ? series_[i + 1].first : std::max(end, t);
    const Duration dt = next - t;
    if (!v) {
      stretch = Duration{0};
      continue;
    }
    total += dt;
    if (*v > options_.threshold) {
      above += dt;
      stretch += dt;
      longest = std::max(longest, stretch);
    } else {
      stretch = Duration{0};
    }
  }
  const auto m = mean.mean(end);
  if (!m) {
    return;
  }
  out["lscs_mean"] = *m;
  out["lscs_max"] = *mean.max();
  if (total.count() > 0) {
    out["lscs_time_above_share"] = to_seconds(above) / to_seconds(total);
  }
  out["lscs_longest_above_s"] = to_seconds(longest);
  out["lscs_alert"] = longest >= options_.alert_after && longest.count() > 0 ? 1.0 : 0.0;
}

}  // namespace tidesim::metrics
