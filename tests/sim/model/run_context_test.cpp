#include "tidesim/sim/model/run_context.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "tidesim/sim/model/observation.hpp"

namespace tidesim {
namespace {

// RunContext::profile: jobs of the same model, batch size, precision and GPU model share one
// profile, equal to the catalogue's; a job that differs in any of them gets its own.
TEST(RunContext, JobsOfOneModelBatchPrecisionAndGpuShareOneProfile) {
  const Scenario s = load_scenario("tests/sim/data/hot_spot.yaml");
  const workloads::Catalogue catalogue;
  RunSignals signals;
  Simulation sim{1};
  FluidSolver fluid;
  Cluster cluster(s, fluid);
  RunContext ctx{s, catalogue, signals, sim, fluid, cluster, {}, {}, {}, {}, {}, ""};
  workloads::JobSpec a;  // resnet50, batch 64, amp (JobSpec's defaults)
  workloads::JobSpec b = a;
  b.name = "other";
  workloads::JobSpec c = a;
  c.batch_size = 32;
  const auto pa = ctx.profile(a, "A10");
  const auto pb = ctx.profile(b, "A10");
  const auto pc = ctx.profile(c, "A10");
  const auto pd = ctx.profile(a, "A100");
  EXPECT_EQ(pa.get(), pb.get());
  EXPECT_NE(pa.get(), pc.get());
  EXPECT_NE(pa.get(), pd.get());
  EXPECT_EQ(ctx.profiles.size(), 3U);
  const auto direct = catalogue.profile("resnet50", 64, "amp", "A10");
  EXPECT_EQ(pa->compute_seconds, direct.compute_seconds);
  EXPECT_EQ(pa->input_bytes, direct.input_bytes);
  EXPECT_EQ(pc->batch_size, 32);
  EXPECT_EQ(pd->gpu, "A100");
  // A profile the catalogue refuses (batch 0 is outside [1, max_batch]) throws and leaves
  // nothing behind, so asking again throws again.
  workloads::JobSpec bad = a;
  bad.batch_size = 0;
  EXPECT_ANY_THROW(ctx.profile(bad, "A10"));
  EXPECT_EQ(ctx.profiles.size(), 3U);
  EXPECT_ANY_THROW(ctx.profile(bad, "A10"));
}

// Cluster::touch lists a node for take_touched() once, in the order first touched, and the
// Observer's samples recompute exactly those nodes (their revisions move; the first sample
// computes every node).
TEST(Observer, SamplesRecomputeTheNodesTouchedSinceThePreviousSample) {
  const Scenario s = load_scenario("tests/sim/data/hot_spot.yaml");
  const workloads::Catalogue catalogue;
  RunSignals signals;
  Simulation sim{1};
  FluidSolver fluid;
  Cluster cluster(s, fluid);
  RunContext ctx{s, catalogue, signals, sim, fluid, cluster, {}, {}, {}, {}, {}, ""};
  Observer observer(ctx);
  const std::vector<std::uint64_t> first = observer.cluster_sample(0).node_revisions;
  ASSERT_EQ(first.size(), 2U);
  EXPECT_GE(first[0], 1U);
  EXPECT_GE(first[1], 1U);
  EXPECT_EQ(observer.cluster_sample(0).node_revisions, first) << "nothing touched";
  cluster.touch(1);
  cluster.touch(0);
  cluster.touch(1);
  std::vector<int> touched;
  cluster.take_touched(touched);
  EXPECT_EQ(touched, (std::vector<int>{1, 0}));
  cluster.take_touched(touched);
  EXPECT_TRUE(touched.empty());
  EXPECT_EQ(cluster.node(1).changes, 2U);
  cluster.touch(1);
  const std::vector<std::uint64_t> after = observer.cluster_sample(0).node_revisions;
  EXPECT_EQ(after[0], first[0]);
  EXPECT_EQ(after[1], first[1] + 1) << "node 1 recomputed once";
}

}  // namespace
}  // namespace tidesim
