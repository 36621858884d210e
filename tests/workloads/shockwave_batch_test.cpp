// Shockwave's batch sizes by epoch (workloads/shockwave_batch.hpp), worked by hand from
// uw-mad-dash/shockwave scheduler/utils.py (get_gns_bs_pattern, get_accordion_bs_pattern,
// generate_pickle_file).
#include "tidesim/workloads/shockwave_batch.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tidesim::workloads {
namespace {

TEST(ShockwaveBatch, ModelAndEpochs) {
  const auto lm = shockwave_model("LM (batch size 20)");
  ASSERT_TRUE(lm);
  EXPECT_EQ(lm->family, "LM");
  EXPECT_EQ(lm->batch, 20);
  EXPECT_EQ(lm->dataset, 59'675);
  EXPECT_EQ(lm->max_batch, 80);
  // ceil(59,675 / 20) = 2,984 steps an epoch; ceil(total / 2,984) epochs.
  EXPECT_EQ(shockwave_epochs(*lm, 2984 * 3), 3);
  EXPECT_EQ(shockwave_epochs(*lm, 2984 * 3 + 1), 4);
  EXPECT_FALSE(shockwave_model("A3C"));
  EXPECT_FALSE(shockwave_model("LM (batch size x)"));
  EXPECT_FALSE(shockwave_model("GPT (batch size 8)"));
}

// LM at batch 20 on one GPU: [11, 41) x2, [41, end) x4 (80, the family's largest), when the job
// has more than 11 epochs; from the second range on, the last epoch keeps the initial batch.
TEST(ShockwaveBatch, GnsDoublesByEpoch) {
  const ShockwaveModel lm = *shockwave_model("LM (batch size 20)");
  const std::vector<int> b = shockwave_batches(lm, "gns", 50, 1);
  ASSERT_EQ(b.size(), 50U);
  EXPECT_EQ(b[10], 20);
  EXPECT_EQ(b[11], 40);
  EXPECT_EQ(b[40], 40);
  EXPECT_EQ(b[41], 80);
  EXPECT_EQ(b[48], 80);
  EXPECT_EQ(b[49], 20);
  // Not more than 11 epochs: no change; another scale factor has its own ranges ([31, 41) x2).
  EXPECT_EQ(shockwave_batches(lm, "gns", 11, 1), std::vector<int>(11, 20));
  EXPECT_EQ(shockwave_batches(lm, "gns", 50, 2)[30], 20);
  EXPECT_EQ(shockwave_batches(lm, "gns", 50, 2)[31], 40);
}

// ResNet-50 at 64: critical where epoch mod 30 < 10; outside, the largest batch (128). The
// planning profile also keeps the first 30% of epochs (of 40: epochs 0..12) at 64.
TEST(ShockwaveBatch, AccordionLeavesTheCriticalRegimes) {
  const ShockwaveModel r50 = *shockwave_model("ResNet-50 (batch size 64)");
  const std::vector<int> run = shockwave_batches(r50, "accordion", 40, 1);
  EXPECT_EQ(run[9], 64);
  EXPECT_EQ(run[10], 128);
  EXPECT_EQ(run[29], 128);
  EXPECT_EQ(run[30], 64);
  const std::vector<int> plan = shockwave_batches(r50, "accordion", 40, 1, true);
  EXPECT_EQ(plan[12], 64);
  EXPECT_EQ(plan[13], 128);
  EXPECT_EQ(shockwave_batches(r50, "static", 3, 1), (std::vector<int>{64, 64, 64}));
  EXPECT_THROW((void)shockwave_batches(r50, "sometimes", 3, 1), std::invalid_argument);
  // Transformer never changes.
  const ShockwaveModel tf = *shockwave_model("Transformer (batch size 32)");
  EXPECT_EQ(shockwave_batches(tf, "accordion", 30, 1), std::vector<int>(30, 32));
}

// What a job asks for at a round's end in the simulator (scheduler.py _simulate_gns,
// _simulate_accordion, _scale_bs_and_iters), `epoch` its ceil of the steps run over an epoch's.
TEST(ShockwaveBatch, TheBatchAJobAsksForAtARoundsEnd) {
  // GNS, LM 10 on one GPU: the pattern has 20 from epoch 11, 40 from 21; it asks when the
  // pattern at its epoch or the next is above its batch, for twice its batch.
  const ShockwaveModel lm10 = *shockwave_model("LM (batch size 10)");
  EXPECT_FALSE(shockwave_batch_request(lm10, "gns", 10, 9, 1));
  EXPECT_EQ(shockwave_batch_request(lm10, "gns", 10, 10, 1), 20);
  EXPECT_FALSE(shockwave_batch_request(lm10, "gns", 20, 19, 1));
  EXPECT_EQ(shockwave_batch_request(lm10, "gns", 20, 20, 1), 40);
  // Behind the pattern (batch 10 at epoch 30, where it has 40): one doubling at a time.
  EXPECT_EQ(shockwave_batch_request(lm10, "gns", 10, 30, 1), 20);
  EXPECT_FALSE(shockwave_batch_request(lm10, "static", 10, 30, 1));
  // An initial batch at the family's largest never changes.
  EXPECT_FALSE(shockwave_batch_request(*shockwave_model("LM (batch size 80)"), "gns", 80, 50, 1));
  // Accordion, ResNet-50 at 32: critical where epoch mod 30 < 10 (no bound at 600 in the rounds'
  // test, unlike the planning profile); the largest batch outside, the initial one back inside.
  const ShockwaveModel r50 = *shockwave_model("ResNet-50 (batch size 32)");
  EXPECT_FALSE(shockwave_batch_request(r50, "accordion", 32, 9, 1));
  EXPECT_EQ(shockwave_batch_request(r50, "accordion", 32, 10, 1), 128);
  EXPECT_FALSE(shockwave_batch_request(r50, "accordion", 128, 29, 1));
  EXPECT_EQ(shockwave_batch_request(r50, "accordion", 128, 30, 1), 32);
  EXPECT_EQ(shockwave_batch_request(r50, "accordion", 32, 610, 1), 128);
  EXPECT_TRUE(accordion_critical_at_round(r50, 600));
  EXPECT_FALSE(accordion_critical(r50, 600));
  // Recommendation at 512: critical below 30 only in the rounds (the profile adds 60-69, 80-89).
  const ShockwaveModel rec = *shockwave_model("Recommendation (batch size 512)");
  EXPECT_EQ(shockwave_batch_request(rec, "accordion", 512, 65, 1), 8192);
  // Transformer never asks.
  const ShockwaveModel tf = *shockwave_model("Transformer (batch size 32)");
  EXPECT_FALSE(shockwave_batch_request(tf, "accordion", 32, 50, 1));
}

}  // namespace
}  // namespace tidesim::workloads
