#include "tidesim/sim/scenario/descheduler_config.hpp"

#include <fmt/format.h>

#include <set>

#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim {
namespace {

const std::vector<std::string> kRequested{"cpu", "memory", "gpu"};
const std::vector<std::string> kMeasured{"gpu_memory", "gpu_utilization"};

Thresholds parse_thresholds(const ConfigNode& node, const std::string& file,
                            const std::string& path, const std::vector<std::string>& resources) {
  Fields f(node, file, path);
  Thresholds t;
  for (const auto& r : resources) {
    if (f.has(r)) {
      t[r] = f.fraction(r, std::nullopt);
    }
  }
  f.finish();
  if (t.empty()) {
    std::string list;
    for (const auto& r : resources) {
      list += (list.empty() ? "" : ", ") + r;
    }
    throw f.error(ConfigNode(), "", "names no resource (one of " + list + ")");
  }
  return t;
}

// LowNodeUtilization and LowNodeLoad: the same resources on both sides, low <= high
// (the descheduler's ValidateLowNodeUtilizationArgs).
void check_pair(Fields& f, const std::string& high_key, const Thresholds& low,
                const Thresholds& high) {
  for (const auto& [r, v] : low) {
    const auto it = high.find(r);
    if (it == high.end()) {
      throw f.error(f.get(high_key), high_key, "has no '" + r + "' (the low thresholds name it)");
    }
    if (v > it->second) {
      throw f.error(
          f.get(high_key), high_key + "." + r,
          fmt::format("{:g}% is under the low threshold {:g}%", it->second * 100.0, v * 100.0));
    }
  }
  for (const auto& [r, v] : high) {
    if (!low.contains(r)) {
      throw f.error(f.get(high_key), high_key + "." + r, "has no low threshold");
    }
  }
}

DeschedulerStrategy parse_strategy(const ConfigNode& node, const std::string& file,
                                   const std::string& path) {
  Fields f(node, file, path);
  DeschedulerStrategy s;
  s.where = location_of(node, file);
  const std::string name = f.choice(
      "name", std::nullopt, {"LowNodeUtilization", "HighNodeUtilization", "LowNodeLoad", "LSCS"});
  s.number_of_nodes = 0;
  if (name == "LowNodeUtilization") {
    s.kind = DeschedulerStrategy::Kind::kLowNodeUtilization;
    s.low = parse_thresholds(f.require("thresholds"), file, f.path_of("thresholds"), kRequested);
    s.high = parse_thresholds(f.require("target_thresholds"), file, f.path_of("target_thresholds"),
                              kRequested);
    check_pair(f, "target_thresholds", s.low, s.high);
    s.number_of_nodes = static_cast<int>(f.integer("number_of_nodes", 0, 0, 100'000));
  } else if (name == "HighNodeUtilization") {
    s.kind = DeschedulerStrategy::Kind::kHighNodeUtilization;
    s.low = parse_thresholds(f.require("thresholds"), file, f.path_of("thresholds"), kRequested);
    s.number_of_nodes = static_cast<int>(f.integer("number_of_nodes", 0, 0, 100'000));
  } else if (name == "LowNodeLoad") {
    s.kind = DeschedulerStrategy::Kind::kLowNodeLoad;
    s.low =
        parse_thresholds(f.require("low_thresholds"), file, f.path_of("low_thresholds"), kMeasured);
    s.high = parse_thresholds(f.require("high_thresholds"), file, f.path_of("high_thresholds"),
                              kMeasured);
    check_pair(f, "high_thresholds", s.low, s.high);
    s.number_of_nodes = static_cast<int>(f.integer("number_of_nodes", 0, 0, 100'000));
    s.consecutive_abnormalities =
        static_cast<int>(f.integer("consecutive_abnormalities", 1, 1, 1'000));
  } else {
    s.kind = DeschedulerStrategy::Kind::kLscs;
    s.limit = f.fraction("limit", 0.15);
    if (s.limit <= 0.0) {
      throw f.error(f.get("limit"), "limit", "must be above 0");
    }
    s.window = f.duration("window", std::chrono::minutes(5), std::chrono::seconds(1));
    s.sustained = f.duration("sustained", std::chrono::minutes(10));
  }
  f.finish();
  return s;
}

}  // namespace

const char* to_string(DeschedulerStrategy::Kind kind) {
  switch (kind) {
    case DeschedulerStrategy::Kind::kLowNodeUtilization:
      return "LowNodeUtilization";
    case DeschedulerStrategy::Kind::kHighNodeUtilization:
      return "HighNodeUtilization";
    case DeschedulerStrategy::Kind::kLowNodeLoad:
      return "LowNodeLoad";
    case DeschedulerStrategy::Kind::kLscs:
      return "LSCS";
  }
  return "unknown";
}

bool DeschedulerConfig::reads_metrics() const {
  for (const auto& s : strategies) {
    if (s.kind == DeschedulerStrategy::Kind::kLowNodeLoad ||
        s.kind == DeschedulerStrategy::Kind::kLscs) {
      return true;
    }
  }
  return false;
}

DeschedulerConfig parse_descheduler(const ConfigNode& node, const std::string& file) {
  DeschedulerConfig c;
  if (!node) {
    return c;
  }
  c.enabled = true;
  Fields f(node, file, "descheduler");
  c.interval = f.duration("interval", std::chrono::minutes(2), std::chrono::seconds(1));
  c.max_pods_per_node = static_cast<int>(f.integer("max_pods_per_node", 0, 0, 1'000'000));
  c.max_pods_per_cycle = static_cast<int>(f.integer("max_pods_per_cycle", 0, 0, 1'000'000));
  c.restore_time = f.duration("restore_time", std::chrono::seconds(60));
  const ConfigNode list = f.require("strategies");
  std::set<DeschedulerStrategy::Kind> seen;
  int i = 0;
  for (const auto& item : sequence_of(list, file, "descheduler.strategies")) {
    const std::string path = fmt::format("descheduler.strategies[{}]", i++);
    DeschedulerStrategy s = parse_strategy(item, file, path);
    if (!seen.insert(s.kind).second) {
      throw InputError(s.where, path + ".name",
                       std::string("strategy ") + to_string(s.kind) + " is listed twice");
    }
    c.strategies.push_back(std::move(s));
  }
  if (c.strategies.empty()) {
    throw f.error(list, "strategies", "lists no strategy");
  }
  f.finish();
  return c;
}

}  // namespace tidesim
