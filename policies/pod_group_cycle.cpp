#include "tidesim/policies/pod_group_cycle.hpp"

#include <algorithm>
#include <limits>

namespace tidesim::policies {
namespace {

// Whether `nodes` (in index order) holds every node of `required` (the generator's
// requiredDomain: the placement of the group's bound pods).
bool holds_all(const std::vector<int>& nodes, std::span<const int> required) {
  return std::all_of(required.begin(), required.end(),
                     [&](int n) { return std::binary_search(nodes.begin(), nodes.end(), n); });
}

}  // namespace

PodGroupCycle::Evaluation PodGroupCycle::evaluate(const std::vector<PodPtr>& pods,
                                                  const PodGroupStatus& group,
                                                  const std::vector<int>* placement,
                                                  TimePoint now) {
  Evaluation e;
  e.nodes.assign(pods.size(), -1);
  e.cards.resize(pods.size());
  e.stages.assign(pods.size(), 0);
  PodGroupStatus status = group;
  status.placement = placement;
  std::vector<PodPtr> reserved;
  for (std::size_t i = 0; i < pods.size(); ++i) {
    const PodSpec& pod = *pods[i];
    status.assigned = group.assigned + e.placed;
    ScheduleResult r = scheduler_.schedule_one(pod, cluster_, metrics_, now, &status);
    e.latency += r.latency;
    e.stages[i] = r.fallback_stage;
    if (!r.node || !target_.reserve(pod, *r.node, r.cards)) {
      e.rejectors |= r.rejectors;
      continue;  // podGroupSchedulingDefaultAlgorithm: the group may still be feasible
    }
    // RunPermitPluginsWithoutWaiting: Wait keeps the pod placed, Success makes the group feasible.
    Duration timeout{};
    const Status p = scheduler_.permit(pod, *r.node, cluster_, &status, now, timeout);
    if (!p.ok() && p.code != Code::kWait) {
      target_.unreserve(pod);
      continue;
    }
    reserved.push_back(pods[i]);
    e.nodes[i] = *r.node;
    e.cards[i] = std::move(r.cards);
    ++e.placed;
    e.feasible = e.feasible || p.ok();
  }
  // Every assumption is reverted: the outcome is applied only after all placements are tried.
  for (auto it = reserved.rbegin(); it != reserved.rend(); ++it) {
    target_.unreserve(**it);
  }
  return e;
}

std::optional<std::size_t> PodGroupCycle::best(const std::vector<Placement>& placements,
                                               const std::vector<Evaluation>& runs,
                                               const std::vector<PodPtr>& pods,
                                               const PodGroupStatus& group) {
  std::int64_t best_total = 0;
  for (const auto& e : runs) {
    if (e.feasible) {
      best_total = std::max<std::int64_t>(best_total, group.assigned + e.placed);
    }
  }
  const PlacementPlugin* scorer = scheduler_.plugins().placement();
  std::optional<std::size_t> chosen;
  std::int64_t best_score = std::numeric_limits<std::int64_t>::min();
  for (std::size_t k = 0; k < runs.size(); ++k) {
    if (!runs[k].feasible) {
      continue;
    }
    std::vector<PodPtr> proposed;
    for (std::size_t i = 0; i < pods.size(); ++i) {
      if (runs[k].nodes[i] >= 0) {
        proposed.push_back(pods[i]);
      }
    }
    const std::int64_t s = scorer->score(cluster_, placements[k], proposed, group,
                                         group.assigned + runs[k].placed, best_total);
    if (s > best_score) {
      best_score = s;
      chosen = k;
    }
  }
  return chosen;
}

PodGroupCycleOutcome PodGroupCycle::run(const std::vector<PodPtr>& pods,
                                        const PodGroupStatus& group,
                                        std::span<const int> bound_nodes, TimePoint now) {
  const PlacementPlugin* generator = scheduler_.plugins().placement();
  std::optional<std::vector<Placement>> placements;
  if (generator != nullptr) {
    placements = generator->generate(cluster_, group);
  }
  std::vector<Evaluation> runs;
  std::optional<std::size_t> chosen;
  PodGroupCycleOutcome out;
  if (placements) {
    std::erase_if(*placements,
                  [&](const Placement& p) { return !holds_all(p.nodes, bound_nodes); });
    for (const auto& p : *placements) {
      runs.push_back(evaluate(pods, group, &p.nodes, now));
    }
    chosen = best(*placements, runs, pods, group);
    out.placements = static_cast<int>(placements->size());
  } else {
    runs.push_back(evaluate(pods, group, nullptr, now));
    chosen = runs.front().feasible ? std::optional<std::size_t>(0) : std::nullopt;
  }
  for (const auto& e : runs) {
    out.evaluations += static_cast<int>(pods.size());
    out.latency += e.latency;
  }
  if (runs.empty()) {  // no placement: every pod goes back unschedulable
    out.nodes.assign(pods.size(), -1);
    out.stages.assign(pods.size(), 0);
    return out;
  }
  const Evaluation& shown = runs[chosen.value_or(0)];
  out.feasible = chosen.has_value();
  out.stages = shown.stages;
  out.rejectors = shown.rejectors;
  out.nodes.assign(pods.size(), -1);
  if (!out.feasible) {
    return out;
  }
  out.placement = placements ? (*placements)[*chosen].name : "";
  for (std::size_t i = 0; i < pods.size(); ++i) {
    if (shown.nodes[i] >= 0 && target_.reserve(*pods[i], shown.nodes[i], shown.cards[i])) {
      out.nodes[i] = shown.nodes[i];
    }
  }
  return out;
}

}  // namespace tidesim::policies
