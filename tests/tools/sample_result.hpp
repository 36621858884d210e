#pragma once
// A small hand-built result for the output tests: two policies x three seeds on two 2-GPU nodes,
// produced by emitting signals into app::Recorder, so the whole path from signals to outputs is
// exercised.
#include <cstdint>
#include <string>

#include "tidesim/tools/lib/result.hpp"

namespace tidesim::test {

/// The run of `policy` ("default-k8s" skews load onto node n1 and has an OOM kill;
/// "load-aware" balances) with `seed` (1, 2, 3 shift waits by 10 s per seed).
app::SeedRun sample_run(const std::string& policy, std::uint64_t seed, bool series = true);

/// Both policies over seeds 1, 2, 3, with metadata and the seed's reference.
app::RunResult sample_result();

/// A fresh, empty directory for one test's files.
std::string temp_dir(const std::string& name);

}  // namespace tidesim::test
