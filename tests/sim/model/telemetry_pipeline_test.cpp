#include "tidesim/sim/model/telemetry_pipeline.hpp"

#include <gtest/gtest.h>

namespace tidesim {
namespace {

using namespace std::chrono_literals;

// A node whose true GPU memory utilisation is the current time in seconds / 100, so a query
// shows exactly when its answer was sampled.
struct Fixture {
  Simulation sim{1};
  TelemetryConfig config;
  std::unique_ptr<TelemetryPipeline> pipeline;

  void build() {
    pipeline = std::make_unique<TelemetryPipeline>(
        sim, config, std::vector<std::string>{"n0", "n1"},
        [this](int, NodeMetrics& m, std::uint64_t&) {
          m.gpu_memory_utilization = {to_seconds(sim.now()) / 100.0};
          return true;
        });
    pipeline->start();
  }
  double seen(const std::string& node, TimePoint at) {
    sim.run(at);
    const auto a = pipeline->query(node, sim.now());
    return a.metrics ? a.metrics->gpu_memory_utilization[0] : -1.0;
  }
};

TEST(TelemetryPipeline, QueriesSeeTheLastScrapedSample) {
  Fixture f;
  f.config.sample_interval = 10s;
  f.config.scrape_interval = 15s;
  f.build();
  // Scrapes at 0, 15, 30, 45 s copy the agent's latest sample: taken at 0, 10, 30, 40 s.
  EXPECT_DOUBLE_EQ(f.seen("n0", TimePoint(5s)), 0.0);
  EXPECT_DOUBLE_EQ(f.seen("n0", TimePoint(20s)), 0.10);
  EXPECT_DOUBLE_EQ(f.seen("n0", TimePoint(30s)), 0.30);
  EXPECT_DOUBLE_EQ(f.seen("n0", TimePoint(47s)), 0.40);
  const auto a = f.pipeline->query("n0", f.sim.now());
  EXPECT_EQ(a.metrics->sampled_at, TimePoint(40s));
  EXPECT_EQ(a.latency, 20ms);
}

TEST(TelemetryPipeline, OutageFailsOrSlowsQueries) {
  Fixture f;
  f.config.outages = {{TimePoint(20s), TimePoint(30s), std::nullopt},
                      {TimePoint(40s), TimePoint(50s), Duration(7s)}};
  f.build();
  f.sim.run(TimePoint(25s));
  const auto down = f.pipeline->query("n0", f.sim.now());
  EXPECT_FALSE(down.metrics.has_value());
  EXPECT_EQ(down.latency, 10s);
  f.sim.run(TimePoint(45s));
  const auto slow = f.pipeline->query("n0", f.sim.now());
  EXPECT_TRUE(slow.metrics.has_value());
  EXPECT_EQ(slow.latency, 7s) << "the seed's fallback starts past 5 s";
}

TEST(TelemetryPipeline, SilentAgentGoesStale) {
  Fixture f;
  f.config.silent_agents = {{"n1", TimePoint(12s), TimePoint(100s)}};
  f.build();
  // n1's last scrape before going silent is at 0 s (next scrapes at 15, 30, ... are skipped).
  EXPECT_DOUBLE_EQ(f.seen("n1", TimePoint(60s)), 0.0);
  EXPECT_DOUBLE_EQ(f.seen("n0", TimePoint(61s)), 0.60);
  EXPECT_FALSE(f.pipeline->query("nX", f.sim.now()).metrics.has_value());
}

TEST(TelemetryPipeline, UnchangedReadingsKeepTheirValuesAndMoveTheirSampleTime) {
  // The sampler reports a change only at its first call and at 30 s (readings 0.25 then 0.75);
  // in between it leaves the sample as it is. Samples every 10 s, scrapes every 15 s: the scrape
  // at 15 s copies the 10 s sample (0.25, unchanged since 0 s), the one at 45 s the 40 s sample
  // (0.75, unchanged since 30 s), so each answer has the readings of the last change and the
  // time of the last sample.
  Simulation sim{1};
  TelemetryConfig config;
  config.sample_interval = std::chrono::seconds(10);
  config.scrape_interval = std::chrono::seconds(15);
  int calls = 0;
  TelemetryPipeline pipeline(sim, config, {"n0"},
                             [&](int, NodeMetrics& m, std::uint64_t& revision) {
                               ++calls;
                               const double reading = sim.now() < TimePoint(30s) ? 0.25 : 0.75;
                               if (revision != 0 && (sim.now() != TimePoint(30s))) {
                                 return false;
                               }
                               revision = 1;
                               m.gpu_memory_utilization = {reading};
                               m.storage_await_ms["nfs"] = reading;
                               return true;
                             });
  pipeline.start();
  sim.run(TimePoint(20s));
  auto a = pipeline.query("n0", sim.now());
  ASSERT_TRUE(a.metrics.has_value());
  EXPECT_EQ(a.metrics->gpu_memory_utilization, std::vector<double>{0.25});
  EXPECT_EQ(a.metrics->sampled_at, TimePoint(10s));
  sim.run(TimePoint(47s));
  a = pipeline.query("n0", sim.now());
  EXPECT_EQ(a.metrics->gpu_memory_utilization, std::vector<double>{0.75});
  EXPECT_EQ(a.metrics->storage_await_ms.at("nfs"), 0.75);
  EXPECT_EQ(a.metrics->sampled_at, TimePoint(40s));
  EXPECT_EQ(calls, 5) << "one call per sample: 0, 10, 20, 30, 40 s";
}

}  // namespace
}  // namespace tidesim
