// Shockwave's batch changes in a run (docs/gavel.md, "Batch changes at the rounds";
// sim/admission/gavel_batch.hpp): one LM job at batch 10 on one V100 whose batch doubles by GNS
// (get_gns_bs_pattern for LM 10 on one GPU: batch 20 from epoch 11, 40 from epoch 21), 134,583
// steps in the trace, alone, rounds of 120 s (tests/sim/experiments/data/shockwave-batch.yaml;
// 100, 70, 50 steps/s at batch 10, 20, 40). An epoch is ceil(59,675 / b) steps: 5,968 at 10, 2,984
// at 20, 1,492 at 40.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "observed_run.hpp"
#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/sim/scenario/scenario.hpp"
#include "tidesim/sim/scenario/scenario_override.hpp"

namespace tidesim {
namespace {

// The end of the job under the scenario's policy number `policy`, seed 0.
double end_under(std::size_t policy) {
  const std::string data = std::string(TIDESIM_SOURCE_DIR) + "/tests/sim/experiments/data/";
  const Scenario s = load_scenario_with(
      data + "shockwave-batch.yaml",
      {parse_override("workload.gavel.trace=" + data + "shockwave_lm.trace"),
       parse_override("workload.gavel.throughputs=" + data + "shockwave_lm_throughputs.json")});
  RunSignals signals;
  test::Observed o;
  signals.job.connect([&](const JobEvent& e) { o.events.push_back(e); });
  o.summary = run_policy(s, make_jobs(s, 0), s.policies.at(policy), 0, signals);
  const auto done = o.of(JobEventKind::kSucceeded, "1");
  return done.size() == 1 ? test::seconds(done[0].at) : -1.0;
}

// batch_changes: epoch (the default): the job runs ceil(134,583 / 5,968) = 23 whole epochs at the
// batch of each (epochs 0-10 and the last at 10, 11-20 at 20, 21 at 40: get_gns_bs_pattern keeps
// the initial batch in the last epoch), an epoch at batch b taking (59,675 / b) / throughput(b):
// 12 x 59.675 + 10 x 42.625 + 29.8375 = 1,172.1875 s.
TEST(ShockwaveBatchRun, ByEpochTheBatchChangesAtTheEpochsBoundary) {
  EXPECT_NEAR(end_under(0), 1172.1875, 1e-3);
}

// batch_changes: round, as the artifact's simulator: 12,000 steps a round at batch 10. At the end
// of round 4 (60,000 steps, epoch ceil(60,000 / 5,968) = 11) the job asks for batch 20; it changes
// at the end of round 5 (72,000 steps): its 134,583 steps become ceil(134,583 / 2) = 67,292 at
// batch 20 (still 23 epochs) and its 72,000 run ceil(72,000 / 5,968) = 13 epochs x 2,984 = 38,792
// (the partly done epoch counted as done). Then 8,400 steps a round: 47,192, 55,592, 63,992 at
// the ends of rounds 6-8, where (epoch 22) it asks for 40; in round 9 the 3,300 steps left take
// 3,300 / 70 = 47.142857 s: done at 9 x 120 + 47.142857 = 1,127.142857 s.
TEST(ShockwaveBatchRun, ByRoundTheBatchChangesAfterTheNextRoundAndRoundsTheEpochsUp) {
  EXPECT_NEAR(end_under(1), 1127.142857, 1e-3);
}

}  // namespace
}  // namespace tidesim
