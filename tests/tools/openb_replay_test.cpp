// Scenarios whose cluster comes from an openb node list (`cluster.nodes_from`), replaying openb
// pod lists end to end: a hand-written fixture with outcomes derived by hand, the errors of bad
// node lists, and a bounded slice of scenarios/openb-default.yaml when the shared data is there.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "tests/common/require.hpp"
#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/sim/input/data_folder.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/sim/scenario/scenario.hpp"
#include "tidesim/tools/lib/fill_output.hpp"
#include "tidesim/tools/lib/result.hpp"

namespace tidesim::app {
namespace {

const std::string kDir = "tests/tools/data/openb/";

struct Replay {
  SeedRun run;
  RunSummary summary;
  std::map<std::string, JobRecord> jobs;
};

Replay replay(const Scenario& s, std::size_t policy) {
  const Workload w = make_jobs(s, 1);
  Recorder recorder(s.policies[policy].name, 1);
  RunSignals signals;
  recorder.attach(signals);
  Replay r;
  r.summary = run_policy(s, w, s.policies[policy], 1, signals);
  r.run = recorder.finish(r.summary.end);
  for (const auto& j : r.run.jobs) {
    r.jobs[j.name] = j;
  }
  return r;
}

TEST(OpenbReplay, NodesComeFromTheNodeList) {
  const Scenario s = load_scenario(kDir + "scenario.yaml");
  ASSERT_TRUE(s.cluster.nodes_from);
  EXPECT_EQ(s.cluster.nodes_from->nodes, 4);
  ASSERT_EQ(s.cluster.groups.size(), 4u);
  const NodeGroup& cpu = s.cluster.groups[0];
  EXPECT_EQ(node_name(cpu, 1), "cpu-node");
  EXPECT_EQ(cpu.gpus, 0);
  EXPECT_EQ(cpu.gpu_model, "");
  EXPECT_EQ(cpu.topology, "pcie-0");
  EXPECT_EQ(cpu.cpu_milli, 8000);
  EXPECT_EQ(cpu.memory_bytes, 16384LL << 20);
  EXPECT_FALSE(cpu.labels.contains("tidesim.io/gpu-model"));
  const NodeGroup& v100 = s.cluster.groups[2];
  EXPECT_EQ(node_name(v100, 1), "v100-a");
  EXPECT_EQ(v100.gpus, 4);
  EXPECT_EQ(v100.gpu_model, "V100M16");
  EXPECT_EQ(v100.topology, "pcie-4");
  EXPECT_EQ(v100.sharing, SharingMode::kFractional);
  EXPECT_EQ(v100.labels.at("tidesim.io/gpu-model"), "V100M16");
}

// First-fit takes the first feasible node in list order (cpu-node, t4-a, v100-a, t4-b):
//  cpu-pod (no GPU)              -> cpu-node: the 0-GPU node fits it first;
//  frac-a (500 milli, T4)        -> t4-a: cpu-node has no GPU share, t4-a's card is free;
//  frac-b (400 milli, T4)        -> t4-a: 500 milli left on its only card, so it shares it;
//  frac-c (300 milli, T4)        -> t4-b: t4-a has 100 left, v100-a is not a T4;
//  multi (2 whole GPUs)          -> v100-a: cpu-node has 0 GPUs, t4-a 1.
TEST(OpenbReplay, FirstFitPlacesEachPodWhereDerived) {
  const Scenario s = load_scenario(kDir + "scenario.yaml");
  const Replay r = replay(s, 0);
  ASSERT_EQ(r.jobs.size(), 5u);
  const std::map<std::string, std::string> expected{{"cpu-pod", "cpu-node"},
                                                    {"frac-a", "t4-a"},
                                                    {"frac-b", "t4-a"},
                                                    {"frac-c", "t4-b"},
                                                    {"multi", "v100-a"}};
  for (const auto& [job, node] : expected) {
    const JobRecord& j = r.jobs.at(job);
    EXPECT_EQ(j.state, "succeeded") << job;
    ASSERT_EQ(j.nodes.size(), 1u) << job;
    EXPECT_EQ(j.nodes[0], node) << job;
    EXPECT_EQ(j.oom_kills, 0) << job;
  }
  EXPECT_EQ(r.summary.succeeded, 5);
  EXPECT_EQ(r.summary.unfinished, 0);
  // t4-a has one card: frac-a and frac-b share it, and they run at the same time (frac-b starts
  // at 20 s, frac-a cannot finish before 10 s + its traced 200 s).
  const JobRecord& a = r.jobs.at("frac-a");
  const JobRecord& b = r.jobs.at("frac-b");
  ASSERT_TRUE(a.start_s && a.finish_s && b.start_s);
  EXPECT_LT(*b.start_s, *a.finish_s);
  // The CPU-only pod runs at the reference GPU's uncontended speed, i.e. for its traced 100 s
  // (steps are whole, so within one step of it).
  const JobRecord& cpu = r.jobs.at("cpu-pod");
  ASSERT_TRUE(cpu.start_s && cpu.finish_s);
  EXPECT_NEAR(*cpu.finish_s - *cpu.start_s, 100.0, 1.0);
  // A GPU-sharing pod's traced run time was measured on its share: the replay converts it to steps
  // at the reference GPU (T4, the first GPU node) with compute share milli / 1000, and frac-a and
  // frac-b hold 500 + 400 milli of one card (no contention), so each runs its traced time.
  EXPECT_NEAR(*a.finish_s - *a.start_s, 200.0, 1.0);
  ASSERT_TRUE(b.finish_s);
  EXPECT_NEAR(*b.finish_s - *b.start_s, 300.0, 1.0);
}

TEST(OpenbReplay, DefaultK8sRunsEveryPodToCompletion) {
  const Scenario s = load_scenario(kDir + "scenario.yaml");
  const Replay r = replay(s, 1);
  EXPECT_EQ(r.summary.succeeded, 5);
  EXPECT_EQ(r.summary.never_started, 0);
  // Any node with 2 whole GPUs free takes `multi` (v100-a or t4-b), never
  // the 0-GPU node or the 1-GPU t4-a.
  const auto& multi = r.jobs.at("multi").nodes;
  ASSERT_EQ(multi.size(), 1u);
  EXPECT_TRUE(multi[0] == "v100-a" || multi[0] == "t4-b") << multi[0];
  // T4-only pods never land on the V100 node or the CPU node.
  for (const char* job : {"frac-a", "frac-b", "frac-c"}) {
    const auto& n = r.jobs.at(job).nodes;
    ASSERT_EQ(n.size(), 1u);
    EXPECT_TRUE(n[0] == "t4-a" || n[0] == "t4-b") << job << " on " << n[0];
  }
}

TEST(OpenbReplay, GpuSharingPoliciesRunTimeDriven) {
  // The six GPU-sharing profiles in an ordinary replay (pods finish and free their cards).
  Scenario s = load_scenario(kDir + "scenario.yaml");
  s.policies.clear();
  for (const char* p :
       {"random", "dot-product", "gpu-clustering", "gpu-packing", "best-fit", "fgd"}) {
    s.policies.push_back(make_policy(p, p));
  }
  for (std::size_t i = 0; i < s.policies.size(); ++i) {
    const Replay r = replay(s, i);
    EXPECT_EQ(r.summary.succeeded, 5) << s.policies[i].name;
    for (const auto& [name, job] : r.jobs) {
      EXPECT_EQ(job.oom_kills, 0) << s.policies[i].name << " " << name;
    }
  }
  // best-fit, by hand (raw = int64((1 - (0.5 (cpuLeft - cpu) / 128000 + 0.5 (L - req) / 8000)) *
  // 100), min-max normalised): cpu-pod: cpu-node 97, t4-a 88, v100-a 63, t4-b 82 -> cpu-node;
  // frac-a (500): t4-a 91, t4-b 84 -> t4-a; frac-b (400): t4-a 93 (100 milli left after), t4-b
  // 84 -> t4-a; frac-c (300): t4-a has 100 left, only t4-b fits; multi (2 cards): only v100-a has
  // two free cards.
  const Replay r = replay(s, 4);
  const std::map<std::string, std::string> expected{{"cpu-pod", "cpu-node"},
                                                    {"frac-a", "t4-a"},
                                                    {"frac-b", "t4-a"},
                                                    {"frac-c", "t4-b"},
                                                    {"multi", "v100-a"}};
  for (const auto& [job, node] : expected) {
    ASSERT_EQ(r.jobs.at(job).nodes.size(), 1u) << job;
    EXPECT_EQ(r.jobs.at(job).nodes[0], node) << job;
  }
}

TEST(OpenbReplay, FillModeWritesTheAllocationCurves) {
  const Scenario s = load_scenario(kDir + "fill.yaml");
  EXPECT_EQ(s.run.mode, RunMode::kFill);
  EXPECT_EQ(s.run.tune, 1.5);
  EXPECT_EQ(s.run.randomness, FillRandomness::kGoMathRand);
  const std::string dir =
      (std::filesystem::temp_directory_path() / "tidesim-fill-mode-test").string();
  std::filesystem::remove_all(dir);
  std::ostringstream out;
  EXPECT_EQ(run_fill_scenario(s, s.policies, s.seeds, 2, OutputFormat::kTable, dir, out), 0);
  EXPECT_NE(out.str().find("fgd"), std::string::npos) << out.str();
  std::ifstream csv(std::filesystem::path(dir) / "allocation_curve.csv");
  std::string line;
  ASSERT_TRUE(std::getline(csv, line));
  EXPECT_EQ(line.rfind("workload,sc_policy,tune,seed,total_gpus,0,1,2,", 0), 0u) << line;
  EXPECT_TRUE(line.ends_with(",129,130")) << line;
  std::vector<std::string> rows;
  while (std::getline(csv, line)) {
    rows.push_back(line);
  }
  // Two policies x two seeds, policy order then seed order; 7 GPUs.
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].rfind("pods,best-fit,1.5,1,7,", 0), 0u) << rows[0];
  EXPECT_EQ(rows[3].rfind("pods,fgd,1.5,2,7,", 0), 0u) << rows[3];
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(dir) / "allocation_curve.html"));
  std::filesystem::remove_all(dir);
}

