#include "tidesim/sim/model/gang_life.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <unordered_set>

namespace tidesim {
namespace {

double devices(const FailureComponent& c, const GangShape& shape) {
  switch (c.per) {
    case FailureComponent::Per::kGpu:
      return shape.gpus;
    case FailureComponent::Per::kNode:
      return shape.nodes;
    case FailureComponent::Per::kLeaf:
      return gang_leaves(shape).size();
  }
  return 0.0;
}

double planned_rate(const GangFailuresConfig& config, const GangShape& shape) {
  return config.planned_rate_per_node_hour * shape.nodes / 3600.0;
}

// A node out of service until `until`, returned then to a pool: a spare, a rack's free nodes,
// or only the cluster's healthy count.
struct Repair {
  double until = 0.0;
  int rack = -1;  // -1: no rack pool
  bool spare = false;
  bool operator>(const Repair& o) const { return until > o.until; }
};

// The state that outlives an attempt: nodes in repair and the pools they return to.
class Pools {
 public:
  explicit Pools(const GangShape& shape)
      : spares_(shape.spares), free_in_rack_(shape.free_in_rack) {}

  // Returns the nodes whose repair ended by `t` to their pools.
  void release(double t) {
    while (!repairs_.empty() && repairs_.top().until <= t) {
      const Repair r = repairs_.top();
      repairs_.pop();
      spares_ += r.spare;
      if (r.rack >= 0) {
        ++free_in_rack_[static_cast<std::size_t>(r.rack)];
      }
    }
  }
  // Takes `n` spares, all or none.
  bool take_spares(int n) { return spares_ >= n && (spares_ -= n, true); }
  // Takes one free node of each rack in `racks` (a rack as often as it is named), all or none.
  bool take_in_racks(const std::vector<int>& racks) {
    std::vector<int> left = free_in_rack_;
    for (const int rack : racks) {
      if (rack < 0 || static_cast<std::size_t>(rack) >= left.size() ||
          left[static_cast<std::size_t>(rack)] <= 0) {
        return false;
      }
      --left[static_cast<std::size_t>(rack)];
    }
    free_in_rack_ = std::move(left);
    return true;
  }
  void down(const Repair& r) { repairs_.push(r); }
  // Seconds from `t` until `healthy` nodes of `total` are out of repair.
  double wait_for(double t, int total, int healthy) const {
    const int short_by = healthy - (total - static_cast<int>(repairs_.size()));
    if (short_by <= 0) {
      return 0.0;
    }
    auto copy = repairs_;
    for (int i = 1; i < short_by; ++i) {
      copy.pop();
    }
    return std::max(0.0, copy.top().until - t);
  }

