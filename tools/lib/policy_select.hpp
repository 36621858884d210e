#pragma once
/// The policies a run compares, chosen on the command line (`--policy`, repeatable):
///   NAME                a policy the scenario lists, a built-in policy, or a
///                       KubeSchedulerConfiguration file (labelled by its file name, less the
///                       extension);
///   NAME=DEFINITION     the same DEFINITION (a scenario policy's name, a built-in, or a file)
///                       under the label NAME.
/// Two policies with one label are an error: their runs would be pooled into one column.
#include <string>
#include <vector>

#include "tidesim/sim/scenario/scenario.hpp"

namespace tidesim::app {

/// The policies `specs` choose from scenario `s` (all of the scenario's when `specs` is empty); a
/// built-in or a file not among the scenario's is loaded here, once (policies::load_profile), with
/// the registry the scenario was loaded with (Scenario::registry).
/// Throws InputError (field `--policy`) for an empty name or definition, for a definition that is
/// neither a scenario policy, a built-in scheduler nor a file (naming the closest name when one is
/// within two edits: "did you mean 'load-aware'?"), or for a label given twice, naming both specs.
std::vector<PolicyConfig> select_policies(const Scenario& s, const std::vector<std::string>& specs);

}  // namespace tidesim::app
