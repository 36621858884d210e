#include "tidesim/sim/api/run_signals.hpp"

namespace tidesim {

const char* to_string(JobEventKind kind) {
  switch (kind) {
    case JobEventKind::kSubmitted:
      return "submitted";
    case JobEventKind::kBound:
      return "bound";
    case JobEventKind::kStarted:
      return "started";
    case JobEventKind::kOomKilled:
      return "oom_killed";
    case JobEventKind::kEvicted:
      return "evicted";
    case JobEventKind::kRestarted:
      return "restarted";
    case JobEventKind::kSucceeded:
      return "succeeded";
    case JobEventKind::kFailed:
      return "failed";
  }
  return "unknown";
}

}  // namespace tidesim
