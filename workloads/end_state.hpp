#pragma once
/// How a trace says a job ended, which a replayed job keeps (JobSpec::trace_end_state): a job the
/// trace ends as failed or cancelled ends so in the replay when its traced run time is done
/// (docs/traces.md, "End states").
#include <optional>
#include <string>

namespace tidesim::workloads {

/// How the trace says a job ended. kUnknown: the trace does not
/// say (openb, Philly, GFS, a job still running at its end); the replay runs it to completion.
enum class TraceEndState { kUnknown, kCompleted, kCancelled, kFailed };

/// "completed", "cancelled", "failed" or "" (kUnknown).
const char* to_string(TraceEndState state);
/// The inverse of to_string(TraceEndState); nullopt for any other text.
std::optional<TraceEndState> parse_end_state(const std::string& text);

/// What a replayed job whose work is done becomes: true when it ends as failed (the Job
/// controller's kFailed, with to_string(state) as the event's cause), false when it succeeds.
inline bool ends_failed(TraceEndState state) {
  return state == TraceEndState::kFailed || state == TraceEndState::kCancelled;
}

}  // namespace tidesim::workloads
