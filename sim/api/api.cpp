#include "sim/api/api.hpp"

#include <algorithm>
#include <charconv>

namespace tidesim {

Resources& Resources::operator+=(const Resources& o) {
  cpu_milli += o.cpu_milli;
  memory_bytes += o.memory_bytes;
  gpus += o.gpus;
  gpu_milli += o.gpu_milli;
  for (const auto& [name, value] : o.extended) {
    extended[name] += value;
  }
  return *this;
}

Resources& Resources::operator-=(const Resources& o) {
  cpu_milli -= o.cpu_milli;
  memory_bytes -= o.memory_bytes;
  gpus -= o.gpus;
  gpu_milli -= o.gpu_milli;
  for (const auto& [name, value] : o.extended) {
    extended[name] -= value;
  }
  return *this;
}

namespace {

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
