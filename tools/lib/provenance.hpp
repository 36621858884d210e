#pragma once
/// Provenance of a result: what produced it, so that it can be reproduced and compared. Recorded
/// in the result's metadata as "provenance" (docs/outputs.md): the tidesim version and commit,
/// the command that reproduces it, the SHA-256 of the scenario and of every file it reads
/// (topologies, node lists, manifests, traces, scheduler configs), each policy's definition, the
/// scenario overrides (`--set`) and the seeds. Nothing in it depends on the machine, the time or
/// the parallelism, so reruns give byte-identical results.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tidesim/sim/input/sha256.hpp"
#include "tidesim/sim/scenario/scenario.hpp"

namespace tidesim::app {

/// The SHA-256 (as sha256_hex) of the file at `path`, read as tidesim reads inputs.
std::string file_sha256(const std::string& path);

/// A policy as it was run: its label, the scheduler it names (a built-in name or a file) and, for
/// a file, the hash of the text loaded (policies::LoadedProfile::sha256).
struct PolicyDefinition {
  std::string name;
  std::string scheduler;
  /// Empty for a built-in policy.
  std::string sha256;
};

/// One file a scenario reads, with the key that names it.
struct InputFile {
  /// The scenario key, e.g. "workload.jobs[0].manifest" or "cluster.node_groups[1].topology".
  std::string key;
  /// The path as resolved (relative to the working directory when the scenario's was).
  std::string path;
  std::string sha256;
};

/// Every file scenario `s` reads (policies' scheduler configs included), in key order; a file
/// named by several keys is listed under each.
std::vector<InputFile> scenario_inputs(const Scenario& s);

/// What make_provenance records.
struct ProvenanceInput {
  /// The command that reproduces the result, e.g. "tidesim run s.yaml --seed 1".
  std::string command;
  /// The scenario overrides applied, "KEY=VALUE", in order.
  std::vector<std::string> overrides;
};

/// The provenance object of a run of `s` with `policies` and `seeds` (JSON, schema in
/// docs/outputs.md).
nlohmann::json make_provenance(const Scenario& s, const std::vector<PolicyConfig>& policies,
                               const std::vector<std::uint64_t>& seeds,
                               const ProvenanceInput& input);

/// `args` as one shell command line: each argument quoted with '...' when it holds anything but
/// letters, digits and -_./=:,+@%[]
std::string shell_command(const std::vector<std::string>& args);

}  // namespace tidesim::app
