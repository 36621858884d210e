// `tidesim explain` on the shipped three-node List: text and JSON carry the same numbers.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/common/cli.hpp"
#include "tests/common/require.hpp"

namespace {

using Output = tidesim::test::CliOutput;
using tidesim::test::run;

class ExplainCli : public ::testing::Test {
 protected:
  void SetUp() override { TIDESIM_REQUIRE_CLI(); }
};

const char* kList = "scenarios/explain/three-nodes.yaml";

// Hand computation (docs/policies.md): node-01 GPU memory 0.88 > 0.85 - 0.05 -> filtered;
// node-02 0.78/0.15/0.20 -> 73.33 -> 73 x 10; node-03 0.30 -> 100 x 10.
// Fit on node-03 (8 CPU / 64Gi already bound; pod 100m default CPU, 16Gi):
// cpu (32000-8100)*100/32000 = 74, memory (128-80)*100/128 = 37 -> 55.
TEST_F(ExplainCli, LoadAwareText) {
  const Output o = run(std::string("explain ") + kList + " --scheduler load-aware");
  ASSERT_EQ(o.code, 0) << o.out;
  EXPECT_NE(o.out.find("node-01: rejected by LoadAwareFilter: GPU memory over 80%"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("LoadAwareScorer                    73 ->  73 x10  =   730"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("NodeResourcesFit                   55 ->  55 x1   =    55"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("chosen node: node-03"), std::string::npos) << o.out;
}

TEST_F(ExplainCli, JsonHasTheSameNumbers) {
  const Output o = run(std::string("explain ") + kList + " --scheduler load-aware --format json");
  ASSERT_EQ(o.code, 0) << o.out;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["chosen_node"], "node-03");
  EXPECT_EQ(j["nodes"][0]["feasible"], false);
  EXPECT_EQ(j["nodes"][0]["failed_plugin"], "LoadAwareFilter");
  EXPECT_EQ(j["nodes"][0]["reasons"][0], "GPU memory over 80%");
  std::map<std::string, std::int64_t> node2;
  for (const auto& s : j["nodes"][1]["scores"]) {
    node2[s["plugin"]] = s["weighted"];
  }
  EXPECT_EQ(node2["LoadAwareScorer"], 730);
  EXPECT_EQ(node2["TaintToleration"], 300);
  EXPECT_EQ(node2["NodeResourcesFit"], 93);                 // cpu 99, memory 87 -> 93
  EXPECT_EQ(node2["NodeResourcesBalancedAllocation"], 93);  // |0 - 0.125| / 2 -> 93
  EXPECT_EQ(j["nodes"][1]["total"], 730 + 300 + 93 + 93);
  EXPECT_EQ(j["nodes"][2]["total"], 1000 + 300 + 55 + 81);
}

TEST_F(ExplainCli, SeedConfigAndDefault) {
  const Output seed = run(std::string("explain ") + kList +
                          " --scheduler scenarios/schedulers/seed-scheduler-config.yaml");
  EXPECT_EQ(seed.code, 0) << seed.out;
  EXPECT_NE(seed.out.find("with scheduler load-aware-scheduler"), std::string::npos);
  const Output def = run(std::string("explain ") + kList + " --scheduler default-k8s");
  EXPECT_EQ(def.code, 0) << def.out;
  EXPECT_EQ(def.out.find("LoadAware"), std::string::npos);
}

TEST_F(ExplainCli, BadInputExitsTwo) {
  const std::string path = ::testing::TempDir() + "/bad_list.yaml";
  std::ofstream(path) << "apiVersion: v1\nkind: List\nitems:\n- kind: Node\n  metadata:\n"
                         "    name: n1\n  status:\n    allocatable:\n      cpu: lots\n";
  const Output o = run("explain " + path);
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.out.find("bad_list.yaml:9:"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("items[0].status.allocatable.cpu"), std::string::npos) << o.out;
  const Output s = run(std::string("explain ") + kList + " --scheduler no-such-thing");
  EXPECT_EQ(s.code, 2) << s.out;
}

// Raw score of `plugin` on each node (-1 where the plugin did not score), from explain's JSON.
std::vector<std::int64_t> raw_scores(const nlohmann::json& j, const std::string& plugin) {
  std::vector<std::int64_t> out;
  for (const auto& n : j["nodes"]) {
    std::int64_t raw = -1;
    for (const auto& s : n["scores"]) {
      if (s["plugin"] == plugin) {
        raw = s["raw"];
      }
    }
    out.push_back(raw);
  }
  return out;
}

nlohmann::json explain_json(const std::string& args) {
  const Output o = run("explain " + args + " --format json");
  EXPECT_EQ(o.code, 0) << o.out;
  return o.code == 0 ? nlohmann::json::parse(o.out) : nlohmann::json::object();
}

using Scores = std::vector<std::int64_t>;
const std::string kData = "tests/policies/data/";

// Kubernetes' own cases (k8s_score_cases_test.cpp has them all) through the real CLI, from
// `kubectl get -o yaml`-style Lists: least_allocated_test.go "resources requested, pods scheduled
// with resources" (57 / 45); balanced allocation of the same nodes, derived by hand: node1 cpu
// 6000/10000 = 0.6, memory 5000/20000 = 0.25 -> std 0.175 -> 82; node2 0.6 / 0.5 -> 95.
TEST_F(ExplainCli, K8sLeastAllocatedCase) {
  const auto j = explain_json(kData + "k8s-least-allocated.yaml -s default-k8s");
  EXPECT_EQ(raw_scores(j, "NodeResourcesFit"), (Scores{57, 45}));
  EXPECT_EQ(raw_scores(j, "NodeResourcesBalancedAllocation"), (Scores{82, 95}));
}

// most_allocated_test.go "no resources requested, pods scheduled, nonzero request for resource":
// 80 / 30; the best-effort pod is not scored by BalancedAllocation (PreScore Skip).
TEST_F(ExplainCli, K8sMostAllocatedNonZeroCase) {
  const auto j = explain_json(kData + "k8s-most-allocated-nonzero.yaml -s " + kData +
                              "k8s-most-allocated-config.yaml");
  EXPECT_EQ(raw_scores(j, "NodeResourcesFit"), (Scores{80, 30}));
  EXPECT_EQ(raw_scores(j, "NodeResourcesBalancedAllocation"), (Scores{-1, -1}));
}

// requested_to_capacity_ratio_test.go "no resources requested, pods scheduled with resources
// (default - least requested nodes have priority)": 38 / 50.
TEST_F(ExplainCli, K8sRequestedToCapacityRatioCase) {
  const auto j = explain_json(kData + "k8s-requested-to-capacity-ratio.yaml -s " + kData +
                              "k8s-requested-to-capacity-ratio-config.yaml");
  EXPECT_EQ(raw_scores(j, "NodeResourcesFit"), (Scores{38, 50}));
}

// balanced_allocation_test.go "requested resources at node capacity": 50 / 75. Fit
// (LeastAllocated), by hand: memory "0" is set, so node1 cpu 0, memory 100 -> 50; node2 cpu 0,
// memory (10000 - 5000) * 100 / 10000 = 50 -> 25.
TEST_F(ExplainCli, K8sBalancedAllocationCase) {
  const auto j = explain_json(kData + "k8s-balanced-allocation.yaml -s default-k8s");
  EXPECT_EQ(raw_scores(j, "NodeResourcesBalancedAllocation"), (Scores{50, 75}));
  EXPECT_EQ(raw_scores(j, "NodeResourcesFit"), (Scores{50, 25}));
}

}  // namespace
