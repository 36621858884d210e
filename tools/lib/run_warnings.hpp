#pragma once
/// Warnings about a finished run that its headline figures would hide: a policy under which jobs
/// never bound (their waits are in no mean; docs/outputs.md, "Warnings").
#include <string>
#include <vector>

#include "tidesim/tools/lib/result.hpp"

namespace tidesim::app {

/// One warning per policy of `result` under which, in any seed, a job was submitted and never
/// bound (metric `unscheduled_jobs` > 0): how many seeds, and the worst seed's count out of the
/// jobs submitted. Empty when every job bound in every run.
std::vector<std::string> never_bound_warnings(const RunResult& result);

}  // namespace tidesim::app
