#pragma once
/// Plays the scenario's `faults:` section in a run (sim/scenario/faults.hpp): draws each node's and
/// each card's times between failures from its own random stream ("faults/node/<node>",
/// "faults/card/<node>/<card>"), so that adding a node shifts no other's draws; cordons failed
/// and drained nodes; interrupts the jobs on them through the Job controller.
#include <functional>
#include <vector>

#include "tidesim/sim/model/job_controller.hpp"
#include "tidesim/sim/model/run_context.hpp"
#include "tidesim/sim/scenario/faults.hpp"

namespace tidesim {

class FaultInjector {
 public:
  /// `node_back` tells the scheduling loop that node `n` came back (it is schedulable again).
  FaultInjector(RunContext& run, JobController& controller, const FaultsConfig& config,
                std::uint64_t seed, std::function<void(int n)> node_back);

  /// Schedules the first random failures and every scheduled fault.
  void start();
  /// Node `n` is failed or drained now: nothing may bind to it.
  bool down(int n) const { return down_[static_cast<std::size_t>(n)] > 0; }
  /// Takes node `n` out of service for `duration` (cordoned; its jobs interrupted with `cause`),
  /// then back (node_back). Outages of one node may overlap: it is back when the last ends.
  void take_down(int n, Duration duration, InterruptCause cause);

 private:
  void bring_up(int n);
  void card_error(int n, int card);
  void next_node_failure(int n, TimePoint after);
  void next_card_error(int n, int card);
  // Interrupts, in job order, every job with a live pod on node n (on `card` when >= 0).
  void interrupt_jobs(int n, int card, InterruptCause cause);

  RunContext& run_;
  JobController& controller_;
  const FaultsConfig& config_;
  std::function<void(int)> node_back_;
  std::vector<int> down_;  // overlapping outages of each node
  std::vector<RandomStream> node_rng_;
  std::vector<RandomStream> repair_rng_;  // "faults/repair/<node>": repair draws shift no failure
  std::vector<std::vector<RandomStream>> card_rng_;
};

}  // namespace tidesim
