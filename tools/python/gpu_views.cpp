// The GPU views of a Python plugin's Node (docs/python.md, "GPU views of a node"): the node's GPU
// hardware (its labels, sim/model/gpu_labels.hpp), its cards' allocation and memory as the device
// plugin sees them (NodeInfo), the telemetry the scheduler reads (with its staleness) and the pods
// bound there with their jobs (the labels the run gives them when a plugin wants the workload).
// Each property is built when read (a call pays only for what it asks for).
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "tidesim/sim/model/gpu_labels.hpp"
#include "tidesim/tools/python/plugin_views.hpp"

namespace tidesim::python {
namespace {

// The label `key` of `n`, or null.
const std::string* label(const NodeInfo& n, const char* key) {
  const auto it = n.node.labels.find(key);
  return it == n.node.labels.end() ? nullptr : &it->second;
}

py::object label_or_none(const NodeInfo& n, const char* key) {
  const std::string* v = label(n, key);
  return v != nullptr ? py::object(py::str(*v)) : py::object(py::none());
}

// The memory of one card of `n`, bytes: its nvidia.com/gpu.memory label (MiB), else the
// declared-memory card's; 0 when neither says.
std::int64_t card_memory(const NodeInfo& n) {
  if (const std::string* mib = label(n, kGpuMemoryLabel)) {
    return std::stoll(*mib) * 1024 * 1024;
  }
  return n.gpu_card_memory;
}

// "0.1.2.3_4.5.6.7" as [[0, 1, 2, 3], [4, 5, 6, 7]].
std::vector<std::vector<int>> nvlink_groups(const NodeInfo& n) {
  std::vector<std::vector<int>> groups;
  const std::string* text = label(n, kNvlinkGroupsLabel);
  if (text == nullptr) {
    return groups;
  }
  groups.emplace_back();
  std::string number;
  for (const char ch : *text + "_") {
    if (ch == '.' || ch == '_') {
      groups.back().push_back(std::stoi(number));
      number.clear();
      if (ch == '_') {
        groups.emplace_back();
      }
    } else {
      number += ch;
    }
  }
  groups.pop_back();
  return groups;
}

// The telemetry the scheduler would read for `n` now (the MetricsSource's last scrape); nullopt
// when the run has no telemetry or the query fails. The query's latency is not charged to the
// cycle (a view, not a plugin's query: docs/python.md).
std::optional<NodeMetrics> telemetry_of(const NodeRef& ref) {
  const NodeInfo& n = ref.get();
  if (ref.ctx == nullptr || ref.ctx->metrics == nullptr) {
    return std::nullopt;
  }
  return ref.ctx->metrics->query(n.node.name, ref.ctx->now).metrics;
}

// Per card: its allocation (milli-GPU allocated, 0..1000), its memory (total; requested: the
// declared memory under declared-memory sharing, else the allocated share of the card; free:
// total - requested) and, with telemetry, the memory in use and the utilisation last scraped.
py::list cards(const NodeRef& ref) {
  const NodeInfo& n = ref.get();
  const std::int64_t total = card_memory(n);
  const bool declared = !n.gpu_memory_left.empty();
  const std::optional<NodeMetrics> m = telemetry_of(ref);
  py::list out;
  for (std::size_t c = 0; c < n.gpu_milli_left.size(); ++c) {
    const int allocated = 1000 - n.gpu_milli_left[c];
    const std::int64_t requested =
        declared ? n.gpu_card_memory - n.gpu_memory_left[c] : total * allocated / 1000;
    py::dict d;
    d["index"] = c;
    d["allocated_milli"] = allocated;
    d["memory_total_bytes"] = total;
    d["memory_requested_bytes"] = requested;
    d["memory_free_bytes"] = total - requested;
    if (m && c < m->gpu_memory_utilization.size()) {
      d["memory_used_bytes"] =
          static_cast<std::int64_t>(m->gpu_memory_utilization[c] * static_cast<double>(total));
    } else {
      d["memory_used_bytes"] = py::none();
    }
    if (m && c < m->gpu_utilization.size()) {
      d["utilization"] = m->gpu_utilization[c];
    } else {
      d["utilization"] = py::none();
    }
    out.append(std::move(d));
  }
  return out;
}

py::object telemetry(const NodeRef& ref) {
  const std::optional<NodeMetrics> m = telemetry_of(ref);
  if (!m) {
    return py::none();
  }
  py::dict d;
  d["gpu_memory_utilization"] = m->gpu_memory_utilization;
  d["gpu_utilization"] = m->gpu_utilization;
  d["nvlink_competition_index"] = m->nvlink_competition_index;
  d["storage_await_ms"] = m->storage_await_ms;
  d["sampled_at_s"] = to_seconds(m->sampled_at);
  d["staleness_s"] = to_seconds(ref.ctx->now - m->sampled_at);
  return d;
}

// The pods bound to the node, in binding order, with their jobs (the tidesim.io/job,
// tidesim.io/job-kind and tidesim.io/model labels; None where a pod has none).
py::list pods(const NodeRef& ref) {
  const NodeInfo& n = ref.get();
  py::list out;
  for (std::size_t i = 0; i < n.pods.size(); ++i) {
    const PodSpec& p = *n.pods[i];
    py::dict d;
    d["name"] = p.name;
    d["gpus"] = p.requests.gpus;
    d["gpu_milli"] = p.requests.gpu_milli;
    d["bound_at_s"] = i < n.bound_at.size() ? to_seconds(n.bound_at[i]) : 0.0;
    for (const auto& [key, label_key] :
         {std::pair{"job", "tidesim.io/job"}, std::pair{"kind", "tidesim.io/job-kind"},
          std::pair{"model", "tidesim.io/model"}}) {
      const auto it = p.labels.find(label_key);
      d[key] = it == p.labels.end() ? py::object(py::none()) : py::object(py::str(it->second));
    }
    out.append(std::move(d));
  }
  return out;
}

}  // namespace

void bind_gpu_views(py::class_<NodeRef>& node) {
  node.def_property_readonly(
          "gpu_model",
          [](const NodeRef& n) { return label_or_none(n.get(), "nvidia.com/gpu.product"); })
      .def_property_readonly(
          "sharing", [](const NodeRef& n) { return label_or_none(n.get(), kGpuSharingLabel); })
      .def_property_readonly("nvlink_groups",
                             [](const NodeRef& n) { return nvlink_groups(n.get()); })
      .def_property_readonly("cards", &cards)
      .def_property_readonly("telemetry", &telemetry)
      .def_property_readonly("pods", &pods);
}

}  // namespace tidesim::python