 private:
  int spares_;
  std::vector<int> free_in_rack_;
  std::priority_queue<Repair, std::vector<Repair>, std::greater<>> repairs_;
};

// Seconds of recovery, from its detection at `t`, after the failure of gang nodes `lost` by
// component `c` at `failed`: a spare or a node of its rack for each lost node (all or none), or
// the whole gang (or its failed partitions) rescheduled after enough repairs; loading excluded.
double recover(const GangFailuresConfig& config, const GangShape& shape, const FailureComponent& c,
               const std::vector<int>& lost, double failed, double t, Pools& pools) {
  if (c.repair <= Duration::zero()) {
    return recovery_overhead(config, Recovery::kInPlace);  // only the processes: in place
  }
  const double until = failed + to_seconds(c.repair);
  const int count = static_cast<int>(lost.size());
  if (config.on_failure == OnFailure::kSpare && pools.take_spares(count)) {
    for (int k = 0; k < count; ++k) {
      pools.down({until, -1, true});  // repaired, it becomes a spare
    }
    return recovery_overhead(config, Recovery::kSpare);
  }
  std::vector<int> racks;
  for (const int node : lost) {
    racks.push_back(shape.rack_of.empty() ? 0 : shape.rack_of[static_cast<std::size_t>(node)]);
  }
  // A leaf's failure takes its rack's other nodes down with it (the rack is the leaf's tier).
  if (config.on_failure == OnFailure::kReplaceNode && c.per != FailureComponent::Per::kLeaf &&
      pools.take_in_racks(racks)) {
    for (const int rack : racks) {
      pools.down({until, rack, false});  // repaired, it is a free node of its rack
    }
    return recovery_overhead(config, Recovery::kReplaceNode);
  }
  for (int k = 0; k < count; ++k) {
    pools.down({until, -1, false});
  }
  // A partition restart waits, as the whole gang, for healthy nodes to hold the gang.
  return pools.wait_for(t, shape.cluster_nodes, shape.nodes) +
         recovery_overhead(config, config.on_failure == OnFailure::kRestartPartition
                                       ? Recovery::kPartition
                                       : Recovery::kGang);
}

}  // namespace

std::vector<int> gang_leaves(const GangShape& shape) {
  std::vector<int> leaves;
  std::unordered_set<int> seen;
  for (int n = 0; n < shape.nodes; ++n) {
    const int leaf = shape.leaf_of.empty() ? n : shape.leaf_of[static_cast<std::size_t>(n)];
    if (seen.insert(leaf).second) {
      leaves.push_back(leaf);
    }
  }
  return leaves;
}

std::vector<int> lost_nodes(const FailureComponent& c, const GangShape& shape, int index) {
  if (c.per != FailureComponent::Per::kLeaf) {
    return {index};
  }
  const std::vector<int> leaves = gang_leaves(shape);
  if (leaves.empty()) {
    return {};
  }
  const int leaf = leaves[static_cast<std::size_t>(index) % leaves.size()];
  std::vector<int> lost;
  for (int n = 0; n < shape.nodes; ++n) {
    if ((shape.leaf_of.empty() ? n : shape.leaf_of[static_cast<std::size_t>(n)]) == leaf) {
      lost.push_back(n);
    }
  }
  return lost;
}

double recovery_overhead(const GangFailuresConfig& config, Recovery how) {
  switch (how) {
    case Recovery::kInPlace:
    case Recovery::kSpare:
      return 0.0;
    case Recovery::kReplaceNode:
      return to_seconds(config.replacement);
    case Recovery::kGang:
    case Recovery::kPartition:
      return to_seconds(config.rescheduling);
  }
  return 0.0;
}

double loading_seconds(const GangFailuresConfig& config, double checkpoint_bytes) {
  return to_seconds(config.loading) + checkpoint_bytes / config.checkpoint.bandwidth;
}

int GangLife::unexpected() const {
  int n = 0;
  for (const int c : by_component) {
    n += c;
  }
  return n;
}

double gang_failure_rate(const GangFailuresConfig& config, const GangShape& shape) {
  double rate = 0.0;
  for (const auto& c : config.components) {
    rate += c.rate_per_hour * devices(c, shape);
  }
  return rate / 3600.0;
}

CheckpointTimes checkpoint_times(const GangFailuresConfig& config, const GangShape& shape) {
  const CheckpointPolicy& p = config.checkpoint;
  CheckpointTimes cp;
  if (p.async) {
    cp.stall = shape.checkpoint_bytes / std::max(shape.gpus, 1) / p.snapshot_bandwidth;
    cp.persist = shape.checkpoint_bytes / p.bandwidth;
  } else {
    cp.stall = shape.checkpoint_bytes / p.bandwidth;
  }
  if (!p.young_daly) {
    cp.interval = to_seconds(p.interval);
  } else {
    // Young (1974), Daly (2006): the first-order optimum sqrt(2 C M), C the time a checkpoint
    // costs the job, M its mean time to interruption.
    const double rate = gang_failure_rate(config, shape);
    cp.interval =
        rate > 0.0 ? std::sqrt(2.0 * cp.stall / rate) : std::numeric_limits<double>::infinity();
    cp.interval = std::max(cp.interval, 1.0);
  }
  return cp;
}

AttemptTimes attempt_times(double seconds, const CheckpointTimes& cp) {
  AttemptTimes a;
  if (!std::isfinite(cp.interval)) {
    a.compute = seconds;
    return a;
  }
  const double cycle = cp.interval + cp.stall;
  const double full = std::floor(seconds / cycle);
  const double into = seconds - full * cycle;
  a.compute = full * cp.interval + std::min(into, cp.interval);
  a.stall = full * cp.stall + std::max(0.0, into - cp.interval);
  const double committed = seconds >= cp.persist ? std::floor((seconds - cp.persist) / cycle) : 0;
  a.kept = committed * cp.interval;
  return a;
}

GangDrawSource random_gang_draws(const GangFailuresConfig& config, const GangShape& shape,
                                 RandomStream& rng) {
  std::vector<double> rates;  // per second: planned first, then each component
  std::vector<int> picks;     // the devices the failed one is drawn among: nodes, or leaves
  const int nodes = std::max(shape.nodes, 1);
  rates.push_back(planned_rate(config, shape));
  picks.push_back(nodes);
  for (const auto& c : config.components) {
    rates.push_back(c.rate_per_hour * devices(c, shape) / 3600.0);
    picks.push_back(c.per == FailureComponent::Per::kLeaf
                        ? std::max(static_cast<int>(gang_leaves(shape).size()), 1)
                        : nodes);
  }
  double total = 0.0;
  for (const double r : rates) {
    total += r;
  }
  return [rates, picks, total, &rng]() -> std::optional<GangDraw> {
    if (total <= 0.0) {
      return std::nullopt;
    }
    GangDraw d;
    d.wait = rng.exponential(total);
    double u = rng.uniform01() * total;
    std::size_t i = 0;
    while (i + 1 < rates.size() && u >= rates[i]) {
      u -= rates[i++];
    }
    d.component = static_cast<int>(i) - 1;
    d.node = static_cast<int>(rng.uniform_int(static_cast<std::uint64_t>(picks[i])));
    return d;
  };
}

namespace {

// Adds up to `seconds` of wall time to `bucket`, no further than the window's end.
void spend(double& t, double window, double seconds, double& bucket) {
  const double s = std::min(seconds, std::max(0.0, window - t));
  bucket += s;
  t += s;
}

}  // namespace

GangLife simulate_gang_life(const GangFailuresConfig& config, const GangShape& shape, double window,
                            const GangDrawSource& draws) {
  GangLife life;
  life.wall = window;
  life.by_component.assign(config.components.size(), 0);
  life.checkpoint_cycle = checkpoint_times(config, shape);
  const CheckpointTimes& cp = life.checkpoint_cycle;
  const double loading = loading_seconds(config, shape.checkpoint_bytes);  // read it back
  Pools pools(shape);
  double t = 0.0;
  while (t < window) {
    const std::optional<GangDraw> d = draws();
    const double ran = d ? std::min(d->wait, window - t) : window - t;
    const AttemptTimes a = attempt_times(ran, cp);
    life.running += ran;
    life.checkpoint += a.stall;
    t += ran;
    if (!d || t >= window) {
      life.productive += a.compute;  // the window ends: the work goes on
      break;
    }
    pools.release(t);
    GangInterruption rec{t, d->component, 0.0, 0.0, 0.0};
    if (d->component < 0) {
      // Planned: a checkpoint is taken first, nothing is lost; the downtime includes the reload.
      ++life.planned;
      life.productive += a.compute;
      spend(t, window, to_seconds(config.planned_downtime) + loading, life.planned_downtime);
      life.interruptions.push_back(rec);
      continue;
    }
    const FailureComponent& c = config.components[static_cast<std::size_t>(d->component)];
    ++life.by_component[static_cast<std::size_t>(d->component)];
    life.productive += a.kept;
    life.lost_work += a.compute - a.kept;
    rec.lost_work = a.compute - a.kept;
    spend(t, window, to_seconds(config.detection), life.detection);
    const double recovery =
        recover(config, shape, c, lost_nodes(c, shape, d->node), rec.at, t, pools);
    spend(t, window, recovery + loading, life.restart);
    rec.detection = to_seconds(config.detection);
    rec.restart = recovery + loading;
    life.interruptions.push_back(rec);
  }
  return life;
}

}  // namespace tidesim
