#pragma once
// The read-only views a Python plugin's call is given (tools/python/plugins.cpp; docs/python.md,
// "Plugins in Python"), valid during that call only, and the GPU views of a Node
// (tools/python/gpu_views.cpp). Hidden, as pybind11's own types are.
#include <pybind11/pybind11.h>

#include <memory>
#include <stdexcept>

#include "tidesim/policies/framework.hpp"

namespace py = pybind11;

namespace tidesim::python {

// Whether the objects handed to one plugin call may still be read: a plugin that keeps one reads
// nothing after its call returned (the cluster it points into has changed or is gone).
struct __attribute__((visibility("hidden"))) CallToken {
  bool alive = true;
};

inline void check(const std::shared_ptr<CallToken>& token) {
  if (!token->alive) {
    throw std::runtime_error(
        "a plugin's state, pod or node is valid only during the call it was passed to");
  }
}

// What one call of score() sees: read-only views into the cycle, valid during the call.
struct __attribute__((visibility("hidden"))) StateRef {
  const policies::CycleContext* ctx;
  std::shared_ptr<CallToken> token;
  const policies::CycleContext& get() const {
    check(token);
    return *ctx;
  }
};
struct __attribute__((visibility("hidden"))) PodRef {
  const PodSpec* pod;
  std::shared_ptr<CallToken> token;
  const PodSpec& get() const {
    check(token);
    return *pod;
  }
};
struct __attribute__((visibility("hidden"))) NodeRef {
  const NodeInfo* node;
  int index;
  std::shared_ptr<CallToken> token;
  // The cycle (its time and metrics source, for the telemetry the scheduler sees).
  const policies::CycleContext* ctx;
  const NodeInfo& get() const {
    check(token);
    return *node;
  }
};

/// Adds the GPU views to the Node class (docs/python.md, "What a plugin sees"): gpu_model, sharing,
/// nvlink_groups, cards, telemetry, pods.
void bind_gpu_views(py::class_<NodeRef>& node);

}  // namespace tidesim::python
