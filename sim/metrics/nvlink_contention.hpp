#pragma once
/// The seed's NVLink bandwidth contention rate, from job rate changes.
#include <map>
#include <optional>
#include <string>
#include <unordered_map>

#include "tidesim/sim/metrics/collector.hpp"

namespace tidesim::metrics {

/// Parameters of NvlinkContentionCollector.
struct NvlinkContentionOptions {
  /// A job is contended while collective_bandwidth < threshold x ideal_collective_bandwidth.
  /// 0.9 is the project's definition (DESIGN.md section 7); the seed does not state one.
  double threshold = 0.9;
  /// A job counts in nvlink_contended_jobs_share when it was contended for more than this share
  /// of its counted time. 0.5 ("most of its run") is an assumption: the seed gives no figure.
  double job_share = 0.5;
};

/// From JobRate signals. Each rate holds until the job's next rate (or the run's end while the
/// job is running). Counted time: a job that is running, nvlink_required, and has an ideal
/// collective bandwidth > 0 (single-GPU jobs have no collective and are left out). Produces
/// nvlink_contention_rate = contended time / counted time (absent when no time was counted), and
/// nvlink_contended_jobs_share = jobs with counted time whose contended time exceeds job_share of
/// it / jobs with counted time.
/// Per-job totals are available through job_totals() for per-job records.
class NvlinkContentionCollector : public Collector {
 public:
  explicit NvlinkContentionCollector(NvlinkContentionOptions options = {}) : options_(options) {}

  void on_rate(const JobRate& rate) override;
  void finish(TimePoint end, MetricValues& out) const override;

  /// Counted and contended time of one job up to `end`, seconds.
  struct JobTotals {
    double counted_s = 0.0;
    double contended_s = 0.0;
  };
  /// Totals per job name, up to `end`.
  std::map<std::string, JobTotals, std::less<>> job_totals(TimePoint end) const;

 private:
  struct State {
    TimePoint since{};
    bool counted = false;
    bool contended = false;
    JobTotals totals;
  };
  NvlinkContentionOptions options_;
  // By job name, hashed (job_totals() sorts them). A job is in running_ from a rate that says it
  // runs until one that says it stopped, and in stopped_ between: a rate looks up among the
  // running jobs (a small table that stays in cache however long the run), and only a job's
  // first rate of each run among every job seen.
  using Jobs = std::unordered_map<std::string, State>;
  Jobs running_;
  Jobs stopped_;
};

}  // namespace tidesim::metrics