TEST(OpenbReplay, FillModeRefusesOtherPoliciesAndStrayKeys) {
  const Scenario s = load_scenario(kDir + "fill-bad-policy.yaml");
  std::ostringstream out;
  try {
    (void)run_fill_scenario(s, s.policies, s.seeds, 1, OutputFormat::kTable, "", out);
    ADD_FAILURE() << "default-k8s accepted in fill mode";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "policies");
  }
  try {
    (void)load_scenario(kDir + "tune-without-fill.yaml");
    ADD_FAILURE() << "run.tune accepted without run.mode: fill";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "run.tune");
  }
}

// The error of loading `file`, with the field and message checked by the caller.
InputError error_of(const std::string& file) {
  try {
    (void)load_scenario(kDir + file);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << file << " loaded without an error";
  return InputError(SourceLocation{}, "", "");
}

TEST(OpenbReplay, UnknownFormatIsRejected) {
  const InputError e = error_of("bad-format.yaml");
  EXPECT_EQ(e.where().line, 2);
  EXPECT_NE(e.field().find("format"), std::string::npos) << e.field();
  EXPECT_NE(std::string(e.what()).find("openb"), std::string::npos) << e.what();
}

TEST(OpenbReplay, MissingNodeListIsNamed) {
  const InputError e = error_of("missing-file.yaml");
  EXPECT_NE(e.field().find("file"), std::string::npos) << e.field();
  EXPECT_NE(e.message().find("no-such-nodes.csv"), std::string::npos) << e.message();
}

TEST(OpenbReplay, BadRowNamesTheCsvLineAndColumn) {
  const InputError e = error_of("bad-row.yaml");
  EXPECT_NE(e.where().file.find("bad-nodes.csv"), std::string::npos) << e.where().file;
  EXPECT_EQ(e.where().line, 3);
  EXPECT_EQ(e.where().column, 10);  // "bad-node,lots"
  EXPECT_NE(e.field().find("cpu_milli"), std::string::npos) << e.field();
}

TEST(OpenbReplay, UnknownGpuModelNamesTheCsvLine) {
  const InputError e = error_of("bad-model.yaml");
  EXPECT_NE(e.where().file.find("bad-model-nodes.csv"), std::string::npos) << e.where().file;
  EXPECT_EQ(e.where().line, 3);
  EXPECT_EQ(e.where().column, 23);  // "odd-node,8000,16384,1,X9000"
  EXPECT_EQ(e.field(), "model");
  EXPECT_NE(e.message().find("X9000"), std::string::npos) << e.message();
}

TEST(OpenbReplay, UnknownKeyIsRejected) {
  const InputError e = error_of("bad-key.yaml");
  EXPECT_NE(std::string(e.what()).find("gpu"), std::string::npos) << e.what();
}

TEST(OpenbReplay, RepeatedNodeNameNamesTheCsvLine) {
  const InputError e = error_of("dup-node.yaml");
  EXPECT_NE(e.where().file.find("dup-nodes.csv"), std::string::npos) << e.where().file;
  EXPECT_EQ(e.where().line, 3);
  EXPECT_EQ(e.where().column, 1);  // the name begins the row
  EXPECT_EQ(e.field(), "sn");
}

// A topology override whose GPU count differs from a row's fails when the cluster is built, naming
// the row (cpu-node, line 2, has 0 GPUs; pcie-2 has 2).
TEST(OpenbReplay, TopologyOverrideMustMatchTheGpuCount) {
  const Scenario s = load_scenario(kDir + "bad-topology.yaml");
  const Workload w = make_jobs(s, 1);
  RunSignals signals;
  try {
    (void)run_policy(s, w, s.policies[0], 1, signals);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(e.where().file.find("nodes.csv"), std::string::npos) << e.where().file;
    EXPECT_EQ(e.where().line, 2);
    EXPECT_EQ(e.where().column, 1);  // the node's name, its row's first cell
    EXPECT_EQ(e.field(), "topology");
  }
}

// scenarios/openb-default.yaml on the real node list, the first 500 pods of the default pod
// list by submit time, under first-fit (fast); skipped without ../shared/data (failed under
// CI=true).
TEST(OpenbReplay, DefaultScenarioRunsASlice) {
  const std::string nodes =
      std::string(TIDESIM_SHARED_DATA_DIR) + "/traces/openb_node_list_all_node.csv";
  const std::string pods =
      std::string(TIDESIM_SHARED_DATA_DIR) + "/traces/openb_pod_list_default.csv";
  TIDESIM_REQUIRE_FILE(nodes);
  TIDESIM_REQUIRE_FILE(pods);
  // The scenario names the data as $TIDESIM_DATA/traces/... (the data folder, docs/data.md).
  TIDESIM_REQUIRE(std::filesystem::exists(data_folder() + "/traces/openb_node_list_all_node.csv"),
                  "scenarios/openb-default.yaml reads the data folder: set TIDESIM_DATA or put "
                  "the data at ../shared/data beside the repository");
  Scenario s = load_scenario("scenarios/openb-default.yaml");
  ASSERT_TRUE(s.cluster.nodes_from);
  EXPECT_EQ(s.cluster.nodes_from->nodes, 1523);  // rows of openb_node_list_all_node.csv
  // A bounded slice: the first 500 pods (submitted from 0 s to 10.2 Ms), sampled daily instead of
  // hourly so that the test stays fast.
  s.workload.trace->limit = 500;
  s.run.sample_interval = std::chrono::hours(24);
  s.telemetry.sample_interval = std::chrono::hours(24);
  s.telemetry.scrape_interval = std::chrono::hours(24);
  std::size_t first_fit = s.policies.size();
  for (std::size_t i = 0; i < s.policies.size(); ++i) {
    if (s.policies[i].scheduler == "first-fit") {
      first_fit = i;
    }
  }
  ASSERT_LT(first_fit, s.policies.size());
  const Replay r = replay(s, first_fit);
  EXPECT_EQ(r.summary.jobs, 500);
  EXPECT_EQ(r.summary.succeeded + r.summary.failed + r.summary.unfinished, 500);
  EXPECT_GT(r.summary.succeeded, 0);
}

}  // namespace
}  // namespace tidesim::app
