#include "tidesim/sim/scenario/prediction_config.hpp"

#include <fmt/format.h>

#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim {
namespace {

const std::vector<std::string> kModelNames{"last", "ewma", "holt", "ar", "job-aware"};

ForecastModel model_of(const std::string& name) {
  for (std::size_t i = 0; i < kModelNames.size(); ++i) {
    if (kModelNames[i] == name) {
      return static_cast<ForecastModel>(i);
    }
  }
  return ForecastModel::kLast;  // unreachable: names are checked by Fields::choice
}

}  // namespace

std::string_view to_string(ForecastModel model) {
  return kModelNames[static_cast<std::size_t>(model)];
}

PredictionConfig parse_prediction(const ConfigNode& node, const std::string& file,
                                  Duration sample_interval, Duration scrape_interval) {
  PredictionConfig c;
  if (!node) {
    return c;
  }
  c.enabled = true;
  Fields f(node, file, "prediction");
  c.model = model_of(f.choice("model", "holt", kModelNames));
  c.horizon = f.duration("horizon", c.horizon, std::chrono::milliseconds(1));
  if (c.horizon % sample_interval != Duration::zero()) {
    throw f.error(f.get("horizon"), "horizon",
                  fmt::format("must be a multiple of run.sample_interval ({}), so that every "
                              "forecast meets a true sample",
                              format_duration(sample_interval)));
  }
  c.window = f.duration("window", c.window, std::chrono::milliseconds(1));
  c.params.alpha = f.number("alpha", c.params.alpha, 1e-6, 1.0);
  c.params.beta = f.number("beta", c.params.beta, 1e-6, 1.0);
  c.params.order = static_cast<int>(f.integer("order", c.params.order, 1, 64));
  const std::int64_t scrapes = c.window / scrape_interval;
  if (scrapes < 2 * c.params.order + 1 || scrapes > 100'000) {
    throw f.error(f.has("window") ? f.get("window") : f.node(), "window",
                  fmt::format("holds {} scrapes at telemetry.scrape_interval {}; it must hold "
                              "between 2 x order + 1 = {} and 100000",
                              scrapes, format_duration(scrape_interval), 2 * c.params.order + 1));
  }
  if (const ConfigNode list = f.get("evaluate")) {
    c.evaluate.clear();
    int i = 0;
    for (const auto& item : sequence_of(list, file, "prediction.evaluate")) {
      const std::string name = item.is_scalar() ? item.scalar() : "";
      bool known = false;
      for (const auto& k : kModelNames) {
        known = known || k == name;
      }
      if (!known) {
        throw InputError(location_of(item, file), fmt::format("prediction.evaluate[{}]", i),
                         fmt::format("'{}' is not one of last, ewma, holt, ar, job-aware", name));
      }
      for (const auto m : c.evaluate) {
        if (m == model_of(name)) {
          throw InputError(location_of(item, file), fmt::format("prediction.evaluate[{}]", i),
                           fmt::format("'{}' is listed twice", name));
        }
      }
      c.evaluate.push_back(model_of(name));
      ++i;
    }
  }
  f.finish();
  return c;
}

}  // namespace tidesim
