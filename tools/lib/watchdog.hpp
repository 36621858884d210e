#pragma once
/// The wall-clock `--timeout` of `run` and `sweep` (docs/robustness.md, "Resource guards"): a
/// thread that raises a flag at the deadline. Work checks the flag between events (a run:
/// Simulation::set_interrupt; the fill experiment: between arrivals; a sweep: before each cell)
/// and stops; nothing that was cut is written.
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "tidesim/sim/engine/time.hpp"

namespace tidesim::app {

class Watchdog {
 public:
  /// Starts the clock now, or with `start_now` false at the first start(); without a timeout the
  /// flag never rises.
  explicit Watchdog(std::optional<Duration> timeout, bool start_now = true);
  /// Stops the watchdog (as stop()).
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  /// The flag to hand to the work; nullptr without a timeout (nothing to check).
  const std::atomic<bool>* flag() const { return timeout_ ? &expired_ : nullptr; }
  /// Whether the deadline has passed.
  bool expired() const { return expired_.load(); }
  /// The timeout it was started with.
  const std::optional<Duration>& timeout() const { return timeout_; }
  /// Starts the clock if it has not started (thread-safe; later calls do nothing). `run` starts it
  /// after the first run has checked the flag, so a deadline shorter than a run always cuts that
  /// run rather than leaving no run started, whatever the threads' scheduling.
  void start();
  /// Ends the watch: the flag no longer rises. Idempotent.
  void stop();

 private:
  std::optional<Duration> timeout_;
  std::atomic<bool> expired_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopped_ = false;
  std::once_flag started_;
  std::thread thread_;
};

}  // namespace tidesim::app
