#pragma once
/// Progress of a long run on stderr: shown only when the stream is a terminal and the run has
/// lasted over a second; silent otherwise (pipes, CI logs, short runs).
#include <chrono>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace tidesim::app {

/// Parameters of ProgressReporter (injectable for tests).
struct ProgressOptions {
  /// Whether the stream is an interactive terminal.
  bool is_terminal = false;
  /// Wall clock; steady_clock::now by default.
  std::function<std::chrono::steady_clock::time_point()> now;
  /// Nothing is shown before the run has lasted this long.
  std::chrono::milliseconds delay{1000};
  /// At most one redraw per this interval.
  std::chrono::milliseconds min_interval{100};
};

/// Redraws one status line ("\r<label> 45% (9/20)") in place. Wall-clock time here only decides
/// whether to print; it never touches simulated time or results.
class ProgressReporter {
 public:
  ProgressReporter(std::ostream& out, ProgressOptions options);

  /// A reporter on std::cerr, enabled when stderr is a terminal (isatty).
  static ProgressReporter for_stderr();

  /// Reports `done` of `total` units of work under `label`.
  void update(std::string_view label, std::size_t done, std::size_t total);

  /// Clears the status line if one was drawn.
  void finish();

  /// Whether anything has been written.
  bool shown() const { return shown_; }

 private:
  std::ostream& out_;
  ProgressOptions options_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_{};
  bool shown_ = false;
  std::size_t last_width_ = 0;
};

}  // namespace tidesim::app
