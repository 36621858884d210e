#pragma once
/// The scenario's `telemetry` section: how the simulated monitoring path samples, scrapes and
/// answers (sim/model/telemetry_pipeline.hpp runs it), and its injected faults.
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/engine/time.hpp"

namespace tidesim {

/// A window during which Prometheus answers slowly or not at all.
struct PrometheusOutage {
  TimePoint start{};
  TimePoint end{};
  /// When set, queries answer after this latency (a slow Prometheus); when empty, they fail
  /// after `TelemetryConfig::query_timeout`.
  std::optional<Duration> latency;
};

/// A window during which one node's agent is not scraped (crashed, network split).
struct SilentAgent {
  std::string node;
  TimePoint start{};
  TimePoint end{};
};

/// Telemetry settings (scenario section `telemetry`).
struct TelemetryConfig {
  /// The node agent's sampling period (seed 3.1: 10 s).
  Duration sample_interval = std::chrono::seconds(10);
  /// Prometheus' scrape period (assumption: 15 s, Prometheus' documented example global interval).
  Duration scrape_interval = std::chrono::seconds(15);
  /// How long a healthy query takes (assumption: 20 ms).
  Duration query_latency = std::chrono::milliseconds(20);
  /// How long a failing query takes before it errors (assumption: 10 s).
  Duration query_timeout = std::chrono::seconds(10);
  std::vector<PrometheusOutage> outages;
  std::vector<SilentAgent> silent_agents;
};

}  // namespace tidesim
