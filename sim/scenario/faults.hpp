#pragma once
/// The scenario's `faults:` section and the injector that plays it in a run: random node
/// failures and XID-style card errors (exponential or Weibull times between failures, per node
/// and per card), and scheduled node failures, card errors and planned drains. A failed or
/// drained node is cordoned (unschedulable, and the run refuses binds to it) and every job with a
/// pod on it is interrupted (JobController::interrupt): back to its last checkpoint, new pods
/// scheduled elsewhere. An XID error interrupts the jobs with a pod on that card; the card
/// itself stays in service (assumption: the error clears with the process). Off unless the
/// scenario has the section. Rates, sources and assumptions: docs/failures.md.
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tidesim/sim/engine/random.hpp"
#include "tidesim/sim/engine/time.hpp"
#include "tidesim/sim/input/config_node.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/sim/scenario/gang_failures.hpp"

namespace tidesim {

/// Times between failures of one component.
struct FailureProcess {
  enum class Distribution { kExponential, kWeibull };
  Distribution distribution = Distribution::kExponential;
  /// Mean time between failures.
  Duration mtbf{};
  /// Weibull shape k (the scale is mtbf / Gamma(1 + 1/k)).
  double shape = 1.0;
  /// Down time after a node failure (unused for card errors): the time itself (fixed) or the
  /// mean of the repair distribution.
  Duration repair{};
  /// How repair times are drawn: all equal to `repair`, exponential with that mean, or
  /// lognormal with that mean and log-space std-dev `repair_sigma` (mu = ln repair - sigma^2 / 2).
  enum class Repair { kFixed, kExponential, kLognormal };
  Repair repair_distribution = Repair::kFixed;
  double repair_sigma = 1.0;
};

/// One scheduled fault.
struct ScheduledFault {
  enum class Kind { kNodeFailure, kCardError, kDrain };
  Kind kind = Kind::kNodeFailure;
  int node = 0;  // index into the cluster's nodes
  int card = 0;  // kCardError
  TimePoint at{};
  /// Node down (failure) or cordoned (drain) this long.
  Duration duration{};
  /// Its place in the scenario (for the card check of check_scenario).
  SourceLocation where;
};

struct FaultsConfig {
  bool enabled = false;
  std::optional<FailureProcess> node_failures;
  std::optional<FailureProcess> card_errors;
  std::vector<ScheduledFault> scheduled;
  /// `faults.gang`: synchronous gangs under failures by component (sim/model/gang_life.hpp).
  GangFailuresConfig gang;
};

/// Reads the section (undefined: off). `node_names` are the cluster's nodes in index order.
/// Throws InputError naming the field.
FaultsConfig parse_faults(const ConfigNode& node, const std::string& file,
                          const std::vector<std::string>& node_names);

/// One draw of the time to the next failure.
Duration draw_time_between_failures(const FailureProcess& p, RandomStream& rng);
/// One draw of a node's repair time (no draw for a fixed one), held to [1 s, 100 years].
Duration draw_repair_time(const FailureProcess& p, RandomStream& rng);

}  // namespace tidesim
