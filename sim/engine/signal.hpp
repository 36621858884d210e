#pragma once
/// Typed signals: models emit, collectors subscribe. Slots run in connection order.
#include <functional>
#include <vector>

namespace tidesim {

/// A list of subscribers called with `Args...` on emit(). Not thread-safe.
template <class... Args>
class Signal {
 public:
  using Slot = std::function<void(const Args&...)>;

  /// Adds a subscriber; subscribers are called in the order they were connected.
  void connect(Slot slot) { slots_.push_back(std::move(slot)); }

  /// Calls every subscriber with `args`.
  void emit(const Args&... args) const {
    for (const auto& slot : slots_) {
      slot(args...);
    }
  }

  bool has_subscribers() const { return !slots_.empty(); }

 private:
  std::vector<Slot> slots_;
};

}  // namespace tidesim
