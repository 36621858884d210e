#include "tidesim/tools/lib/watchdog.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>

namespace tidesim::app {

std::int64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::int64_t size = 0;
  std::int64_t resident = 0;
  if (!(statm >> size >> resident)) {
    return 0;
  }
  const long page = sysconf(_SC_PAGESIZE);
  return resident * (page > 0 ? page : 4096);
}

Watchdog::Watchdog(std::optional<Duration> timeout, bool start_now,
                   std::optional<std::int64_t> memory_limit)
    : timeout_(timeout), memory_limit_(memory_limit) {
  if (start_now) {
    start();
  }
}

namespace {

// The fastest a process is assumed to grow its resident memory: 4 GiB/s (an assumption; one
// thread touching fresh pages runs at a few GB/s, bounded by page faults).
constexpr double kGrowthBytesPerSecond = 4.0 * 1024 * 1024 * 1024;
constexpr auto kMinPoll = std::chrono::milliseconds(10);
constexpr auto kMaxPoll = std::chrono::milliseconds(1000);

}  // namespace

std::chrono::milliseconds memory_poll_interval(std::int64_t used, std::int64_t limit) {
  // The next look comes before growth at the assumed rate could fill half the headroom, between
  // 10 ms (near the limit) and 1 s (far below it).
  const double headroom = static_cast<double>(std::max<std::int64_t>(limit - used, 0));
  const double ms = 1000.0 * 0.5 * headroom / kGrowthBytesPerSecond;
  const auto chosen = std::chrono::milliseconds(
      static_cast<std::int64_t>(std::min(ms, static_cast<double>(kMaxPoll.count()))));
  return std::clamp(chosen, kMinPoll, kMaxPoll);
}

void Watchdog::watch() {
  // The memory is polled at memory_poll_interval (10 ms to 1 s, sooner the nearer the limit);
  // the deadline, when there is one, ends the wait exactly.
  // A time point and a flag, not an optional (GCC's -Wmaybe-uninitialized misreads the optional
  // at -O2 with LTO).
  const bool has_deadline = timeout_.has_value();
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::microseconds(has_deadline ? timeout_->count() : std::int64_t{0});
  std::unique_lock lock(mutex_);
  while (!stopped_) {
    const std::int64_t used = check_memory();
    if (memory_exceeded_) {
      return;
    }
    const auto now = std::chrono::steady_clock::now();
    if (has_deadline && now >= deadline) {
      expired_ = true;
      return;
    }
    auto until = has_deadline ? deadline : now + kMaxPoll;
    if (memory_limit_) {
      until = std::min(until, now + memory_poll_interval(used, *memory_limit_));
    }
    wake_.wait_until(lock, until, [this] { return stopped_; });
  }
}

std::int64_t Watchdog::check_memory() {
  if (!memory_limit_ || memory_exceeded_) {
    return 0;
  }
  const std::int64_t used = resident_bytes();
  if (used > *memory_limit_) {
    memory_seen_ = used;
    memory_exceeded_ = true;
    expired_ = true;
  }
  return used;
}

void Watchdog::start() {
  if (!timeout_ && !memory_limit_) {
    return;
  }
  std::call_once(started_, [this] {
    const std::lock_guard lock(mutex_);
    if (stopped_) {
      return;
    }
    thread_ = std::thread([this] { watch(); });
  });
}

Watchdog::~Watchdog() {
  stop();
}

void Watchdog::stop() {
  {
    const std::lock_guard lock(mutex_);
    stopped_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) {
    thread_.join();
  }
}

}  // namespace tidesim::app
