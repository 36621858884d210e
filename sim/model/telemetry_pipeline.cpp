#include "tidesim/sim/model/telemetry_pipeline.hpp"

#include <algorithm>

namespace tidesim {

TelemetryPipeline::TelemetryPipeline(Simulation& sim, TelemetryConfig config,
                                     std::vector<std::string> nodes, Sampler sampler)
    : sim_(sim),
      config_(std::move(config)),
      nodes_(std::move(nodes)),
      sampler_(std::move(sampler)),
      agent_(nodes_.size()),
      scraped_(nodes_.size()),
      sampler_revision_(nodes_.size(), 0),
      agent_changes_(nodes_.size(), 0),
      scraped_changes_(nodes_.size(), 0),
      history_(nodes_.size()) {
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    index_.emplace(nodes_[i], i);
  }
}

void TelemetryPipeline::start() {
  sim_.schedule_in(Duration::zero(), [this] { sample_all(); });
  sim_.schedule_in(Duration::zero(), [this] { scrape_all(); });
}

void TelemetryPipeline::take_samples() {
  if (last_sample_at_ == sim_.now()) {
    return;
  }
  last_sample_at_ = sim_.now();
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    auto& agent = agent_[i];
    if (!agent) {
      agent.emplace();
    }
    if (sampler_(static_cast<int>(i), *agent, sampler_revision_[i])) {
      ++agent_changes_[i];
    }
    agent->sampled_at = sim_.now();
  }
}

void TelemetryPipeline::sample_all() {
  if (stopped_) {
    return;
  }
  take_samples();
  sim_.schedule_in(config_.sample_interval, [this] { sample_all(); });
}

bool TelemetryPipeline::agent_silent(int node, TimePoint at) const {
  return std::any_of(
      config_.silent_agents.begin(), config_.silent_agents.end(), [&](const SilentAgent& s) {
        return s.node == nodes_[static_cast<std::size_t>(node)] && at >= s.start && at < s.end;
      });
}

void TelemetryPipeline::scrape_all() {
  if (stopped_) {
    return;
  }
  // A sample due at this very instant is taken before the scrape, whatever the event order.
  if (sim_.now().time_since_epoch() % config_.sample_interval == Duration::zero()) {
    take_samples();
  }
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (agent_[i] && !agent_silent(static_cast<int>(i), sim_.now())) {
      if (scraped_[i] && scraped_changes_[i] == agent_changes_[i]) {
        scraped_[i]->sampled_at = agent_[i]->sampled_at;  // the same readings, a newer sample
      } else {
        scraped_[i] = agent_[i];  // copy-assignment reuses the held sample's storage
        scraped_changes_[i] = agent_changes_[i];
      }
      if (history_length_ > 0) {
        auto& h = history_[i];
        h.push_back(*agent_[i]);
        if (h.size() > history_length_) {
          h.pop_front();
        }
      }
    }
  }
  last_scrape_ = sim_.now();
  sim_.schedule_in(config_.scrape_interval, [this] { scrape_all(); });
  if (on_scrape_) {
    on_scrape_();
  }
}

std::optional<std::size_t> TelemetryPipeline::find(const std::string& node) const {
  std::size_t i = next_;
  if (i >= nodes_.size() || nodes_[i] != node) {
    const auto it = index_.find(node);
    if (it == index_.end()) {
      return std::nullopt;
    }
    i = it->second;
  }
  next_ = i + 1;
  return i;
}

MetricsAnswer TelemetryPipeline::query(const std::string& node, TimePoint now) const {
  for (const auto& o : config_.outages) {
    if (now >= o.start && now < o.end && !o.latency) {
      return MetricsAnswer{std::nullopt, config_.query_timeout};
    }
  }
  Duration latency = config_.query_latency;
  for (const auto& o : config_.outages) {
    if (now >= o.start && now < o.end && o.latency) {
      latency = std::max(latency, *o.latency);
    }
  }
  const auto i = find(node);
  if (!i) {
    return MetricsAnswer{std::nullopt, latency};
  }
  return MetricsAnswer{scraped_[*i], latency};
}

std::optional<NodeMetrics> TelemetryPipeline::forecast(const std::string& node,
                                                       TimePoint now) const {
  if (!forecaster_) {
    return std::nullopt;
  }
  const auto i = find(node);
  if (!i) {
    return std::nullopt;
  }
  return forecaster_(static_cast<int>(*i), now);
}

}  // namespace tidesim
