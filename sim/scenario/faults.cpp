#include "tidesim/sim/scenario/faults.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim {
namespace {

FailureProcess parse_process(const ConfigNode& node, const std::string& file,
                             const std::string& path, Duration default_mtbf,
                             Duration default_repair, bool has_repair) {
  Fields f(node, file, path);
  FailureProcess p;
  p.distribution =
      f.choice("distribution", "exponential", {"exponential", "weibull"}) == "exponential"
          ? FailureProcess::Distribution::kExponential
          : FailureProcess::Distribution::kWeibull;
  p.mtbf = f.duration("mtbf", default_mtbf, std::chrono::seconds(1));
  p.shape = f.number("shape", 1.0, 0.05, 20.0);
  if (p.distribution == FailureProcess::Distribution::kExponential && f.has("shape")) {
    throw f.error(f.get("shape"), "shape", "applies to the weibull distribution only");
  }
  if (has_repair) {
    p.repair = f.duration("repair", default_repair, std::chrono::seconds(1));
    const std::string d =
        f.choice("repair_distribution", "fixed", {"fixed", "exponential", "lognormal"});
    p.repair_distribution = d == "fixed"         ? FailureProcess::Repair::kFixed
                            : d == "exponential" ? FailureProcess::Repair::kExponential
                                                 : FailureProcess::Repair::kLognormal;
    p.repair_sigma = f.number("repair_sigma", 1.0, 0.05, 5.0);
    if (p.repair_distribution != FailureProcess::Repair::kLognormal && f.has("repair_sigma")) {
      throw f.error(f.get("repair_sigma"), "repair_sigma",
                    "applies to the lognormal repair distribution only");
    }
  }
  f.finish();
  return p;
}

}  // namespace

FaultsConfig parse_faults(const ConfigNode& node, const std::string& file,
                          const std::vector<std::string>& node_names) {
  FaultsConfig c;
  if (!node) {
    return c;
  }
  c.enabled = true;
  Fields f(node, file, "faults");
  // Defaults: Llama 3 (Dubey et al. 2024, table 5): 419 unexpected interruptions in 54 days on
  // 16,384 H100s (2,048 hosts of 8), 58.7% GPU-related. GPU: 16,384 x 1,296 h / (0.587 x 419)
  // = 86,300 h per card; the rest: 2,048 x 1,296 h / (0.413 x 419) = 15,300 h per node.
  // Repair time: assumption (2 h).
  if (const ConfigNode n = f.get("node_failures")) {
    c.node_failures = parse_process(n, file, "faults.node_failures", std::chrono::hours(15'300),
                                    std::chrono::hours(2), true);
  }
  if (const ConfigNode n = f.get("card_errors")) {
    c.card_errors = parse_process(n, file, "faults.card_errors", std::chrono::hours(86'300),
                                  Duration::zero(), false);
  }
  if (const ConfigNode list = f.get("scheduled")) {
    int i = 0;
    for (const auto& item : sequence_of(list, file, "faults.scheduled")) {
      Fields s(item, file, fmt::format("faults.scheduled[{}]", i++));
      ScheduledFault sf;
      sf.where = location_of(item, file);
      const std::string kind =
          s.choice("kind", std::nullopt, {"node-failure", "card-error", "drain"});
      sf.kind = kind == "node-failure" ? ScheduledFault::Kind::kNodeFailure
                : kind == "card-error" ? ScheduledFault::Kind::kCardError
                                       : ScheduledFault::Kind::kDrain;
      const std::string name = s.string("node");
      const auto it = std::find(node_names.begin(), node_names.end(), name);
      if (it == node_names.end()) {
        throw s.error(s.get("node"), "node", "no node is called '" + name + "'");
      }
      sf.node = static_cast<int>(it - node_names.begin());
      sf.at = TimePoint(s.duration("at", std::nullopt));
      if (sf.kind == ScheduledFault::Kind::kCardError) {
        sf.card = static_cast<int>(s.integer("card", std::nullopt, 0, 1023));
      } else {
        sf.duration = s.duration("duration", std::nullopt, std::chrono::seconds(1));
      }
      s.finish();
      c.scheduled.push_back(sf);
    }
  }
  c.gang = parse_gang_failures(f.get("gang"), file, node_names);
  f.finish();
  return c;
}

Duration draw_time_between_failures(const FailureProcess& p, RandomStream& rng) {
  const double mean = to_seconds(p.mtbf);
  double seconds = 0.0;
  if (p.distribution == FailureProcess::Distribution::kExponential) {
    seconds = rng.exponential(1.0 / mean);
  } else {
    // Weibull(k, lambda) has mean lambda Gamma(1 + 1/k); inverse CDF: lambda (-ln U)^(1/k).
    const double lambda = mean / std::tgamma(1.0 + 1.0 / p.shape);
    const double u = std::max(rng.uniform01(), 1e-300);
    seconds = lambda * std::pow(-std::log(u), 1.0 / p.shape);
  }
  // At least 1 s and at most 100 years, so that a draw is a valid delay.
  return from_seconds(std::clamp(seconds, 1.0, 100.0 * 365.0 * 86400.0));
}

Duration draw_repair_time(const FailureProcess& p, RandomStream& rng) {
  const double mean = to_seconds(p.repair);
  double seconds = mean;
  if (p.repair_distribution == FailureProcess::Repair::kExponential) {
    seconds = rng.exponential(1.0 / mean);
  } else if (p.repair_distribution == FailureProcess::Repair::kLognormal) {
    // A lognormal's mean is exp(mu + sigma^2 / 2).
    const double s = p.repair_sigma;
    seconds = rng.lognormal(std::log(mean) - s * s / 2.0, s);
  }
  return from_seconds(std::clamp(seconds, 1.0, 100.0 * 365.0 * 86400.0));
}

}  // namespace tidesim
