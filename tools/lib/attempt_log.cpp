#include "tidesim/tools/lib/attempt_log.hpp"

namespace tidesim::app {

std::vector<std::size_t>& AttemptLog::rows_of(const std::string& job, int attempt) {
  return jobs_[job].by_attempt[attempt];
}

void AttemptLog::on_job(const JobEvent& event) {
  const double t = to_seconds(event.at);
  switch (event.kind) {
    case JobEventKind::kBound: {
      AttemptRecord r;
      r.job = event.job;
      r.attempt = event.attempt;
      r.pod = event.pod;
      r.node = event.node;
      r.cards = event.cards;
      r.bound_s = t;
      JobRows& job = jobs_[event.job];
      job.by_attempt[event.attempt].push_back(rows_.size());
      rows_.push_back(std::move(r));
      job.last_attempt = event.attempt;
      break;
    }
    case JobEventKind::kStarted: {
      JobRows& job = jobs_[event.job];
      auto& rows = job.by_attempt[event.attempt];
      if (rows.empty()) {
        // Restarted in place (restartPolicy OnFailure): the same pods on the same cards.
        if (job.last_attempt) {
          for (const std::size_t i : job.by_attempt[*job.last_attempt]) {
            AttemptRecord r = rows_[i];
            r.attempt = event.attempt;
            r.started_s.reset();
            r.ended_s.reset();
            r.outcome.clear();
            r.oom_card.reset();
            r.oom_memory_used = r.oom_memory_capacity = 0;
            r.oom_co_located.clear();
            rows.push_back(rows_.size());
            rows_.push_back(std::move(r));
          }
        }
        job.last_attempt = event.attempt;
      }
      for (const std::size_t i : rows) {
        rows_[i].started_s = t;
      }
      break;
    }
    case JobEventKind::kOomKilled:
    case JobEventKind::kEvicted:
    case JobEventKind::kSucceeded:
      for (const std::size_t i : rows_of(event.job, event.attempt)) {
        AttemptRecord& r = rows_[i];
        if (r.ended_s) {
          continue;
        }
        r.ended_s = t;
        if (event.kind == JobEventKind::kSucceeded) {
          r.outcome = "succeeded";
        } else if (r.pod != event.pod) {
          r.outcome = "stopped";
        } else if (event.kind == JobEventKind::kEvicted) {
          r.outcome = "evicted";
        } else {
          r.outcome = "oom_killed";
          if (!event.cards.empty()) {
            r.oom_card = event.cards.front();
          }
          r.oom_memory_used = event.memory_used;
          r.oom_memory_capacity = event.memory_capacity;
          r.oom_co_located = event.co_located;
        }
      }
      if (event.kind == JobEventKind::kSucceeded) {
        jobs_.erase(event.job);  // it has no more events: the table holds unfinished jobs only
      }
      break;
    case JobEventKind::kFailed:
      // A replayed job its trace ends as failed or cancelled (the event's cause) ends its
      // running attempt so; after backoffLimit its attempts have ended already.
      for (const std::size_t i : rows_of(event.job, event.attempt)) {
        if (!event.cause.empty() && !rows_[i].ended_s) {
          rows_[i].ended_s = t;
          rows_[i].outcome = event.cause;
        }
      }
      jobs_.erase(event.job);
      break;
    case JobEventKind::kSubmitted:
    case JobEventKind::kRestarted:
      break;
  }
}

std::vector<AttemptRecord> AttemptLog::finish() const {
  std::vector<AttemptRecord> out = rows_;
  for (auto& r : out) {
    if (!r.ended_s) {
      r.outcome = r.started_s ? "unfinished" : "pending";
    }
  }
  return out;
}

}  // namespace tidesim::app
