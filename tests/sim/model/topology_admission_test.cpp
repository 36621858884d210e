// Kueue's topology-aware scheduling inside runs (sim/model/topology_admission.hpp): hand-worked
// runs on tests/sim/data/tas-run.yaml (four one-GPU nodes, racks gpu-01/gpu-02 in leaf-0000 and
// gpu-03/gpu-04 in leaf-0001) with a 2-pod gang and one-pod fillers pinned to a node, and the
// refusal of bad annotation values.
#include "tidesim/sim/model/topology_admission.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/common/gang_run.hpp"
#include "tests/common/temp_file.hpp"
#include "tidesim/sim/experiments/run.hpp"

namespace tidesim {
namespace {

constexpr const char* kRequired = "kueue.x-k8s.io/podset-required-topology";
constexpr const char* kPreferred = "kueue.x-k8s.io/podset-preferred-topology";
constexpr const char* kLeaf = "network.topology.nvidia.com/leaf";

using test::Filler;

using Outcome = test::TopologyGangOutcome;

// The gang G (2 pods x 1 GPU, 100 s, `annotation: kLeaf`; none when empty) submitted at 1 s,
// after one-pod fillers F1, F2, ... submitted at 0 s on their nodes (no TAS annotation).
Outcome run_gang(const std::string& policy, const std::string& annotation,
                 const std::vector<Filler>& fillers) {
  const Scenario s = load_scenario("tests/sim/data/tas-run.yaml");
  Workload w = test::gang_after_fillers(s, fillers);
  if (!annotation.empty()) {
    w.jobs.back().pod_template.annotations[annotation] = kLeaf;
  }
  RunSignals signals;
  Outcome o;
  test::run_recording_topology(s, w, policy, signals, o);
  return o;
}

// Within 1 s of the hand-worked times (binds take scheduling cycles; steps are whole).
constexpr double kTol = 1.0;

TEST(TopologyAdmissionRun, ARequiredGangLandsInOneRack) {
  // F1 holds gpu-02 (leaf-0000): leaf-0000 has room for 1 pod, leaf-0001 for 2. Kueue's BestFit
  // at the leaf level takes leaf-0001, the only leaf that holds both pods: G's pods are
  // restricted to gpu-03 and gpu-04 and bind there at 1 s.
  const Outcome o = run_gang("required-leaf", kRequired, {{"gpu-02", 3}});
  EXPECT_EQ(o.summary.succeeded, 2);
  EXPECT_EQ(o.nodes.at("G"), (std::multiset<std::string>{"gpu-03", "gpu-04"}));
  EXPECT_NEAR(o.bound_s.at("G"), 1.0, kTol);
  ASSERT_EQ(o.topology.size(), 1U);
  EXPECT_TRUE(o.topology[0].admitted);
  EXPECT_EQ(o.topology[0].topology, "default");
  // Its span: 1 spine, 1 leaf, 2 hosts.
  ASSERT_EQ(o.topology[0].span.size(), 3U);
  EXPECT_EQ(o.topology[0].span[1], (std::pair<std::string, int>{kLeaf, 1}));
  EXPECT_EQ(o.topology[0].span[2], (std::pair<std::string, int>{"kubernetes.io/hostname", 2}));
}

TEST(TopologyAdmissionRun, ARequiredTopologyThatCannotFitWaitsWithKueuesReason) {
  // F1 holds gpu-02 for 100 s, F2 gpu-04 for 300 s: each leaf has room for 1 pod of G's 2, and
  // the cluster's 2 free GPUs would hold it. G waits with Kueue's reason until F1 ends at
  // 100 s; then leaf-0000 holds both pods: G binds on gpu-01 and gpu-02 at 100 s, having waited
  // 99 s for its topology.
  const Outcome o = run_gang("required-leaf", kRequired, {{"gpu-02", 1}, {"gpu-04", 3}});
  EXPECT_EQ(o.summary.succeeded, 3);
  EXPECT_EQ(o.nodes.at("G"), (std::multiset<std::string>{"gpu-01", "gpu-02"}));
  EXPECT_NEAR(o.bound_s.at("G"), 100.0, kTol);
  ASSERT_EQ(o.topology.size(), 2U);
  EXPECT_FALSE(o.topology[0].admitted);
  EXPECT_NEAR(to_seconds(o.topology[0].at), 1.0, kTol);
  // pkg/cache/scheduler/tas_flavor_snapshot.go, notFitMessage with the exclusion stats: the
  // two nodes the fillers hold have no GPU left.
  EXPECT_EQ(o.topology[0].reason,
            "topology \"default\" allows to fit only 1 out of 2 pod(s). Total nodes: 4; "
            "excluded: resource \"nvidia.com/gpu\": 2");
  EXPECT_TRUE(o.topology[1].admitted);
  EXPECT_NEAR(o.topology[1].topology_wait_s, 99.0, kTol);
}

TEST(TopologyAdmissionRun, APreferredTopologyFallsBackAcrossRacks) {
  // The same cluster: no leaf holds both pods, so Kueue's preferred request goes one level up
  // (the spine, which holds 2) and spreads the pods over the two leaves: G binds at 1 s on
  // gpu-01 and gpu-03.
  const Outcome o = run_gang("required-leaf", kPreferred, {{"gpu-02", 1}, {"gpu-04", 3}});
  EXPECT_EQ(o.summary.succeeded, 3);
  EXPECT_EQ(o.nodes.at("G"), (std::multiset<std::string>{"gpu-01", "gpu-03"}));
  EXPECT_NEAR(o.bound_s.at("G"), 1.0, kTol);
  ASSERT_EQ(o.topology.size(), 1U);
  EXPECT_TRUE(o.topology[0].admitted);
  EXPECT_EQ(o.topology[0].span[1], (std::pair<std::string, int>{kLeaf, 2}));
}

TEST(TopologyAdmissionRun, AFlavourWithoutATopologyLeavesPlacementToTheScheduler) {
  // No topology: G is admitted at 1 s on the cluster's 2 free GPUs, one in each leaf.
  const Outcome o = run_gang("no-topology", kRequired, {{"gpu-02", 1}, {"gpu-04", 3}});
  EXPECT_EQ(o.nodes.at("G"), (std::multiset<std::string>{"gpu-01", "gpu-03"}));
  EXPECT_NEAR(o.bound_s.at("G"), 1.0, kTol);
  EXPECT_TRUE(o.topology.empty());
}

// A bad annotation value is refused when the run loads, with the message of the one reader
// (tas::request_from_annotations, tests/sim/admission/tas_annotations_test.cpp) and the job named.
TEST(TopologyAdmission, ABadAnnotationValueIsAnInputError) {
  const Scenario s = load_scenario("tests/sim/data/tas-run.yaml");
  for (const auto& [annotations, want] :
       std::vector<std::pair<std::map<std::string, std::string>, std::string>>{
           {{{"kueue.x-k8s.io/podset-unconstrained-topology", "yes"}},
            "kueue.x-k8s.io/podset-unconstrained-topology: expected true or false, got 'yes'"},
           {{{"kueue.x-k8s.io/podset-slice-required-topology", kLeaf},
             {"kueue.x-k8s.io/podset-slice-size", "0"}},
            "kueue.x-k8s.io/podset-slice-size: expected an integer of at least 1, got '0'"},
           {{{kRequired, kLeaf},
             {"kueue.x-k8s.io/podset-slice-required-topology-constraints", "[]"}},
            "kueue.x-k8s.io/podset-slice-required-topology-constraints: failed to parse "
            "multi-layer topology constraints annotation: topology constraints must contain "
            "between 1 and 3 entries"},
           // jobframework/tas_validation.go, validateSliceRequiredTopologyConstraintsAnnotation
           // and the pod set count checks (the job has 2 pods).
           {{{"kueue.x-k8s.io/podset-slice-required-topology-constraints",
              R"([{"topology": ")" + std::string(kLeaf) + R"(", "size": 3}])"}},
            "kueue.x-k8s.io/podset-slice-required-topology-constraints: must not be greater "
            "than pod set count 2"},
           {{{"kueue.x-k8s.io/podset-slice-required-topology-constraints",
              R"([{"topology": ")" + std::string(kLeaf) + R"(", "size": 2}, )" +
                  R"({"topology": "kubernetes.io/hostname", "size": 3}])"}},
            "kueue.x-k8s.io/podset-slice-required-topology-constraints[1].size: must evenly "
            "divide the parent layer size 2"},
           {{{"kueue.x-k8s.io/podset-slice-required-topology-constraints",
              R"([{"topology": ")" + std::string(kLeaf) + R"(", "size": 2}, )" +
                  R"({"topology": ")" + std::string(kLeaf) + R"(", "size": 1}])"}},
            "kueue.x-k8s.io/podset-slice-required-topology-constraints[1].topology: Duplicate "
            "value: network.topology.nvidia.com/leaf (also at index 0)"},
           {{{"kueue.x-k8s.io/podset-slice-required-topology-constraints",
              R"([{"topology": ")" + std::string(kLeaf) + R"(", "size": 2}])"},
             {"kueue.x-k8s.io/podset-slice-size", "2"}},
            "may not be set when 'kueue.x-k8s.io/podset-slice-size' is specified"},
           {{{"kueue.x-k8s.io/podset-slice-required-topology", kLeaf},
             {"kueue.x-k8s.io/podset-slice-size", "4"}},
            "kueue.x-k8s.io/podset-slice-size: must not be greater than pod set count 2"},
           // jobframework/tas_validation.go, ValidatePodSetGroupingTopology: a group is two
           // PodSets, and a job of a run is one.
           {{{kRequired, kLeaf}, {"kueue.x-k8s.io/podset-group-name", "pair"}},
            "kueue.x-k8s.io/podset-group-name: can only define groups of exactly 2 pod sets, "
            "got: 1 pod set(s)"}}) {
    Workload w = make_jobs(s, 1);
    w.jobs[0].pod_template.annotations = annotations;
    RunSignals signals;
    try {
      run_policy(s, w, s.policies[0], 1, signals);
      ADD_FAILURE() << "expected an InputError: " << want;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("job '" + w.jobs[0].name + "'"), std::string::npos)
          << e.what();
    }
  }
}

TEST(TopologyAdmission, ALevelNoTopologyHasIsAnInputError) {
  const Scenario s = load_scenario("tests/sim/data/tas-run.yaml");
  // The required level, and a multi-layer slice's inner layer.
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {kRequired, "rack"},
           {"kueue.x-k8s.io/podset-slice-required-topology-constraints",
            R"([{"topology": ")" + std::string(kLeaf) + R"(", "size": 2}, )" +
                R"({"topology": "rack", "size": 1}])"}}) {
    Workload w = make_jobs(s, 1);
    w.jobs[0].pod_template.annotations[key] = value;
    RunSignals signals;
    try {
      run_policy(s, w, s.policies[0], 1, signals);
      ADD_FAILURE() << "expected an InputError for " << key;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("names level 'rack'"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("tas-run.yaml"), std::string::npos) << e.what();
    }
  }
}

