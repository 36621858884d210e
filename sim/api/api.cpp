#include "tidesim/sim/api/api.hpp"

#include <algorithm>
#include <charconv>

#include "tidesim/sim/engine/checked.hpp"

namespace tidesim {

namespace {

// Each amount of `a` (extended ones included, each of `b`'s added to `a` when missing) becomes
// op(its value, b's): the one walk of +=, -= and max_into.
template <class Op>
void combine_into(Resources& a, const Resources& b, Op op) {
  a.cpu_milli = op(a.cpu_milli, b.cpu_milli);
  a.memory_bytes = op(a.memory_bytes, b.memory_bytes);
  a.gpus = op(a.gpus, b.gpus);
  a.gpu_milli = op(a.gpu_milli, b.gpu_milli);
  for (auto it = b.extended.begin(); it != b.extended.end(); ++it) {
    auto& mine = a.extended.slot(b.extended.id_at(it), it->first);
    mine = op(mine, it->second);
  }
}

}  // namespace

// Saturating: every amount read is within [0, 2^63 - 1] (sim/input/units.hpp), but sums over
// containers, pods and a node's bound pods are not bounded by the input rules. A sum that
// saturates at 2^63 - 1 still exceeds every allocatable, so the Fit filter refuses such a pod
// as it would with exact arithmetic (docs/robustness.md, "Arithmetic").
Resources& Resources::operator+=(const Resources& o) {
  combine_into(*this, o, saturating_add);
  return *this;
}

Resources& Resources::operator-=(const Resources& o) {
  combine_into(*this, o, saturating_sub);
  return *this;
}

namespace {

// Per-resource maximum (maxResourceList), into `a`.
void max_into(Resources& a, const Resources& b) {
  combine_into(a, b, [](std::int64_t x, std::int64_t y) { return std::max(x, y); });
}

// One container's requests; with kNonZero a CPU or memory key it does not set takes the default
// (applyNonMissing in k8s.io/component-helpers/resource/helpers.go).
Resources container_request(const Container& c, RequestKind kind) {
  Resources r = c.requests;
  if (kind == RequestKind::kNonZero) {
    if (!c.cpu_set) {
      r.cpu_milli = kDefaultMilliCpuRequest;
    }
    if (!c.memory_set) {
      r.memory_bytes = kDefaultMemoryRequest;
    }
  }
  return r;
}

std::optional<long long> to_integer(const std::string& s) {
  long long v = 0;
  const auto* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, v);
  if (ec != std::errc() || ptr != end) {
    return std::nullopt;
  }
  return v;
}

bool holds(const SelectorRequirement& r, const std::map<std::string, std::string>& labels) {
  const auto it = labels.find(r.key);
  const bool present = it != labels.end();
  const auto in_values = [&] {
    return present && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
  };
  if (r.op == "In") {
    return in_values();
  }
  if (r.op == "NotIn") {
    return !in_values();
  }
  if (r.op == "Exists") {
    return present;
  }
  if (r.op == "DoesNotExist") {
    return !present;
  }
  if (r.op == "Gt" || r.op == "Lt") {
    if (!present || r.values.size() != 1) {
      return false;
    }
    const auto have = to_integer(it->second);
    const auto want = to_integer(r.values.front());
    if (!have || !want) {
      return false;
    }
    return r.op == "Gt" ? *have > *want : *have < *want;
  }
  return false;
}

}  // namespace

namespace {

Resources sum_requests(const PodSpec& pod, RequestKind kind) {
  if (!pod.containers) {
    // A pod built without a container list: one container, setting the keys it has non-zero.
    Container one;
    one.requests = pod.requests;
    one.cpu_set = pod.requests.cpu_milli != 0;
    one.memory_set = pod.requests.memory_bytes != 0;
    return container_request(one, kind);
  }
  // resource.PodRequests: containers and sidecars add up; each init container runs with the
  // sidecars started before it; the pod needs the larger of the two; overhead comes on top.
  Resources sum;
  for (const Container& c : *pod.containers) {
    sum += container_request(c, kind);
  }
  Resources sidecars;
  Resources init_max;
  for (const Container& c : pod.init_containers) {
    Resources r = container_request(c, kind);
    if (c.restartable) {
      sum += r;
      sidecars += r;
      r = sidecars;
    } else {
      r += sidecars;
    }
    max_into(init_max, r);
  }
  max_into(sum, init_max);
  sum += pod.overhead;
  return sum;
}

}  // namespace

Resources pod_requests(const PodSpec& pod, RequestKind kind) {
  if (kind == RequestKind::kEffective) {
    return sum_requests(pod, kind);
  }
  // Defaults touch only CPU and memory; every other resource is the pod's effective request as
  // it stands (the run may add extended resources to `requests`, e.g. tidesim.io/gpu-milli).
  const Resources non_zero = sum_requests(pod, kind);
  Resources r = pod.requests;
  r.cpu_milli = non_zero.cpu_milli;
  r.memory_bytes = non_zero.memory_bytes;
  return r;
}

void drop_containers(PodSpec& pod) {
  pod.containers.reset();
  pod.init_containers.clear();
  pod.overhead = Resources{};
}

bool matches(const std::vector<SelectorRequirement>& requirements,
             const std::map<std::string, std::string>& labels) {
  return std::all_of(requirements.begin(), requirements.end(),
                     [&](const SelectorRequirement& r) { return holds(r, labels); });
}

bool matches(const LabelSelector& selector, const std::map<std::string, std::string>& labels) {
  for (const auto& [key, value] : selector.match_labels) {
    const auto it = labels.find(key);
    if (it == labels.end() || it->second != value) {
      return false;
    }
  }
  return matches(selector.match_expressions, labels);
}

bool tolerates(const Toleration& toleration, const Taint& taint) {
  // k8s.io/api/core/v1/toleration.go ToleratesTaint
  if (!toleration.effect.empty() && toleration.effect != taint.effect) {
    return false;
  }
  if (!toleration.key.empty() && toleration.key != taint.key) {
    return false;
  }
  if (toleration.op == "Exists") {
    return true;
  }
  if (toleration.op.empty() || toleration.op == "Equal") {
    return toleration.value == taint.value;
  }
  return false;
}

}  // namespace tidesim
