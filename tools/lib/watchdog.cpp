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

void Watchdog::watch() {
  // The memory is polled every 10 ms (a run allocates far less than a GiB in that time); the
  // deadline, when there is one, ends the wait exactly.
  constexpr auto kPoll = std::chrono::milliseconds(10);
  // A time point and a flag, not an optional (GCC's -Wmaybe-uninitialized misreads the optional
  // at -O2 with LTO).
  const bool has_deadline = timeout_.has_value();
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::microseconds(has_deadline ? timeout_->count() : std::int64_t{0});
  std::unique_lock lock(mutex_);
  while (!stopped_) {
    check_memory();
    if (memory_exceeded_) {
      return;
    }
    const auto now = std::chrono::steady_clock::now();
    if (has_deadline && now >= deadline) {
      expired_ = true;
      return;
    }
    auto until = has_deadline ? deadline : now + kPoll;
    if (memory_limit_) {
      until = std::min(until, now + kPoll);
    }
    wake_.wait_until(lock, until, [this] { return stopped_; });
  }
}

void Watchdog::check_memory() {
  if (!memory_limit_ || memory_exceeded_) {
    return;
  }
  const std::int64_t used = resident_bytes();
  if (used > *memory_limit_) {
    memory_seen_ = used;
    memory_exceeded_ = true;
    expired_ = true;
  }
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