// tests/sim/data/tas-run.yaml with `from` replaced by `to`, loaded: the InputError's text.
std::string load_error(const std::string& from, const std::string& to) {
  std::ifstream in("tests/sim/data/tas-run.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  const std::size_t at = yaml.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  yaml.replace(at, from.size(), to);
  // Relative paths (the node topology) resolve against the file's folder.
  yaml.replace(yaml.find("../../topologies"), 16, std::filesystem::absolute("topologies").string());
  const std::string path = test::temp_file("tas-run-error", yaml);
  try {
    load_scenario(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(TopologyAdmission, BadTopologiesAndFlavoursAreRefusedWithTheirPlace) {
  const std::string twice =
      load_error("network.topology.nvidia.com/leaf,", "network.topology.nvidia.com/spine,");
  EXPECT_NE(twice.find("levels[1]: level 'network.topology.nvidia.com/spine' is listed twice"),
            std::string::npos)
      << twice;
  EXPECT_NE(load_error("levels: [network", "levels: [kubernetes.io/hostname, network")
                .find("levels[0]: kubernetes.io/hostname may only be the last level"),
            std::string::npos);
  const std::string unknown = load_error("topology_name: default}", "topology_name: rack}");
  EXPECT_NE(unknown.find("resource_flavors[0].topology_name: names topology 'rack'"),
            std::string::npos)
      << unknown;
  EXPECT_NE(unknown.find(":40:"), std::string::npos) << unknown;  // its line
  EXPECT_NE(load_error("node_labels: {pool: gpu}, topology_name", "topology_name")
                .find("needs at least one node_labels entry"),
            std::string::npos);
  EXPECT_NE(load_error("      queues: &queues\n",
                       "      queues: &queues\n        tas_feature_gates: "
                       "{TASBalancedPlacment: true}\n")
                .find("unknown Kueue feature gate"),
            std::string::npos);
}

}  // namespace
}  // namespace tidesim
