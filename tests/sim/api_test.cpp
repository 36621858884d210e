#include "sim/api/api.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/api/cluster_view.hpp"
#include "sim/api/telemetry.hpp"

namespace tidesim {
namespace {

TEST(LabelSelector, MatchLabelsAndExpressions) {
  const std::map<std::string, std::string> labels{{"app", "gpt2-dp"}, {"tier", "3"}};
  LabelSelector s;
  EXPECT_TRUE(matches(s, labels)) << "empty selector matches everything";
  s.match_labels = {{"app", "gpt2-dp"}};
  EXPECT_TRUE(matches(s, labels));
  s.match_expressions = {{"tier", "Gt", {"2"}}};
  EXPECT_TRUE(matches(s, labels));
  s.match_expressions = {{"tier", "Lt", {"2"}}};
  EXPECT_FALSE(matches(s, labels));
  s.match_expressions = {{"zone", "DoesNotExist", {}}, {"app", "In", {"a", "gpt2-dp"}}};
  EXPECT_TRUE(matches(s, labels));
  s.match_expressions = {{"app", "NotIn", {"gpt2-dp"}}};
  EXPECT_FALSE(matches(s, labels));
}

TEST(Toleration, FollowsKubernetesRules) {
  const Taint t{"nvidia.com/gpu", "present", "NoSchedule"};
  EXPECT_TRUE(tolerates({"nvidia.com/gpu", "Exists", "", ""}, t));
  EXPECT_TRUE(tolerates({"", "Exists", "", ""}, t)) << "empty key with Exists tolerates all";
  EXPECT_TRUE(tolerates({"nvidia.com/gpu", "Equal", "present", "NoSchedule"}, t));
  EXPECT_FALSE(tolerates({"nvidia.com/gpu", "Equal", "absent", ""}, t));
  EXPECT_FALSE(tolerates({"nvidia.com/gpu", "Exists", "", "NoExecute"}, t));
}

TEST(NodeInfo, TracksRequestsWithNonZeroDefaults) {
  NodeInfo n;
  auto p1 = std::make_shared<PodSpec>();
  p1->name = "a";
  p1->requests.gpus = 1;
  p1->requests.memory_bytes = 16LL << 30;
  n.add_pod(p1);
  EXPECT_EQ(n.requested.cpu_milli, 0);
  EXPECT_EQ(n.non_zero_requested.cpu_milli, kDefaultMilliCpuRequest);
  EXPECT_EQ(n.non_zero_requested.memory_bytes, 16LL << 30);
  EXPECT_EQ(n.requested.gpus, 1);
  EXPECT_TRUE(n.remove_pod("a"));
  EXPECT_FALSE(n.remove_pod("a"));
  EXPECT_EQ(n.requested, Resources{});
  EXPECT_EQ(n.non_zero_requested.cpu_milli, 0);
}

// The one index the run publishes and the load-aware plugins read (it was written twice, in
// topologies and in the plugin).
TEST(Telemetry, NvlinkCompetitionIndex) {
  // SEED-DIGEST 2.2: 2 NVLink tasks on a 4-GPU node -> 2 / (4 x 2) = 0.25.
  EXPECT_DOUBLE_EQ(nvlink_competition_index(2, 4), 0.25);
  // One task's step on an 8-GPU node: 1 / 16 = 0.0625 (what an estimated bound pod adds).
  EXPECT_DOUBLE_EQ(nvlink_competition_index(1, 8), 0.0625);
  EXPECT_DOUBLE_EQ(nvlink_competition_index(0, 8), 0.0);
  EXPECT_DOUBLE_EQ(nvlink_competition_index(3, 0), 0.0);  // a node without GPUs
  EXPECT_THROW(nvlink_competition_index(-1, 4), std::invalid_argument);
  EXPECT_THROW(nvlink_competition_index(1, -4), std::invalid_argument);
}

}  // namespace
}  // namespace tidesim
