#include "tidesim/sim/engine/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace tidesim {

int thread_count(int requested) {
  return requested > 0 ? requested
                       : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void parallel_for(std::size_t count, int threads, const std::function<void(std::size_t)>& task) {
  std::atomic<std::size_t> next{0};
  std::mutex error_mutex;
  std::exception_ptr error;
  const auto worker = [&] {
    for (std::size_t k = next++; k < count; k = next++) {
      try {
        task(k);
      } catch (...) {
        const std::lock_guard lock(error_mutex);
        if (!error) {
          error = std::current_exception();
        }
        next = count;
      }
    }
  };
  const std::size_t n =
      std::min(static_cast<std::size_t>(std::max(threads, 1)), std::max<std::size_t>(count, 1));
  std::vector<std::thread> pool;
  for (std::size_t i = 1; i < n; ++i) {
    pool.emplace_back(worker);
  }
  worker();
  for (auto& t : pool) {
    t.join();
  }
  if (error) {
    std::rethrow_exception(error);
  }
}

}  // namespace tidesim
