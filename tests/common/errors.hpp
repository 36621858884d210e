#pragma once
// Test helper: the message of the InputError a piece of code throws.
#include <functional>
#include <string>

#include "tidesim/sim/input/error.hpp"

namespace tidesim::test {

/// what() of the InputError `fn` throws, or "(no error)" when it throws none.
inline std::string message_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace tidesim::test
