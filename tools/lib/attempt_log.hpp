#pragma once
/// The per-job attempt log: one record per pod of each attempt (where it was bound, on which
/// cards, when it started and ended, and how), built from a run's job events. It answers "why
/// did this job wait / die": an OOM row names the card, its memory and the jobs sharing it.
/// Written as `attempts.csv` by `tidesim run --output DIR` (docs/outputs.md).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "tidesim/sim/api/run_signals.hpp"

namespace tidesim::app {

/// One pod of one attempt. Times are seconds from the start of the run.
struct AttemptRecord {
  std::string job;
  int attempt = 0;
  std::string pod;
  std::string node;
  /// Cards the device plugin gave the pod, one per unit (a card repeats under time-slicing).
  std::vector<int> cards;
  std::optional<double> bound_s;
  std::optional<double> started_s;
  std::optional<double> ended_s;
  /// "succeeded", "oom_killed" (this pod's allocation ran its card out of memory), "stopped"
  /// (another pod of the attempt was killed), "unfinished" (running at the end of the run) or
  /// "pending" (bound, never started, by the end).
  std::string outcome;
  /// For "oom_killed": the card, the card's memory in use after the killing allocation and its
  /// capacity (bytes), and the other jobs with a process on the card.
  std::optional<int> oom_card;
  std::int64_t oom_memory_used = 0;
  std::int64_t oom_memory_capacity = 0;
  std::vector<std::string> oom_co_located;
  bool operator==(const AttemptRecord&) const = default;
};

/// Builds the records from job events, in the order pods were first bound.
class AttemptLog {
 public:
  void on_job(const JobEvent& event);
  /// The records of a run that stopped at `end`: open attempts get "unfinished" or "pending".
  std::vector<AttemptRecord> finish() const;

 private:
  // Rows of one attempt of one job (indices into rows_).
  std::vector<std::size_t>& rows_of(const std::string& job, int attempt);
  // A job's rows by attempt (few per job; references stay valid as attempts are added) and the
  // attempt it last bound or started. Looked up by name once per event; a job's entry goes when
  // it succeeds or fails (its last event).
  struct JobRows {
    std::map<int, std::vector<std::size_t>> by_attempt;
    std::optional<int> last_attempt;
  };
  std::vector<AttemptRecord> rows_;
  std::unordered_map<std::string, JobRows> jobs_;
};

}  // namespace tidesim::app
