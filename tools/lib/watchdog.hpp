#pragma once
/// The guards of `run` and `sweep` that hold as the work goes (docs/robustness.md, "Resource
/// guards"): the wall-clock `--timeout`, and `--max-memory` measured rather than estimated. A
/// thread raises a flag at the deadline, or when the process's resident memory passes the budget
/// (polled every 10 ms to 1 s, sooner the nearer the limit). Work checks the flag between events (a
/// run: Simulation::set_interrupt; the fill experiment: between arrivals; a sweep: before each
/// cell) and stops; nothing that was cut is written.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>

#include "tidesim/sim/engine/time.hpp"

namespace tidesim::app {

/// The resident memory of this process, bytes (Linux: /proc/self/statm); 0 when unknown.
std::int64_t resident_bytes();

/// How long the watchdog waits before its next look at the memory, with `used` bytes resident
/// of `limit`: the time growth at an assumed 4 GiB/s needs to fill half the headroom, held to
/// 10 ms..1 s (10 ms at or over the limit, 1 s from 8 GiB of headroom).
std::chrono::milliseconds memory_poll_interval(std::int64_t used, std::int64_t limit);

class Watchdog {
 public:
  /// Starts the clock now, or with `start_now` false at the first start(); without a timeout the
  /// deadline never comes. With `memory_limit` (bytes) the flag also rises once the resident
  /// memory passes it (memory_exceeded()).
  explicit Watchdog(std::optional<Duration> timeout, bool start_now = true,
                    std::optional<std::int64_t> memory_limit = std::nullopt);
  /// Stops the watchdog (as stop()).
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  /// The flag to hand to the work; nullptr without a timeout or a memory limit (nothing to check).
  const std::atomic<bool>* flag() const { return timeout_ || memory_limit_ ? &expired_ : nullptr; }
  /// Whether the flag has risen: the deadline passed or the memory went over its limit.
  bool expired() const { return expired_.load(); }
  /// Whether it rose for memory; the most resident memory seen then, bytes.
  bool memory_exceeded() const { return memory_exceeded_.load(); }
  std::int64_t memory_seen() const { return memory_seen_.load(); }
  /// The timeout it was started with.
  const std::optional<Duration>& timeout() const { return timeout_; }
  /// Starts the clock if it has not started (thread-safe; later calls do nothing). `run` starts it
  /// after the first run has checked the flag, so a deadline shorter than a run always cuts that
  /// run rather than leaving no run started, whatever the threads' scheduling.
  void start();
  /// Ends the watch: the flag no longer rises. Idempotent.
  void stop();
  /// Looks at the memory now (a run too short for the thread's next look is held to the limit
  /// too): raises the flag when it is over; returns the resident bytes seen (0 without a limit).
  /// Thread-safe.
  std::int64_t check_memory();

 private:
  void watch();

  std::optional<Duration> timeout_;
  std::optional<std::int64_t> memory_limit_;
  std::atomic<bool> expired_{false};
  std::atomic<bool> memory_exceeded_{false};
  std::atomic<std::int64_t> memory_seen_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopped_ = false;
  std::once_flag started_;
  std::thread thread_;
};

}  // namespace tidesim::app
