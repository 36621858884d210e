#include "tidesim/sim/model/descheduler.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <set>

namespace tidesim {
namespace {

// The node has capacity of every resource `t` names (a node without GPUs has no share of them:
// it is neither a source nor a destination).
bool has_capacity(const NodeUsage& n, const Thresholds& t) {
  return std::all_of(t.begin(), t.end(), [&](const auto& kv) {
    const auto it = n.capacity.find(kv.first);
    return it != n.capacity.end() && it->second > 0.0;
  });
}

bool at_or_under(const NodeUsage& n, const Thresholds& t) {
  return std::all_of(t.begin(), t.end(),
                     [&](const auto& kv) { return usage_share(n, kv.first) <= kv.second; });
}

bool over(const NodeUsage& n, const Thresholds& t) {
  return std::any_of(t.begin(), t.end(),
                     [&](const auto& kv) { return usage_share(n, kv.first) > kv.second; });
}

double summed_share(const NodeUsage& n, const Thresholds& t) {
  double s = 0.0;
  for (const auto& [r, v] : t) {
    s += usage_share(n, r);
  }
  return s;
}

double get(const std::map<std::string, double>& m, const std::string& k) {
  const auto it = m.find(k);
  return it == m.end() ? 0.0 : it->second;
}

// Candidates on node `n`, in eviction order: priority ascending, then (by_usage) usage share
// descending, then bind order.
std::vector<const EvictionCandidate*> on_node(const std::vector<EvictionCandidate>& candidates,
                                              int n, const NodeUsage& node, const Thresholds& t,
                                              bool by_usage) {
  std::vector<const EvictionCandidate*> out;
  for (const auto& c : candidates) {
    if (c.node == n) {
      out.push_back(&c);
    }
  }
  auto share = [&](const EvictionCandidate* c) {
    double s = 0.0;
    for (const auto& [r, v] : t) {
      const double cap = get(node.capacity, r);
      s += cap > 0.0 ? get(c->usage, r) / cap : 0.0;
    }
    return s;
  };
  std::stable_sort(out.begin(), out.end(), [&](const auto* a, const auto* b) {
    if (a->priority != b->priority) {
      return a->priority < b->priority;
    }
    if (by_usage) {
      const double sa = share(a);
      const double sb = share(b);
      if (sa != sb) {
        return sa > sb;
      }
    }
    return a->order < b->order;
  });
  return out;
}

// Indices of `nodes` in increasing (or decreasing) order of their summed shares, ties by index.
std::vector<int> sorted_by_share(const std::vector<NodeUsage>& nodes, std::vector<int> which,
                                 const Thresholds& t, bool descending) {
  std::stable_sort(which.begin(), which.end(), [&](int a, int b) {
    const double sa = summed_share(nodes[static_cast<std::size_t>(a)], t);
    const double sb = summed_share(nodes[static_cast<std::size_t>(b)], t);
    return descending ? sa > sb : sa < sb;
  });
  return which;
}

double population_stddev(const std::vector<double>& v) {
  const double n = static_cast<double>(v.size());
  const double mean = std::accumulate(v.begin(), v.end(), 0.0) / n;
  double ss = 0.0;
  for (const double x : v) {
    ss += (x - mean) * (x - mean);
  }
  return std::sqrt(ss / n);
}

// Evicts the candidates `order` of node `n` in turn, skipping jobs already taken and those the
// budget refuses, until `stop()` holds, no resource has room left, or the budget is spent. Each
// eviction takes its usage off `room` and, when `node` is given, off that node's usage (the
// resources of `room`). The one loop of LowNodeUtilization and HighNodeUtilization.
void evict_in_order(int n, const std::vector<const EvictionCandidate*>& order,
                    std::map<std::string, double>& room, EvictionBudget& budget,
                    std::set<int>& taken, std::vector<int>& evicted, NodeUsage* node,
                    const std::function<bool()>& stop) {
  for (const EvictionCandidate* c : order) {
    const bool room_left =
        std::all_of(room.begin(), room.end(), [](const auto& kv) { return kv.second > 0.0; });
    if (stop() || !room_left || budget.exhausted()) {
      break;
    }
    if (taken.contains(c->job) || !budget.allows(n, c->pods)) {
      continue;
    }
    taken.insert(c->job);
    budget.take(n, c->pods);
    evicted.push_back(c->job);
    for (auto& [r, v] : room) {
      v -= get(c->usage, r);
      if (node != nullptr) {
        node->usage[r] -= get(c->usage, r);
      }
    }
  }
}

// The nodes a plan weighs: those known and with capacity of every resource `t` names (`eligible`
// counts them), sorted into `first` where `is_first(node, n)` holds and else into `second` where
// `is_second(node, n)` holds.
struct NodeSplit {
  std::vector<int> first;
  std::vector<int> second;
  int eligible = 0;

