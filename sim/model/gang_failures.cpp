#include "tidesim/sim/model/gang_failures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "tidesim/sim/model/cluster.hpp"
#include "tidesim/sim/model/fabric_network.hpp"
#include "tidesim/topologies/fabric.hpp"
#include "tidesim/workloads/llm_job.hpp"

namespace tidesim {
namespace {

// Bytes per parameter of a mixed-precision Adam checkpoint: the 16-bit weights (2) and the
// optimizer states, an FP32 master copy and the two moments (12); the gradients are not saved
// (Rajbhandari et al., "ZeRO", SC 2020, section 3.1: 2 + 2 + 12 bytes of model states).
constexpr double kCheckpointBytesPerParameter = 14.0;

}  // namespace

GangFailures::GangFailures(RunContext& run, const GangFailuresConfig& config, std::uint64_t seed)
    : run_(run), config_(config), seed_(seed) {
  for (std::size_t j = 0; j < run.jobs.size(); ++j) {
    index_.emplace(run.jobs[j].spec->name, static_cast<int>(j));
  }
  run.signals.job.connect([this](const JobEvent& e) { on_job(e); });
}

void GangFailures::on_job(const JobEvent& e) {
  const bool ends = e.kind == JobEventKind::kSucceeded || e.kind == JobEventKind::kFailed ||
                    e.kind == JobEventKind::kEvicted || e.kind == JobEventKind::kOomKilled;
  if (e.kind != JobEventKind::kStarted && !ends) {
    return;
  }
  const auto it = index_.find(e.job);
  if (it == index_.end()) {
    return;
  }
  const int j = it->second;
  if (ends) {
    close(j);
  } else if (e.gpus > 0 && !open_.contains(j)) {
    open_.emplace(j, Open{run_.sim.now(), e.attempt, shape_of(j, e.gpus), e.job});
  }
}

GangShape GangFailures::shape_of(int j, int gpus) const {
  const Job& job = run_.jobs[static_cast<std::size_t>(j)];
  GangShape s;
  s.gpus = gpus;
  std::set<int> mine;
  for (const int p : job.pods) {
    const int n = run_.pods[static_cast<std::size_t>(p)].node;
    if (n >= 0) {
      mine.insert(n);
    }
  }
  s.nodes = static_cast<int>(mine.size());
  const FabricNetwork* fabric = run_.cluster.fabric();
  auto rack = [fabric](int n) { return fabric ? fabric_domain(fabric->fabric(), 0, n) : 0; };
  const auto& nodes = run_.cluster.nodes();
  int idle = 0;
  for (int n = 0; n < static_cast<int>(nodes.size()); ++n) {
    const ClusterNode& node = nodes[static_cast<std::size_t>(n)];
    if (!node.gpus || node.gpus->card_count() == 0) {
      continue;
    }
    ++s.cluster_nodes;
    if (node.jobs.empty() && !mine.contains(n)) {
      const auto r = static_cast<std::size_t>(rack(n));
      s.free_in_rack.resize(std::max(s.free_in_rack.size(), r + 1), 0);
      ++s.free_in_rack[r];
      ++idle;
    }
  }
  for (const int n : mine) {
    s.rack_of.push_back(rack(n));
  }
  s.free_in_rack.resize(std::max<std::size_t>(s.free_in_rack.size(), 1), 0);
  for (const int r : s.rack_of) {
    s.free_in_rack.resize(std::max(s.free_in_rack.size(), static_cast<std::size_t>(r) + 1), 0);
  }
  s.spares = std::min(config_.spares, idle);
  if (config_.checkpoint.size_bytes) {
    s.checkpoint_bytes = *config_.checkpoint.size_bytes;
  } else if (job.spec->llm) {
    s.checkpoint_bytes = job.spec->llm->model.parameters() * kCheckpointBytesPerParameter;
  }
  return s;
}

void GangFailures::close(int j) {
  const auto it = open_.find(j);
  if (it == open_.end()) {
    return;
  }
  const Open o = std::move(it->second);
  open_.erase(it);
  RandomStream rng(seed_, fmt::format("faults/gang/{}/{}", o.job, o.attempt));
  const double window = to_seconds(run_.sim.now() - o.start);
  const GangLife life =
      simulate_gang_life(config_, o.shape, window, random_gang_draws(config_, o.shape, rng));
  GangLifeRecord r;
  r.at = run_.sim.now();
  r.job = o.job;
  r.gpus = o.shape.gpus;
  r.wall = life.wall;
  r.productive = life.productive;
  r.lost_work = life.lost_work;
  r.detection = life.detection;
  r.restart = life.restart;
  r.checkpoint = life.checkpoint;
  r.planned_downtime = life.planned_downtime;
  r.running = life.running;
  r.planned = life.planned;
  for (std::size_t c = 0; c < config_.components.size(); ++c) {
    r.unexpected.emplace_back(config_.components[c].name, life.by_component[c]);
  }
  run_.signals.gang_life.emit(r);
}

std::unique_ptr<GangFailures> make_gang_failures(RunContext& run, const GangFailuresConfig& config,
                                                 std::uint64_t seed) {
  return config.enabled ? std::make_unique<GangFailures>(run, config, seed) : nullptr;
}

void GangFailures::close_all() {
  while (!open_.empty()) {
    close(open_.begin()->first);
  }
}

}  // namespace tidesim
