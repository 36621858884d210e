#pragma once
/// Warnings about a finished run that its headline figures would hide: a policy under which jobs
/// never bound (their waits are in no mean), a policy that reads NVLink load in a run whose jobs
/// declare no NVLink need (docs/outputs.md, "Warnings").
#include <string>
#include <vector>

#include "tidesim/sim/experiments/offered_load.hpp"
#include "tidesim/sim/scenario/scenario.hpp"
#include "tidesim/tools/lib/result.hpp"

namespace tidesim::app {

/// One warning per policy of `result` under which, in any seed, a job was submitted and never
/// bound (metric `unscheduled_jobs` > 0): how many seeds, and the worst seed's count out of the
/// jobs submitted. Empty when every job bound in every run.
std::vector<std::string> never_bound_warnings(const RunResult& result);

/// One warning naming the policies of `policies` that read load metrics (the load-aware plugins,
/// whose NVLink dimension and score apply to NVLink jobs) when no job of `result` declares an
/// NVLink need (JobRecord::nvlink_required in every run is false): their NVLink rules then see
/// only the pods they guess from the image, and the NVLink metrics measure no job. Empty
/// otherwise.
std::vector<std::string> nvlink_warnings(const std::vector<PolicyConfig>& policies,
                                         const RunResult& result);

/// Every warning above, in that order: what `tidesim run` and tidesim.run() record in
/// metadata.warnings.
std::vector<std::string> run_warnings(const std::vector<PolicyConfig>& policies,
                                      const RunResult& result);

/// Each policy's makespan, the mean over its seeds of `makespan_s`; for a policy with a job
/// unfinished in some seed (no makespan), the mean time its runs stopped, marked unfinished. For
/// the line that compares them with the arrival window (makespan_line,
/// sim/experiments/offered_load.hpp).
std::vector<PolicyMakespan> policy_makespans(const RunResult& result);

}  // namespace tidesim::app
