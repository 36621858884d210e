#include "tidesim/tools/lib/watchdog.hpp"

#include <chrono>

namespace tidesim::app {

Watchdog::Watchdog(std::optional<Duration> timeout, bool start_now) : timeout_(timeout) {
  if (start_now) {
    start();
  }
}

void Watchdog::start() {
  if (!timeout_) {
    return;
  }
  std::call_once(started_, [this] {
    const std::lock_guard lock(mutex_);
    if (stopped_) {
      return;
    }
    thread_ = std::thread([this] {
      std::unique_lock wait_lock(mutex_);
      if (!wake_.wait_for(wait_lock, std::chrono::microseconds(timeout_->count()),
                          [this] { return stopped_; })) {
        expired_ = true;
      }
    });
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
