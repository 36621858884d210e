#pragma once
/// Plays the scenario's `faults.gang` section in a run: each job that starts is a synchronous
/// gang whose life under failures by component (sim/model/gang_life.hpp) is drawn over the time
/// it holds its placement, from its start to its end (success, failure, eviction, OOM kill) or
/// the run's end, from its own random stream ("faults/gang/<job>/<attempt>"); the life is
/// emitted as a GangLifeRecord (RunSignals::gang_life). The gang's shape comes from where it
/// runs: its GPUs, its nodes, their racks (the fabric's first tier; one rack without a fabric),
/// the idle nodes per rack and the hot spares among the idle nodes. The cluster model keeps the
/// job placed and running (its restarts reuse the placement or a spare): the life accounts for
/// the time, it does not delay the job's end in the run (docs/failures.md, "Gangs").
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>

#include "tidesim/sim/model/gang_life.hpp"
#include "tidesim/sim/model/run_context.hpp"

namespace tidesim {

class GangFailures {
 public:
  GangFailures(RunContext& run, const GangFailuresConfig& config, std::uint64_t seed);
  /// Ends every open life now (the run's end).
  void close_all();

 private:
  void on_job(const JobEvent& e);
  GangShape shape_of(int j, int gpus) const;
  void close(int j);

  struct Open {
    TimePoint start{};
    int attempt = 0;
    GangShape shape;
    std::string job;
  };
  RunContext& run_;
  const GangFailuresConfig& config_;
  std::uint64_t seed_;
  std::unordered_map<std::string, int> index_;
  std::map<int, Open> open_;
};

/// The part for `config`; nullptr when the section is off.
std::unique_ptr<GangFailures> make_gang_failures(RunContext& run, const GangFailuresConfig& config,
                                                 std::uint64_t seed);

}  // namespace tidesim
