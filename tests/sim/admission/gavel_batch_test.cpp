// Shockwave's batch changes at the rounds (sim/admission/gavel_batch.hpp), worked by hand from
// uw-mad-dash/shockwave scheduler/scheduler.py (_scale_bs_and_iters, _done_callback).
#include "tidesim/sim/admission/gavel_batch.hpp"

#include <gtest/gtest.h>

#include <string>

#include "tidesim/workloads/gavel_jobs.hpp"

namespace tidesim::gavel {
namespace {

// _scale_bs_and_iters's own example: a Recommendation job (117,907 samples) of 3,500 steps at
// 4,096 (ceil(117,907 / 4,096) = 29 steps an epoch: 121 epochs) moved to 8,192 (15 steps an
// epoch): 1,750 steps would be 117 epochs, so it gets 121 x 15 = 1,815. Its 1,000 steps run are
// ceil(1,000 / 29) = 35 epochs: 525 steps at 8,192.
TEST(GavelBatch, RescaleKeepsTheEpochsAndRoundsTheEpochsRunUp) {
  const auto rec = *workloads::shockwave_model("Recommendation (batch size 4096)");
  const BatchWork w = rescale(rec, 4096, 8192, 1000.0, 3500.0);
  EXPECT_DOUBLE_EQ(w.steps, 1815.0);
  EXPECT_DOUBLE_EQ(w.done, 525.0);
  // LM 10 -> 20: 134,583 steps are 67,292 at 20 (23 epochs either way); 72,000 run are 13 epochs
  // (5,968 steps each at 10), 38,792 steps at 20 (2,984 each). A whole epoch stays whole.
  const auto lm = *workloads::shockwave_model("LM (batch size 10)");
  const BatchWork x = rescale(lm, 10, 20, 72000.0, 134583.0);
  EXPECT_DOUBLE_EQ(x.steps, 67292.0);
  EXPECT_DOUBLE_EQ(x.done, 38792.0);
  EXPECT_DOUBLE_EQ(rescale(lm, 10, 20, 5968.0 * 12, 134583.0).done, 2984.0 * 12);
}

// One job of tests/sim/experiments/data/shockwave_lm.trace (LM 10, GNS, 134,583 steps; 100 and
// 70 steps/s at 10 and 20) through the rounds' starts.
TEST(GavelBatch, AJobChangesAfterTheNextRoundItRuns) {
  const std::string data = std::string(TIDESIM_SOURCE_DIR) + "/tests/sim/experiments/data/";
  workloads::GavelSource source;
  source.trace = data + "shockwave_lm.trace";
  source.throughputs = data + "shockwave_lm_throughputs.json";
  source.gpu_types = {{"V100-SXM2-16", "v100"}};
  const auto jobs = workloads::gavel_jobs(source, 0);
  ASSERT_EQ(jobs.size(), 1U);
  JobView v;
  v.id = 0;
  v.spec = &jobs[0];
  v.replicas = 1;
  v.steps = jobs[0].steps;  // 23 whole epochs of 5,968 steps: 137,264
  std::vector<JobView> views = {v};
  BatchChanges changes;
  // First seen: the trace's 134,583 steps at batch 10.
  auto out = changes.round(views, {});
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out.at(0).steps, 134583);
  EXPECT_DOUBLE_EQ(out.at(0).done, 0.0);
  ASSERT_TRUE(out.at(0).elastic);
  EXPECT_EQ(views[0].steps, 134583);
  ASSERT_EQ(views[0].throughputs.size(), 1U);
  EXPECT_DOUBLE_EQ(views[0].throughputs[0].second, 100.0);
  // 60,000 steps run (epoch 11): it asks, and nothing changes yet.
  views[0].progress = 60000.0 / 134583.0;
  EXPECT_TRUE(changes.round(views, {0}).empty());
  // A round it did not run: no change, still asked.
  EXPECT_TRUE(changes.round(views, {}).empty());
  // A round it ran (72,000 steps): batch 20, 38,792 of 67,292 steps, at 70 steps/s.
  views[0].progress = 72000.0 / 134583.0;
  out = changes.round(views, {0});
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out.at(0).steps, 67292);
  EXPECT_NEAR(out.at(0).done, 38792.0, 1e-6);
  EXPECT_DOUBLE_EQ(views[0].throughputs[0].second, 70.0);
  EXPECT_NEAR(views[0].steps_left, 67292.0 - 38792.0, 1e-6);
  const auto* now = dynamic_cast<const workloads::GavelSpeed*>(out.at(0).speed.get());
  ASSERT_NE(now, nullptr);
  EXPECT_EQ(now->shockwave_batch()->batch, 20);
}

}  // namespace
}  // namespace tidesim::gavel
