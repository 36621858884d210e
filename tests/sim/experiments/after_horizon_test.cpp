// Jobs submitted after run.until: the run ends before they arrive, so no result has them (neither
// run nor censored). They stay out of the run, as arrivals after an observation window do, and
// check_scenario (printed by `tidesim validate`) says how many and which comes first.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/sim/scenario/scenario.hpp"
#include "tidesim/sim/scenario/scenario_override.hpp"

namespace tidesim {
namespace {

// scenarios/teams-quotas.yaml's trace (scenarios/traces/teams-quotas.csv) has 72 rows: steady-00
// to steady-47 every 10 minutes from 0 s, and twelve bursty jobs at 1 h and twelve at 4 h. With
// run.until: 2h, steady-13 (7,800 s) to steady-47 (35 jobs) and the twelve at 4 h come after it:
// 47 of 72; steady-12 at exactly 2 h is submitted.
TEST(AfterHorizon, JobsSubmittedAfterRunUntilAreCountedInAWarning) {
  const Scenario s =
      load_scenario_with("scenarios/teams-quotas.yaml", {parse_override("run.until=2h")});
  const auto warnings = check_scenario(s, make_jobs(s, 1));
  const std::string expected =
      "47 of 72 jobs are submitted after run.until (2h), the first 'steady-13' at 2h10m; the run "
      "ends before they arrive, so no result counts them (raise run.until to include them)";
  EXPECT_NE(std::find(warnings.begin(), warnings.end(), expected), warnings.end())
      << (warnings.empty() ? "(no warning)" : warnings.front());
  // The scenario as shipped (30 days) has every job inside the run.
  const Scenario shipped = load_scenario("scenarios/teams-quotas.yaml");
  for (const auto& w : check_scenario(shipped, make_jobs(shipped, 1))) {
    EXPECT_EQ(w.find("after run.until"), std::string::npos) << w;
  }
}

}  // namespace
}  // namespace tidesim
