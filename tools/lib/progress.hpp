#pragma once
/// Progress of runs and sweeps on stderr (docs/outputs.md, "Progress"): done/total, simulated
/// time, events per second and the time left. On a terminal one status line is redrawn in place;
/// elsewhere (pipes, CI logs) nothing is written unless asked (--progress), and then plain lines
/// at a slow pace. Never written to a result file or to stdout.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <thread>

#include "tidesim/sim/api/run_signals.hpp"

namespace tidesim::app {

/// Whether progress is shown: on a terminal only (kAuto, the default), also when stderr is not a
/// terminal (kAlways: --progress), or never (kNever: --quiet).
enum class ProgressMode { kAuto, kAlways, kNever };

/// Parameters of ProgressReporter (injectable for tests).
struct ProgressOptions {
  ProgressMode mode = ProgressMode::kAuto;
  /// Whether the stream is an interactive terminal.
  bool is_terminal = false;
  /// Wall clock; steady_clock::now by default.
  std::function<std::chrono::steady_clock::time_point()> now;
  /// Nothing is shown before the work has lasted this long (runs shorter than this stay silent).
  std::chrono::milliseconds delay{1000};
  /// On a terminal: at most one redraw per this interval.
  std::chrono::milliseconds min_interval{100};
  /// Not on a terminal (kAlways): at most one line per this interval.
  std::chrono::milliseconds log_interval{10000};
};

/// What the line shows at one instant.
struct ProgressSnapshot {
  /// Finished units of work (runs, cells) and all of them.
  std::size_t done = 0;
  std::size_t total = 0;
  /// Share of all the work done, in [0, 1], counting units partly done (for the ETA).
  double fraction = 0.0;
  /// Simulated time reached by the furthest run in progress, seconds (absent: not known).
  std::optional<double> simulated_s;
  /// Events dispatched so far by all runs.
  std::uint64_t events = 0;
};

/// The status text, e.g. "runs 2/6  41%  simulated 3.2 d  1.25M events/s  ETA 1m05s" after
/// `elapsed_s` seconds of wall-clock time. The ETA is elapsed x (1 - f) / f ("ETA ?" while f is 0).
std::string format_progress(std::string_view label, const ProgressSnapshot& s, double elapsed_s);

/// "42s", "1m05s", "2h03m", "3d04h".
std::string format_eta(double seconds);

/// Draws progress snapshots on a stream. Wall-clock time here only decides whether and what to
/// print; it never touches simulated time or results.
class ProgressReporter {
 public:
  ProgressReporter(std::ostream& out, ProgressOptions options);

  /// A reporter on std::cerr under `mode`, knowing whether stderr is a terminal (isatty).
  static ProgressReporter for_stderr(ProgressMode mode = ProgressMode::kAuto);

  /// Whether this reporter can write anything at all.
  bool enabled() const;

  /// Reports the state of the work under `label` (throttled).
  void update(std::string_view label, const ProgressSnapshot& snapshot);
  /// Reports `done` of `total` units.
  void update(std::string_view label, std::size_t done, std::size_t total);

  /// On a terminal, clears the status line if one was drawn; in the log form (kAlways, not a
  /// terminal), writes the last snapshot as a final line ("... done in 3.4 s").
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
  std::string last_label_;
  std::optional<ProgressSnapshot> last_;
};

/// Polls `snapshot` every `period` on its own thread and hands it to `reporter` (under
/// `label`), until stop() or destruction. Starts no thread when the reporter is disabled.
class ProgressTicker {
 public:
  ProgressTicker(ProgressReporter& reporter, std::string label,
                 std::function<ProgressSnapshot()> snapshot,
                 std::chrono::milliseconds period = std::chrono::milliseconds(200));
  ~ProgressTicker();
  ProgressTicker(const ProgressTicker&) = delete;
  ProgressTicker& operator=(const ProgressTicker&) = delete;

  /// Stops polling, reports the final snapshot and finishes the reporter.
  void stop();

 private:
  ProgressReporter& reporter_;
  std::string label_;
  std::function<ProgressSnapshot()> snapshot_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool stopped_ = false;
  std::thread thread_;
};

/// Counters that runs on other threads update and a ProgressTicker reads.
struct RunMeter {
  /// Events dispatched (Simulation::set_event_meter).
  std::atomic<std::uint64_t> events{0};
  /// Finished runs.
  std::atomic<std::size_t> done{0};
  /// Sum over runs of the share of each run done, in millionths (a run adds up to 10^6).
  std::atomic<std::uint64_t> partial_millionths{0};
  /// The furthest simulated time reached, microseconds.
  std::atomic<std::int64_t> simulated_us{0};
  /// Raises simulated_us to `us` if it is further.
  void reached(std::int64_t us);
  /// The snapshot of `total` runs.
  ProgressSnapshot snapshot(std::size_t total) const;
};

/// Follows one run for a RunMeter: its share done is the larger of its jobs ended (succeeded or
/// failed) over its jobs and its simulated time over its horizon (run.until). Must outlive the
/// run's signals, like a collector.
class RunProbe {
 public:
  RunProbe(RunMeter& meter, std::size_t jobs, double horizon_s);
  /// Subscribes to the run's job events and samples.
  void attach(RunSignals& signals);
  /// The run ended: counts it done and its share as whole.
  void finish();

 private:
  void advance(TimePoint at);
  RunMeter& meter_;
  std::size_t jobs_;
  double horizon_s_;
  std::size_t ended_ = 0;
  std::uint64_t published_ = 0;  // millionths added to the meter so far
};

}  // namespace tidesim::app
