#pragma once
/// The simulated monitoring path a load-aware scheduler reads through: a node agent per node
/// (the seed's ai-node-metrics DaemonSet) samples the true state every `sample_interval`;
/// Prometheus scrapes each agent every `scrape_interval`; a query returns the last scraped sample
/// after `query_latency`. Faults: Prometheus outages (queries fail or are slow) and silent agents
/// (not scraped for a while, so their series go stale).
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tidesim/sim/api/telemetry.hpp"
#include "tidesim/sim/engine/simulation.hpp"
#include "tidesim/sim/scenario/telemetry_config.hpp"

namespace tidesim {

/// Samples, scrapes and answers queries. Node `i` is sampled through `sampler(i, m, revision)`.
///
/// Cost follows what changes: each node's agent sample and Prometheus' copy of it are kept from
/// one sample to the next and refilled in place only when the node's readings changed; otherwise
/// only their `sampled_at` moves. What a query returns is the same as if every sample were taken
/// afresh.
class TelemetryPipeline final : public MetricsSource {
 public:
  /// Brings `m` (node `node`'s previous sample, or a fresh NodeMetrics before the first) to what
  /// the agent reads now, except `sampled_at`; returns false when nothing changed, so `m` was
  /// left as it is. `revision` is the sampler's own record for this node, 0 before the first
  /// call (Observer::agent_sample).
  using Sampler = std::function<bool(int node, NodeMetrics& m, std::uint64_t& revision)>;

  /// `nodes` names the nodes in index order. Agents sample at k x sample_interval from time 0;
  /// Prometheus scrapes every node at k x scrape_interval (a sample taken at the same instant
  /// is taken first).
  TelemetryPipeline(Simulation& sim, TelemetryConfig config, std::vector<std::string> nodes,
                    Sampler sampler);

  /// Schedules the first sampling and scrape events.
  void start();
  /// Stops scheduling further events (at the end of a run).
  void stop() { stopped_ = true; }

  MetricsAnswer query(const std::string& node, TimePoint now) const override;
  /// What the forecaster set by set_forecaster() predicts; nullopt without one.
  std::optional<NodeMetrics> forecast(const std::string& node, TimePoint now) const override;

  /// Keeps the last `scrapes` scraped samples of each node (Prometheus' range of a query over
  /// the prediction window); 0 (the default) keeps none.
  void keep_history(std::size_t scrapes) { history_length_ = scrapes; }
  /// Node `node`'s scraped samples, oldest first, one per scrape in which its agent was scraped
  /// (each stamped with its agent's sampled_at; scrapes are `scrape_interval` apart).
  const std::deque<NodeMetrics>& history(int node) const {
    return history_[static_cast<std::size_t>(node)];
  }
  /// When the last scrape happened (nullopt before the first).
  std::optional<TimePoint> last_scrape() const { return last_scrape_; }

  using Forecaster = std::function<std::optional<NodeMetrics>(int node, TimePoint now)>;
  void set_forecaster(Forecaster forecaster) { forecaster_ = std::move(forecaster); }

  const TelemetryConfig& config() const { return config_; }
  /// Called after every scrape, once Prometheus holds the new samples.
  void set_on_scrape(std::function<void()> on_scrape) { on_scrape_ = std::move(on_scrape); }

 private:
  void sample_all();
  void take_samples();
  void scrape_all();
  bool agent_silent(int node, TimePoint at) const;
  /// Node `node`'s index, nullopt for an unknown name. Readers ask for the nodes in index order
  /// (a policy's pass over the cluster), so the one after the last found is tried first, by a
  /// string comparison, before the hash map.
  std::optional<std::size_t> find(const std::string& node) const;

  Simulation& sim_;
  TelemetryConfig config_;
  std::function<void()> on_scrape_;
  std::vector<std::string> nodes_;
  std::unordered_map<std::string, std::size_t> index_;  // node name -> index
  mutable std::size_t next_ = 0;                        // the index find() tries first
  Sampler sampler_;
  std::vector<std::optional<NodeMetrics>> agent_;    // the agent's latest sample
  std::vector<std::optional<NodeMetrics>> scraped_;  // what Prometheus holds
  std::vector<std::uint64_t> sampler_revision_;      // the sampler's record per node
  // Per node: how many times the agent's readings changed, and that count when Prometheus
  // last copied them (scraped_ differs from agent_ only in sampled_at when they are equal).
  std::vector<std::uint64_t> agent_changes_;
  std::vector<std::uint64_t> scraped_changes_;
  std::optional<TimePoint> last_sample_at_;
  std::size_t history_length_ = 0;
  std::vector<std::deque<NodeMetrics>> history_;
  std::optional<TimePoint> last_scrape_;
  Forecaster forecaster_;
  bool stopped_ = false;
};

}  // namespace tidesim