  // The plan has something to do: `first` holds more than `number_of_nodes` nodes, yet not every
  // eligible one.
  bool worth_planning(int number_of_nodes) const {
    const auto count = static_cast<int>(first.size());
    return !first.empty() && count > number_of_nodes && count != eligible;
  }
};

template <class IsFirst, class IsSecond>
NodeSplit split_nodes(const std::vector<NodeUsage>& nodes, const Thresholds& t, IsFirst is_first,
                      IsSecond is_second) {
  NodeSplit split;
  for (int n = 0; n < static_cast<int>(nodes.size()); ++n) {
    const NodeUsage& node = nodes[static_cast<std::size_t>(n)];
    if (!node.known || !has_capacity(node, t)) {
      continue;
    }
    ++split.eligible;
    if (is_first(node, n)) {
      split.first.push_back(n);
    } else if (is_second(node, n)) {
      split.second.push_back(n);
    }
  }
  return split;
}

// Room on the destination nodes `which`, in each resource's units, for each resource `t` names:
// up to its threshold when `up_to_threshold`, else up to the capacity.
std::map<std::string, double> room_on(const std::vector<NodeUsage>& nodes,
                                      const std::vector<int>& which, const Thresholds& t,
                                      bool up_to_threshold) {
  std::map<std::string, double> room;
  for (const auto& [r, share] : t) {
    const double limit = up_to_threshold ? share : 1.0;
    for (const int n : which) {
      const NodeUsage& node = nodes[static_cast<std::size_t>(n)];
      room[r] += limit * get(node.capacity, r) - get(node.usage, r);
    }
  }
  return room;
}

}  // namespace

bool EvictionBudget::allows(int node, int pods) const {
  if (per_cycle_ > 0 && total_ + pods > per_cycle_) {
    return false;
  }
  if (per_node_ > 0) {
    const auto it = by_node_.find(node);
    const int used = it == by_node_.end() ? 0 : it->second;
    if (used + pods > per_node_) {
      return false;
    }
  }
  return true;
}

void EvictionBudget::take(int node, int pods) {
  total_ += pods;
  by_node_[node] += pods;
}

double usage_share(const NodeUsage& n, const std::string& r) {
  const double cap = get(n.capacity, r);
  return cap > 0.0 ? get(n.usage, r) / cap : 0.0;
}

std::vector<int> plan_low_node(const std::vector<NodeUsage>& in,
                               const std::vector<EvictionCandidate>& candidates,
                               const Thresholds& low, const Thresholds& high, int number_of_nodes,
                               bool by_usage, EvictionBudget& budget,
                               const std::vector<bool>& overutilized) {
  std::vector<NodeUsage> nodes = in;
  // Underutilized (schedulable, at or under `low`) first; overutilized (over `high`) second.
  const NodeSplit split = split_nodes(
      nodes, high,
      [&](const NodeUsage& node, int) { return node.schedulable && at_or_under(node, low); },
      [&](const NodeUsage& node, int n) {
        return over(node, high) &&
               (overutilized.empty() || overutilized[static_cast<std::size_t>(n)]);
      });
  std::vector<int> evicted;
  if (!split.worth_planning(number_of_nodes) || split.second.empty()) {
    return evicted;
  }
  std::map<std::string, double> room = room_on(nodes, split.first, high, true);
  std::set<int> taken;
  for (const int h : sorted_by_share(nodes, split.second, high, true)) {
    NodeUsage& node = nodes[static_cast<std::size_t>(h)];
    evict_in_order(h, on_node(candidates, h, node, high, by_usage), room, budget, taken, evicted,
                   &node, [&] { return !over(node, high); });
  }
  return evicted;
}

std::vector<int> plan_high_node(const std::vector<NodeUsage>& nodes,
                                const std::vector<EvictionCandidate>& candidates,
                                const Thresholds& low, int number_of_nodes,
                                EvictionBudget& budget) {
  // Sources (at or under `low`) first; the other schedulable nodes, their destinations, second.
  const NodeSplit split = split_nodes(
      nodes, low, [&](const NodeUsage& node, int) { return at_or_under(node, low); },
      [](const NodeUsage& node, int) { return node.schedulable; });
  std::vector<int> evicted;
  if (!split.worth_planning(number_of_nodes)) {
    return evicted;
  }
  std::map<std::string, double> room = room_on(nodes, split.second, low, false);
  std::set<int> taken;
  for (const int s : sorted_by_share(nodes, split.first, low, false)) {
    evict_in_order(s, on_node(candidates, s, nodes[static_cast<std::size_t>(s)], low, false), room,
                   budget, taken, evicted, nullptr, [] { return false; });
  }
  return evicted;
}

std::optional<double> gpu_memory_stddev(const std::vector<NodeUsage>& nodes) {
  std::vector<double> shares;
  for (const auto& n : nodes) {
    if (n.known && get(n.capacity, "gpu_memory") > 0.0) {
      shares.push_back(usage_share(n, "gpu_memory"));
    }
  }
  if (shares.empty()) {
    return std::nullopt;
  }
  return population_stddev(shares);
}

std::vector<int> plan_lscs(std::vector<NodeUsage> nodes,
                           const std::vector<EvictionCandidate>& candidates, double limit,
                           EvictionBudget& budget) {
  const std::string r = "gpu_memory";
  std::vector<int> known;
  for (int n = 0; n < static_cast<int>(nodes.size()); ++n) {
    const NodeUsage& node = nodes[static_cast<std::size_t>(n)];
    if (node.known && get(node.capacity, r) > 0.0) {
      known.push_back(n);
    }
  }
  std::vector<int> evicted;
  if (known.size() < 2) {
    return evicted;
  }
  std::set<int> taken;
  auto shares = [&] {
    std::vector<double> v;
    for (const int n : known) {
      v.push_back(usage_share(nodes[static_cast<std::size_t>(n)], r));
    }
    return v;
  };
  while (!budget.exhausted()) {
    std::vector<double> u = shares();
    const double now = population_stddev(u);
    if (now <= limit) {
      break;
    }
    // Hottest known node; coolest known schedulable node (ties: the lower index).
    int h = -1;
    int l = -1;
    for (std::size_t k = 0; k < known.size(); ++k) {
      if (h < 0 || u[k] > u[static_cast<std::size_t>(h)]) {
        h = static_cast<int>(k);
      }
      if (nodes[static_cast<std::size_t>(known[k])].schedulable &&
          (l < 0 || u[k] < u[static_cast<std::size_t>(l)])) {
        l = static_cast<int>(k);
      }
    }
    if (l < 0 || h == l) {
      break;
    }
    const int hn = known[static_cast<std::size_t>(h)];
    const int ln = known[static_cast<std::size_t>(l)];
    const double cap_h = get(nodes[static_cast<std::size_t>(hn)].capacity, r);
    const double cap_l = get(nodes[static_cast<std::size_t>(ln)].capacity, r);
    const EvictionCandidate* best = nullptr;
    double best_sd = now;
    for (const EvictionCandidate* c :
         on_node(candidates, hn, nodes[static_cast<std::size_t>(hn)], {{r, 1.0}}, false)) {
      if (taken.contains(c->job) || !budget.allows(hn, c->pods)) {
        continue;
      }
      const double x = get(c->usage, r);
      std::vector<double> v = u;
      v[static_cast<std::size_t>(h)] -= x / cap_h;
      v[static_cast<std::size_t>(l)] += x / cap_l;
      const double sd = population_stddev(v);
      if (sd < best_sd) {  // strict: on ties the earlier candidate (priority, bind order) stays
        best_sd = sd;
        best = c;
      }
    }
    if (best == nullptr) {
      break;
    }
    const double x = get(best->usage, r);
    nodes[static_cast<std::size_t>(hn)].usage[r] -= x;
    nodes[static_cast<std::size_t>(ln)].usage[r] += x;  // the same amount, now on l
    taken.insert(best->job);
    budget.take(hn, best->pods);
    evicted.push_back(best->job);
  }
  return evicted;
}

// ---- the run's descheduler ----

Descheduler::Descheduler(RunContext& run, JobController& controller,
                         const DeschedulerConfig& config, const MetricsSource* metrics)
    : run_(run),
      controller_(controller),
      config_(config),
      metrics_(metrics),
      abnormal_(run.cluster.nodes().size(), 0) {}

void Descheduler::start() {
  run_.sim.schedule_in(config_.interval, [this] { cycle(); });
}

std::vector<NodeUsage> Descheduler::requested() const {
  std::vector<NodeUsage> out;
  for (const NodeInfo& info : run_.cluster.view().nodes) {
    NodeUsage u;
    const Resources& a = info.node.allocatable;
    u.capacity = {{"cpu", static_cast<double>(a.cpu_milli)},
                  {"memory", static_cast<double>(a.memory_bytes)},
                  {"gpu", static_cast<double>(a.gpus)}};
    u.usage = {{"cpu", static_cast<double>(info.requested.cpu_milli)},
               {"memory", static_cast<double>(info.requested.memory_bytes)},
               {"gpu", static_cast<double>(info.requested.gpus)}};
    u.schedulable = !info.node.unschedulable;
    out.push_back(std::move(u));
  }
  return out;
}

std::vector<NodeUsage> Descheduler::measured(
    std::vector<std::vector<std::pair<double, double>>>& cards) {
  std::vector<NodeUsage> out;
  cards.assign(run_.cluster.nodes().size(), {});
  const auto& view = run_.cluster.view().nodes;
  for (std::size_t n = 0; n < run_.cluster.nodes().size(); ++n) {
    NodeUsage u;
    u.schedulable = !view[n].node.unschedulable;
    const MetricsAnswer a = metrics_->query(run_.cluster.nodes()[n].name, run_.sim.now());
    u.known = a.metrics.has_value();
    if (u.known) {
      const NodeMetrics& m = *a.metrics;
      const std::size_t k = m.gpu_memory_utilization.size();
      for (std::size_t c = 0; c < k; ++c) {
        const double util = c < m.gpu_utilization.size() ? m.gpu_utilization[c] : 0.0;
        cards[n].emplace_back(m.gpu_memory_utilization[c], util);
        u.usage["gpu_memory"] += m.gpu_memory_utilization[c];
        u.usage["gpu_utilization"] += util;
      }
      u.capacity = {{"gpu_memory", static_cast<double>(k)},
                    {"gpu_utilization", static_cast<double>(k)}};
    }
    out.push_back(std::move(u));
  }
  return out;
}

namespace {

// Jobs that may be migrated (running) with their pods on each node, in bind order: node ->
// (job -> (first bind position, pods)).
std::vector<std::map<int, std::pair<int, int>>> running_pods(const RunContext& run) {
  std::vector<std::map<int, std::pair<int, int>>> out(run.cluster.nodes().size());
  const auto& view = run.cluster.view().nodes;
  for (std::size_t n = 0; n < view.size(); ++n) {
    for (std::size_t k = 0; k < view[n].pods.size(); ++k) {
      const auto it = run.pod_by_spec.find(view[n].pods[k].get());
      if (it == run.pod_by_spec.end()) {
        continue;
      }
      const Pod& pod = run.pods[static_cast<std::size_t>(it->second)];
      if (!pod.alive || run.jobs[static_cast<std::size_t>(pod.job)].phase != JobPhase::kRunning) {
        continue;
      }
      auto [slot, fresh] = out[n].try_emplace(pod.job, static_cast<int>(k), 0);
      ++slot->second.second;
    }
  }
  return out;
}

// Job `j` as a candidate on node `n`, where `where` (first bind position, pods) of running_pods()
// places it; its usage is left to the caller.
EvictionCandidate candidate_without_usage(const RunContext& run, int j, std::size_t n,
                                          std::pair<int, int> where) {
  EvictionCandidate c;
  c.job = j;
  c.node = static_cast<int>(n);
  c.pods = where.second;
  c.priority = run.jobs[static_cast<std::size_t>(j)].spec->pod_template.priority;
  c.order = where.first;
  return c;
}

}  // namespace

std::vector<EvictionCandidate> Descheduler::requested_candidates() const {
  std::vector<EvictionCandidate> out;
  const auto by_node = running_pods(run_);
  for (std::size_t n = 0; n < by_node.size(); ++n) {
    for (const auto& [j, where] : by_node[n]) {
      EvictionCandidate c = candidate_without_usage(run_, j, n, where);
      const Resources& r = run_.jobs[static_cast<std::size_t>(j)].spec->pod_template.requests;
      c.usage = {{"cpu", static_cast<double>(r.cpu_milli) * where.second},
                 {"memory", static_cast<double>(r.memory_bytes) * where.second},
                 {"gpu", static_cast<double>(r.gpus) * where.second}};
      out.push_back(std::move(c));
    }
  }
  return out;
}

std::vector<EvictionCandidate> Descheduler::measured_candidates(
    const std::vector<std::vector<std::pair<double, double>>>& cards) const {
  std::vector<EvictionCandidate> out;
  const auto by_node = running_pods(run_);
  for (std::size_t n = 0; n < by_node.size(); ++n) {
    if (by_node[n].empty()) {
      continue;
    }
    // Device-plugin units on each card of the node, over its live bound pods: a card's measured
    // load is split among them equally (assumption: the agent reports cards, not processes).
    std::map<int, int> units;
    for (const Pod& pod : run_.pods) {
      if (pod.alive && pod.node == static_cast<int>(n)) {
        for (const int c : pod.cards) {
          ++units[c];
        }
      }
    }
    for (const auto& [j, where] : by_node[n]) {
      EvictionCandidate c = candidate_without_usage(run_, j, n, where);
      for (const int p : run_.jobs[static_cast<std::size_t>(j)].pods) {
        const Pod& pod = run_.pods[static_cast<std::size_t>(p)];
        if (pod.node != static_cast<int>(n)) {
          continue;
        }
        for (const int card : pod.cards) {
          if (card < 0 || static_cast<std::size_t>(card) >= cards[n].size()) {
            continue;
          }
          const double share = 1.0 / units[card];
          c.usage["gpu_memory"] += share * cards[n][static_cast<std::size_t>(card)].first;
          c.usage["gpu_utilization"] += share * cards[n][static_cast<std::size_t>(card)].second;
        }
      }
      out.push_back(std::move(c));
    }
  }
  return out;
}

void Descheduler::migrate(const std::vector<int>& jobs) {
  for (const int j : jobs) {
    controller_.interrupt(j, InterruptCause::kMigration, config_.restore_time);
  }
}

void Descheduler::cycle() {
  EvictionBudget budget(config_.max_pods_per_node, config_.max_pods_per_cycle);
  for (const DeschedulerStrategy& s : config_.strategies) {
    if (budget.exhausted()) {
      break;
    }
    switch (s.kind) {
      case DeschedulerStrategy::Kind::kLowNodeUtilization:
        migrate(plan_low_node(requested(), requested_candidates(), s.low, s.high, s.number_of_nodes,
                              false, budget));
        break;
      case DeschedulerStrategy::Kind::kHighNodeUtilization:
        migrate(
            plan_high_node(requested(), requested_candidates(), s.low, s.number_of_nodes, budget));
        break;
      case DeschedulerStrategy::Kind::kLowNodeLoad: {
        std::vector<std::vector<std::pair<double, double>>> cards;
        const std::vector<NodeUsage> nodes = measured(cards);
        std::vector<bool> abnormal(nodes.size(), false);
        for (std::size_t n = 0; n < nodes.size(); ++n) {
          int& count = abnormal_[n];
          count = nodes[n].known && over(nodes[n], s.high) ? count + 1 : 0;
          abnormal[n] = count >= s.consecutive_abnormalities;
        }
        const std::vector<int> jobs =
            plan_low_node(nodes, measured_candidates(cards), s.low, s.high, s.number_of_nodes, true,
                          budget, abnormal);
        // A node relieved starts counting its abnormality again (Koordinator resets it).
        for (const int j : jobs) {
          for (const int p : run_.jobs[static_cast<std::size_t>(j)].pods) {
            const int n = run_.pods[static_cast<std::size_t>(p)].node;
            if (n >= 0) {
              abnormal_[static_cast<std::size_t>(n)] = 0;
            }
          }
        }
        migrate(jobs);
        break;
      }
      case DeschedulerStrategy::Kind::kLscs: {
        std::vector<std::vector<std::pair<double, double>>> cards;
        const std::vector<NodeUsage> nodes = measured(cards);
        const TimePoint now = run_.sim.now();
        if (const auto sd = gpu_memory_stddev(nodes)) {
          lscs_window_.emplace_back(now, *sd);
        }
        while (!lscs_window_.empty() && lscs_window_.front().first <= now - s.window) {
          lscs_window_.pop_front();
        }
        double sum = 0.0;
        for (const auto& [t, v] : lscs_window_) {
          sum += v;
        }
        const bool above =
            !lscs_window_.empty() && sum / static_cast<double>(lscs_window_.size()) > s.limit;
        if (!above) {
          lscs_above_since_.reset();
          break;
        }
        if (!lscs_above_since_) {
          lscs_above_since_ = now;
        }
        if (now - *lscs_above_since_ < s.sustained) {
          break;
        }
        const std::vector<int> jobs = plan_lscs(nodes, measured_candidates(cards), s.limit, budget);
        if (!jobs.empty()) {
          // The window still holds readings from before the moves: wait another sustained
          // stretch over the limit before acting again.
          lscs_above_since_.reset();
          lscs_window_.clear();
        }
        migrate(jobs);
        break;
      }
    }
  }
  run_.sim.schedule_in(config_.interval, [this] { cycle(); });
}

}  // namespace tidesim
