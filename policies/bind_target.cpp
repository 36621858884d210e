#include "tidesim/policies/bind_target.hpp"

#include <stdexcept>

namespace tidesim::policies {

bool BindTarget::reserve(const PodSpec& /*pod*/, int /*node*/, std::span<const int> /*cards*/) {
  throw std::logic_error("this BindTarget does not support gangs (reserve)");
}

void BindTarget::allow(const PodSpec& /*pod*/) {
  throw std::logic_error("this BindTarget does not support gangs (allow)");
}

void BindTarget::unreserve(const PodSpec& /*pod*/) {
  throw std::logic_error("this BindTarget does not support gangs (unreserve)");
}

void BindTarget::preempt(const PodSpec& /*preemptor*/, int /*node*/,
                         const std::vector<std::shared_ptr<const PodSpec>>& /*victims*/) {}

}  // namespace tidesim::policies
