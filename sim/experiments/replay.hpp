#pragma once
/// A run replayed with observers (sim/experiments/explain_gang.hpp): what `tidesim explain` reads
/// besides the signals a collector sees, at the instant a signal is emitted.
#include <cstdint>
#include <functional>

#include "tidesim/sim/api/cluster_view.hpp"
#include "tidesim/sim/api/run_signals.hpp"
#include "tidesim/sim/scenario/scenario.hpp"

namespace tidesim {

struct Workload;  // sim/experiments/run.hpp

/// Replays the run of `policy` with `seed` up to `until` (a run stopped just after it, as
/// explain_cycle's), first calling `attach` with the run's signals and the ClusterView its
/// scheduler sees: an observer that reads the view while a signal is emitted sees the cluster at
/// that instant. The run is the run `run_policy` makes (observers only read). Defined in run.cpp.
void replay_observed(const Scenario& scenario, const Workload& workload, const PolicyConfig& policy,
                     std::uint64_t seed, TimePoint until,
                     const std::function<void(RunSignals&, const ClusterView&)>& attach);

}  // namespace tidesim
