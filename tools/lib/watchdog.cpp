#include "tools/lib/watchdog.hpp"

#include <chrono>

namespace tidesim::app {

Watchdog::Watchdog(std::optional<Duration> timeout) : timeout_(timeout) {
  if (!timeout_) {
    return;
  }
  thread_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    if (!wake_.wait_for(lock, std::chrono::microseconds(timeout_->count()),
                        [this] { return stopped_; })) {
      expired_ = true;
    }
  });
}

Watchdog::~Watchdog() {
  stop();
}

void Watchdog::stop() {
  if (!thread_.joinable()) {
    return;
  }
  {
    const std::lock_guard lock(mutex_);
    stopped_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

}  // namespace tidesim::app
