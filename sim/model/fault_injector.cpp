#include "tidesim/sim/model/fault_injector.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace tidesim {

FaultInjector::FaultInjector(RunContext& run, JobController& controller, const FaultsConfig& config,
                             std::uint64_t seed, std::function<void(int)> node_back)
    : run_(run),
      controller_(controller),
      config_(config),
      node_back_(std::move(node_back)),
      down_(run.cluster.nodes().size(), 0) {
  for (const auto& node : run.cluster.nodes()) {
    node_rng_.emplace_back(seed, "faults/node/" + node.name);
    repair_rng_.emplace_back(seed, "faults/repair/" + node.name);
    auto& cards = card_rng_.emplace_back();
    const int count = node.gpus ? node.gpus->card_count() : 0;
    for (int c = 0; c < count; ++c) {
      cards.emplace_back(seed, fmt::format("faults/card/{}/{}", node.name, c));
    }
  }
}

void FaultInjector::start() {
  const int nodes = static_cast<int>(down_.size());
  for (int n = 0; n < nodes; ++n) {
    if (config_.node_failures) {
      next_node_failure(n, run_.sim.now());
    }
    if (config_.card_errors) {
      for (int c = 0; c < static_cast<int>(card_rng_[static_cast<std::size_t>(n)].size()); ++c) {
        next_card_error(n, c);
      }
    }
  }
  for (const auto& f : config_.scheduled) {
    run_.sim.schedule_at(f.at, [this, f] {
      switch (f.kind) {
        case ScheduledFault::Kind::kNodeFailure:
          take_down(f.node, f.duration, InterruptCause::kNodeFailure);
          break;
        case ScheduledFault::Kind::kDrain:
          take_down(f.node, f.duration, InterruptCause::kDrain);
          break;
        case ScheduledFault::Kind::kCardError:
          card_error(f.node, f.card);
          break;
      }
    });
  }
}

void FaultInjector::next_node_failure(int n, TimePoint after) {
  const Duration wait =
      draw_time_between_failures(*config_.node_failures, node_rng_[static_cast<std::size_t>(n)]);
  run_.sim.schedule_at(after + wait, [this, n] {
    const Duration repair =
        draw_repair_time(*config_.node_failures, repair_rng_[static_cast<std::size_t>(n)]);
    take_down(n, repair, InterruptCause::kNodeFailure);
    // The next failure counts from the repair.
    next_node_failure(n, run_.sim.now() + repair);
  });
}

void FaultInjector::next_card_error(int n, int card) {
  auto& rng = card_rng_[static_cast<std::size_t>(n)][static_cast<std::size_t>(card)];
  run_.sim.schedule_in(draw_time_between_failures(*config_.card_errors, rng), [this, n, card] {
    card_error(n, card);
    next_card_error(n, card);
  });
}

void FaultInjector::take_down(int n, Duration duration, InterruptCause cause) {
  if (down_[static_cast<std::size_t>(n)]++ == 0) {
    run_.cluster.set_cordoned(n, true);
  }
  interrupt_jobs(n, -1, cause);
  run_.sim.schedule_in(duration, [this, n] { bring_up(n); });
}

void FaultInjector::bring_up(int n) {
  if (--down_[static_cast<std::size_t>(n)] == 0) {
    run_.cluster.set_cordoned(n, false);
    node_back_(n);
  }
}

void FaultInjector::card_error(int n, int card) {
  const ClusterNode& node = run_.cluster.node(n);
  if (!node.gpus || card >= node.gpus->card_count()) {
    return;  // a scheduled error on a card the node lacks: checked at parse time per node
  }
  interrupt_jobs(n, card, InterruptCause::kCardFailure);
}

void FaultInjector::interrupt_jobs(int n, int card, InterruptCause cause) {
  // The bound pods (pod_by_process), not every pod the run has made: a run with frequent faults
  // makes new pods at each restart, and visiting them all made each fault slower than the last.
  // The jobs are taken in index order (a set), so the order of the visit changes nothing.
  std::set<int> jobs;
  for (const auto& [process, p] : run_.pod_by_process) {
    const Pod& pod = run_.pods[static_cast<std::size_t>(p)];
    if (!pod.alive || pod.node != n) {
      continue;
    }
    if (card >= 0 && std::find(pod.cards.begin(), pod.cards.end(), card) == pod.cards.end()) {
      continue;
    }
    jobs.insert(pod.job);
  }
  for (const int j : jobs) {
    controller_.interrupt(j, cause);
  }
}

}  // namespace tidesim
