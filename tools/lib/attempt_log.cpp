#include "tidesim/tools/lib/attempt_log.hpp"

#include <fmt/core.h>

#include "tidesim/tools/lib/csv_out.hpp"
#include "tidesim/tools/lib/result.hpp"
#include "tidesim/tools/lib/result_records.hpp"

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

namespace {

std::string joined(const auto& items) {
  std::string s;
  for (const auto& x : items) {
    s += (s.empty() ? "" : ";") + fmt::format("{}", x);
  }
  return s;
}

}  // namespace

void write_attempts_csv(std::ostream& out, const RunResult& result) {
  require_records(result, "attempts", "attempts.csv");
  out << "policy,seed,job,attempt,pod,node,cards,bound_s,started_s,ended_s,outcome,oom_card,"
         "oom_memory_used_bytes,oom_memory_capacity_bytes,oom_co_located\n";
  for (const auto& run : result.runs) {
    for (const auto& a : run.attempts) {
      const bool oom = a.oom_card.has_value();
      out << fmt::format(
          "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(run.policy), run.seed,
          csv_field(a.job), a.attempt, csv_field(a.pod), csv_field(a.node), joined(a.cards),
          csv_number(a.bound_s), csv_number(a.started_s), csv_number(a.ended_s), a.outcome,
          oom ? fmt::format("{}", *a.oom_card) : "",
          oom ? fmt::format("{}", a.oom_memory_used) : "",
          oom ? fmt::format("{}", a.oom_memory_capacity) : "", csv_field(joined(a.oom_co_located)));
    }
  }
}

}  // namespace tidesim::app
