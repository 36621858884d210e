#include "tidesim/sim/scenario/report_config.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "tidesim/sim/input/did_you_mean.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"
#include "tidesim/sim/metrics/catalog.hpp"

namespace tidesim {

std::optional<std::string> unknown_metric_message(const std::string& name) {
  if (metrics::find_metric(name) != nullptr) {
    return std::nullopt;
  }
  std::vector<std::string> names;
  for (const auto& info : metrics::metric_catalog()) {
    names.emplace_back(info.name);
  }
  std::string message = fmt::format("unknown metric '{}'", name);
  if (const std::string close = closest_name(name, names); !close.empty()) {
    message += fmt::format(" (did you mean '{}'?)", close);
  }
  return message + "; docs/metrics.md lists them";
}

ReportConfig parse_report(const ConfigNode& node, const std::string& file) {
  ReportConfig out;
  if (!node) {
    return out;
  }
  Fields f(node, file, "report");
  const ConfigNode list = f.require("metrics");
  f.finish();
  out.where = location_of(list, file);
  const std::vector<ConfigNode> items = sequence_of(list, file, "report.metrics");
  if (items.empty()) {
    throw InputError(out.where, "report.metrics",
                     "list at least one metric (or leave the section out for the default set)");
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string field = fmt::format("report.metrics[{}]", i);
    const std::string name = scalar_of(items[i], file, field);
    if (const auto message = unknown_metric_message(name)) {
      throw InputError(location_of(items[i], file), field, *message);
    }
    if (std::find(out.metrics.begin(), out.metrics.end(), name) != out.metrics.end()) {
      throw InputError(location_of(items[i], file), field,
                       fmt::format("'{}' is listed twice", name));
    }
    out.metrics.push_back(name);
  }
  return out;
}

}  // namespace tidesim
