// `tidesim admit` and the reader of Kubernetes/Kueue objects behind it (tools/lib/tas_admit.hpp,
// tools/lib/kueue_objects.hpp). The cluster of tests/tools/data/admit/cluster.yaml: 2 blocks x 2
// racks x 2 nodes of 8 GPUs; a running pod takes 4 GPUs of b1-r1-n1.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "tests/common/cli.hpp"
#include "tests/common/require.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/sim/scenario/kube_snapshot.hpp"
#include "tidesim/tools/lib/tas_admit.hpp"

namespace tidesim::app {
namespace {

const std::string kDir = "tests/tools/data/admit/";

std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("tidesim_admit_" + std::to_string(getpid()) + "_" + name);
  std::ofstream(path) << text;
  return path.string();
}

// The workload of workload-rack.yaml with its PodSet's annotations replaced by `annotations`
// (lines of the template's metadata.annotations) and `count` pods of `gpus` GPUs.
std::string workload(const std::string& annotations, int count, int gpus) {
  return "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\nmetadata:\n  name: w\n"
         "  namespace: research\nspec:\n  queueName: team-a\n  podSets:\n  - name: main\n"
         "    count: " +
         std::to_string(count) + "\n    template:\n      metadata:\n        annotations:\n" +
         annotations + "      spec:\n        containers:\n        - name: c\n" +
         "          resources:\n            requests:\n              nvidia.com/gpu: \"" +
         std::to_string(gpus) + "\"\n";
}

TEST(TasAdmit, ReadsTheSnapshotObjects) {
  KueueSnapshot s = read_kueue_snapshot(kDir + "cluster.yaml");
  EXPECT_EQ(s.nodes.size(), 8U);
  ASSERT_EQ(s.pods.size(), 1U);
  EXPECT_EQ(s.pods[0].node_name, "b1-r1-n1");
  EXPECT_EQ(s.pods[0].requests.at("nvidia.com/gpu"), 4);
  EXPECT_EQ(s.nodes[0].allocatable.at("pods"), 110);
  EXPECT_EQ(s.nodes[0].allocatable.at("cpu"), 96000);
  EXPECT_TRUE(s.nodes[0].ready);
  ASSERT_EQ(s.topologies.at("gpu-topology").size(), 3U);
  ASSERT_EQ(s.flavors.size(), 1U);
  EXPECT_EQ(s.flavors[0].topology_name.value_or(""), "gpu-topology");
  EXPECT_EQ(s.cluster_queues.at("training"), std::vector<std::string>{"h100"});
  EXPECT_EQ(s.local_queues.at("research/team-a"), "training");
}

// Worked by hand: racks hold 3 (b1-r1: 4 + 8 GPUs free) or 4 pods of 4 GPUs. BestFit takes the
// tightest rack holding all 3, then its nodes by most pods first, the last by best fit.
TEST(TasAdmit, RequiredRackTakesTheTightestRack) {
  AdmitOutcome o = admit({.snapshot = kDir + "cluster.yaml",
                          .workload = kDir + "workload-rack.yaml",
                          .gates = {},
                          .flavor = ""});
  ASSERT_TRUE(o.admitted());
  EXPECT_EQ(o.workload, "research/trainer");
  EXPECT_EQ(o.flavor, "h100");
  ASSERT_EQ(o.podsets.size(), 1U);
  tas::TopologyAssignment want{.levels = {"kubernetes.io/hostname"},
                               .domains = {{{"b1-r1-n1"}, 1}, {{"b1-r1-n2"}, 2}}};
  EXPECT_EQ(*o.podsets[0].assignment, want);
}

TEST(TasAdmit, RefusalCarriesKueuesReason) {
  AdmitOutcome o = admit({.snapshot = kDir + "cluster.yaml",
                          .workload = kDir + "workload-too-big.yaml",
                          .gates = {},
                          .flavor = ""});
  EXPECT_FALSE(o.admitted());
  EXPECT_EQ(o.podsets[0].reason, "topology \"gpu-topology\" allows to fit only 4 out of 5 pod(s)");
}

// Preferred block with 7 pods of 8 GPUs: b1 holds 3 (b1-r1-n1 has 4 GPUs free), b2 4, so no block
// holds all 7 and Kueue spreads over the top level: b2's 4 nodes, then b1's 3 whole ones.
TEST(TasAdmit, PreferredSpreadsWhenNoDomainHoldsAll) {
  const std::string w =
      write_temp("preferred.yaml", workload("          kueue.x-k8s.io/podset-preferred-topology: "
                                            "network.topology.nvidia.com/block\n",
                                            7, 8));
  AdmitOutcome o =
      admit({.snapshot = kDir + "cluster.yaml", .workload = w, .gates = {}, .flavor = ""});
  ASSERT_TRUE(o.admitted()) << o.podsets[0].reason;
  int total = 0;
  for (const auto& d : o.podsets[0].assignment->domains) {
    total += d.count;
  }
  EXPECT_EQ(total, 7);
  EXPECT_EQ(o.podsets[0].assignment->domains.size(), 7U);  // every node with 8 GPUs free
}

TEST(TasAdmit, SliceAnnotationsBecomeTheTopologyRequest) {
  const std::string w =
      write_temp("slices.yaml", workload("          kueue.x-k8s.io/podset-slice-required-topology: "
                                         "network.topology.nvidia.com/rack\n"
                                         "          kueue.x-k8s.io/podset-slice-size: \"4\"\n",
                                         8, 4));
  AdmitOutcome o =
      admit({.snapshot = kDir + "cluster.yaml", .workload = w, .gates = {}, .flavor = ""});
  ASSERT_TRUE(o.admitted()) << o.podsets[0].reason;
  // Two slices of 4 pods (16 GPUs): each in one rack with 16 GPUs free, not in b1-r1.
  for (const auto& d : o.podsets[0].assignment->domains) {
    EXPECT_NE(d.values[0].rfind("b1-r1", 0), 0U) << d.values[0];
  }
}

// Kueue's flavor assigner refuses a flavor whose topology lacks the requested level before any
// placement (checkPodSetAndFlavorMatchForTAS, sim/admission/tas_flavor_match.hpp).
TEST(TasAdmit, FlavorWithoutTheRequestedLevelIsRefused) {
  const std::string w =
      write_temp("zone.yaml", workload("          kueue.x-k8s.io/podset-required-topology: "
                                       "topology.kubernetes.io/zone\n",
                                       1, 4));
  AdmitOutcome o =
      admit({.snapshot = kDir + "cluster.yaml", .workload = w, .gates = {}, .flavor = ""});
  EXPECT_FALSE(o.admitted());
  EXPECT_EQ(o.flavor, "h100");
  EXPECT_EQ(o.podsets[0].reason, "Flavor \"h100\" does not contain the requested level");
}

// cluster.yaml with a flavor without a topology, `default`, first in the ClusterQueue.
std::string cluster_with_default_flavor() {
  std::ifstream in(kDir + "cluster.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string group = "      flavors:\n      - name: h100\n";
  const auto at = text.find(group);
  EXPECT_NE(at, std::string::npos);
  text.replace(at, group.size(),
               "      flavors:\n      - name: default\n        resources:\n"
               "        - name: nvidia.com/gpu\n          nominalQuota: 8\n      - name: h100\n");
  text +=
      "- apiVersion: kueue.x-k8s.io/v1beta2\n  kind: ResourceFlavor\n  metadata:\n"
      "    name: default\n  spec: {}\n";
  return write_temp("cluster-default.yaml", text);
}

// A PodSet asking a topology skips the queue's flavor without one (Kueue's "workload requiring
// TAS skips the non-TAS flavor"); one asking none, in a queue that is not all TAS flavors, is
// refused by the TAS flavor and has nothing to place on `default`: the refusal is reported.
TEST(TasAdmit, FlavorCheckInAQueueWithAFlavorWithoutTopology) {
  const std::string cluster = cluster_with_default_flavor();
  AdmitOutcome rack = admit(
      {.snapshot = cluster, .workload = kDir + "workload-rack.yaml", .gates = {}, .flavor = ""});
  ASSERT_TRUE(rack.admitted()) << rack.podsets[0].reason;
  EXPECT_EQ(rack.flavor, "h100");
  const std::string w = write_temp("none.yaml", workload("          a: b\n", 1, 4));
  AdmitOutcome none = admit({.snapshot = cluster, .workload = w, .gates = {}, .flavor = ""});
  EXPECT_FALSE(none.admitted());
  EXPECT_EQ(none.podsets[0].reason, "Flavor \"h100\" supports only TopologyAwareScheduling");
}

// A bad annotation value: the one reader's message (sim/admission/tas_annotations.hpp), at the
// annotation's file, line and column.
TEST(TasAdmit, BadAnnotationIsAnInputErrorAtTheAnnotation) {
  const std::string w = write_temp(
      "bad-slice.yaml", workload("          kueue.x-k8s.io/podset-slice-required-topology: rack\n"
                                 "          kueue.x-k8s.io/podset-slice-size: \"0\"\n",
                                 8, 4));
  try {
    admit({.snapshot = kDir + "cluster.yaml", .workload = w, .gates = {}, .flavor = ""});
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.message(), "expected an integer of at least 1, got '0'");
    EXPECT_NE(e.field().find("template.metadata.annotations.kueue.x-k8s.io/podset-slice-size"),
              std::string::npos)
        << e.field();
    EXPECT_EQ(e.where().line, 15) << e.what();
  }
}

TEST(TasAdmit, FeatureGatesParseAsKueuesFlag) {
  tas::TasFeatureGates g = parse_feature_gates("TASBalancedPlacement=true,TASProfileMixed=false");
  EXPECT_TRUE(g.balanced_placement);
  EXPECT_FALSE(g.profile_mixed);
  EXPECT_THROW(parse_feature_gates("TASNoSuchGate=true"), InputError);
  EXPECT_THROW(parse_feature_gates("TASBalancedPlacement=yes"), InputError);
}

TEST(TasAdmit, BadValueNamesFileLineAndField) {
  const std::string w = write_temp("badcount.yaml",
                                   "kind: Workload\nmetadata:\n  name: w\nspec:\n  podSets:\n"
                                   "  - name: main\n    count: many\n    template:\n"
                                   "      spec:\n        containers: [{name: c}]\n");
  try {
    read_kueue_snapshot(w);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 7);
    EXPECT_EQ(e.where().column, 12);
    EXPECT_EQ(e.field(), "Workload.spec.podSets[0].count");
  }
}

TEST(TasAdmitCli, TableJsonAndExitCodes) {
  TIDESIM_REQUIRE_CLI();
  auto ok = test::run("admit " + kDir + "cluster.yaml " + kDir + "workload-rack.yaml");
  EXPECT_EQ(ok.code, 0) << ok.out;
  EXPECT_NE(ok.out.find("b1-r1-n1=1 b1-r1-n2=2"), std::string::npos) << ok.out;
  auto refused =
      test::run("admit " + kDir + "cluster.yaml " + kDir + "workload-too-big.yaml --format json");
  EXPECT_EQ(refused.code, 1) << refused.out;
  EXPECT_NE(refused.out.find("\"admitted\": false"), std::string::npos) << refused.out;
  auto bad = test::run("admit " + kDir + "cluster.yaml " + kDir +
                       "workload-rack.yaml --feature-gates Nope=true");
  EXPECT_EQ(bad.code, 2) << bad.out;
  auto missing = test::run("admit " + kDir + "cluster.yaml " + kDir + "cluster.yaml");
  EXPECT_EQ(missing.code, 2) << missing.out;
  EXPECT_NE(missing.out.find("expected one Kueue Workload, found 0"), std::string::npos);
}

}  // namespace
}  // namespace tidesim::app
