#include "tidesim/workloads/end_state.hpp"

namespace tidesim::workloads {

const char* to_string(TraceEndState state) {
  switch (state) {
    case TraceEndState::kCompleted:
      return "completed";
    case TraceEndState::kCancelled:
      return "cancelled";
    case TraceEndState::kFailed:
      return "failed";
    case TraceEndState::kUnknown:
      break;
  }
  return "";
}

std::optional<TraceEndState> parse_end_state(const std::string& text) {
  for (const auto s : {TraceEndState::kUnknown, TraceEndState::kCompleted,
                       TraceEndState::kCancelled, TraceEndState::kFailed}) {
    if (text == to_string(s)) {
      return s;
    }
  }
  return std::nullopt;
}

}  // namespace tidesim::workloads
