#include "tidesim/sim/scenario/scenario.hpp"
#include "tidesim/policies/loaded_profile.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "tidesim/policies/scheduler.hpp"

namespace tidesim::app {
namespace {

using namespace std::chrono_literals;

std::string fixture(const std::string& name) {
  return "tests/tools/data/" + name;
}

// Writes `text` to a temporary scenario file and returns the error message of loading it.
std::string error_of(const std::string& text) {
  // One file per process: ctest runs each test as its own process, in parallel.
  const std::string path =
      ::testing::TempDir() + "/scenario_under_test_" + std::to_string(::getpid()) + ".yaml";
  std::ofstream(path) << text;
  try {
    load_scenario(path);
  } catch (const InputError& e) {
    const std::string msg = e.what();
    return msg.substr(msg.find(':') + 1);  // drop the temporary path
  }
  return "(no error)";
}

const char* kCluster =
    "cluster:\n"
    "  node_groups:\n"
    "    - name: a10\n"
    "      gpu: A10\n"
    "      topology: a10x4-pcie\n";

TEST(Scenario, LoadsEverySection) {
  const Scenario s = load_scenario(fixture("minimal.yaml"));
  EXPECT_EQ(s.name, "minimal");
  ASSERT_EQ(s.cluster.groups.size(), 1u);
  const NodeGroup& g = s.cluster.groups[0];
  EXPECT_EQ(g.count, 2);
  EXPECT_EQ(g.sharing, SharingMode::kTimeSlicing);
  EXPECT_EQ(g.replicas, 2);
  EXPECT_DOUBLE_EQ(g.storage.bandwidth, 2e9);
  EXPECT_EQ(g.storage.latency, 200us);
  EXPECT_EQ(g.cpu_milli, 32000);
  ASSERT_EQ(s.policies.size(), 2u);
  EXPECT_EQ(s.policies[1].name, "la");
  EXPECT_EQ(s.policies[1].scheduler, "load-aware");
  EXPECT_EQ(s.seeds, (std::vector<std::uint64_t>{1, 2, 3}));
  EXPECT_EQ(s.telemetry.scrape_interval, 30s);
  EXPECT_EQ(s.telemetry.sample_interval, 10s) << "default";
  ASSERT_EQ(s.telemetry.outages.size(), 1u);
  EXPECT_EQ(s.telemetry.outages[0].latency, 7s);
  ASSERT_EQ(s.telemetry.silent_agents.size(), 1u);
  EXPECT_EQ(s.telemetry.silent_agents[0].end, TimePoint(10min));
  EXPECT_EQ(s.run.until, 48h);
  EXPECT_EQ(s.run.cycle_time, 5ms);
  ASSERT_EQ(s.reference.size(), 1u);
  EXPECT_DOUBLE_EQ(s.reference[0].by_policy.at("la"), 0.127);
  // The file's text, hashed by the one scenario hash (the one results record).
  std::ifstream in(fixture("minimal.yaml"), std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(s.hash, scenario_hash(text));
}

// Each policy's scheduler is loaded with the scenario, once: a file beside the scenario is read
// then, copies of the policy share the load, and a scheduler built later needs no file.
TEST(Scenario, LoadsEachPolicysProfileOnce) {
  const std::string dir = ::testing::TempDir() + "/profile_once_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file("scenarios/schedulers/most-allocated.yaml", dir + "/packing.yaml",
                             std::filesystem::copy_options::overwrite_existing);
  std::ifstream in(fixture("minimal.yaml"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string from = "scheduler: load-aware";
  text.replace(text.find(from), from.size(), "scheduler: packing.yaml");
  std::ofstream(dir + "/s.yaml") << text;
  const Scenario s = load_scenario(dir + "/s.yaml");
  std::filesystem::remove_all(dir);
  ASSERT_EQ(s.policies.size(), 2u);
  EXPECT_TRUE(s.policies[0].loaded().builtin);
  const std::string resolved =
      std::filesystem::path(dir + "/packing.yaml").lexically_normal().string();
  EXPECT_EQ(s.policies[1].scheduler, resolved);
  EXPECT_EQ(s.policies[1].loaded().path, resolved);
  const PolicyConfig copy = s.policies[1];
  EXPECT_EQ(copy.profile.get(), s.policies[1].profile.get());
  EXPECT_EQ(policies::make_scheduler(copy.loaded(), 1)->name(), "most-allocated");
  const PolicyConfig unloaded{"x", "default-k8s"};
  EXPECT_THROW((void)unloaded.loaded(), std::logic_error);
}

// FNV-1a 64 test vectors (offset basis for the empty text; "a" from the FNV reference tables).
TEST(Scenario, HashIsFnv1a64OfTheText) {
  EXPECT_EQ(scenario_hash(""), "fnv1a64:cbf29ce484222325");
  EXPECT_EQ(scenario_hash("a"), "fnv1a64:af63dc4c8601ec8c");
}

TEST(Scenario, MisspeltKeyNamesLineAndAllowedKeys) {
  const std::string msg =
      error_of(std::string(kCluster) +
               "      gpus_per_node: 4\n"
               "workload: {arrivals: {process: burst, count: 1}, jobs: [{model: resnet50, "
               "batch_size: 64, steps: 1}]}\npolicies: [default-k8s]\n");
  EXPECT_EQ(msg.substr(0, msg.find(';')), "6:7: cluster.node_groups[0].gpus_per_node: unknown key");
  EXPECT_NE(msg.find("allowed keys here: count, cpu, gpu,"), std::string::npos) << msg;
}

TEST(Scenario, BadValuesNameTheirField) {
  EXPECT_EQ(error_of(std::string(kCluster) +
                     "      count: -1\nworkload: {arrivals: {process: burst, count: 1}, jobs: "
                     "[{model: resnet50, batch_size: 64, steps: 1}]}\npolicies: [first-fit]\n"),
            "6:14: cluster.node_groups[0].count: -1 is out of range [1, 100000]");
  EXPECT_EQ(error_of(std::string(kCluster) +
                     "workload: {arrivals: {process: burst, count: 1}, jobs: [{model: resnet50, "
                     "batch_size: 64, steps: 1}]}\npolicies: [first-fit]\nrun: {until: 3}\n"),
            "8:14: run.until: '3' needs a unit: us, ms, s, m (or min), h, d or w");
  EXPECT_EQ(error_of(std::string(kCluster) +
                     "workload: {arrivals: {process: burst, count: 1}, jobs: [{model: resnet50, "
                     "batch_size: 64, steps: 1}]}\npolicies: [first-fit]\nseeds: 0\n"),
            "8:8: seeds: '0' must be a count in [1, 10000] or a list of seeds");
  EXPECT_EQ(
      error_of(std::string(kCluster) + "workload: {arrivals: {process: burst, count: 1}, jobs: "
                                       "[{model: resnet50, batch_size: 64, steps: 1}]}\n"),
      "1:1: policies: missing required field");
  EXPECT_EQ(error_of(std::string(kCluster) +
                     "workload: {arrivals: {process: burst, count: 1}, jobs: [{model: resnet50, "
                     "batch_size: 64, steps: 1}]}\npolicies: [first-fit, first-fit]\n"),
            "7:23: policies[1]: policy 'first-fit' is listed twice");
  EXPECT_EQ(
      error_of(
          std::string(kCluster) +
          "workload: {arrivals: {process: burst, count: 1}, jobs: [{model: resnet50, batch_size: "
          "64, steps: 1}]}\npolicies: [first-fit]\ntelemetry: {silent_agents: [{node: b-01, end: "
          "1h}]}\n"),
      "8:36: telemetry.silent_agents[0].node: no node is called 'b-01'");
  EXPECT_EQ(
      error_of(
          std::string(kCluster) +
          "      sharing: {mode: exclusive, replicas: 2}\nworkload: {arrivals: {process: burst, "
          "count: 1}, jobs: [{model: resnet50, batch_size: 64, steps: 1}]}\npolicies: "
          "[first-fit]\n"),
      "6:44: cluster.node_groups[0].sharing.replicas: only time-slicing has replicas");
}

// A Pollux workload is a file or a generated one, exactly one of the two.
TEST(Scenario, PolluxWorkloadIsAFileOrGenerated) {
  const auto pollux = [](const std::string& inline_map) {
    return error_of(std::string(kCluster) + "workload: {pollux: " + inline_map +
                    "}\npolicies: [first-fit]\n");
  };
  for (const std::string& m :
       {std::string("{applications: .}"), std::string("{file: a.csv, generate: {trace: b.csv}, "
                                                      "applications: .}")}) {
    const std::string e = pollux(m);
    EXPECT_NE(e.find("workload.pollux.file: give either file (a workload CSV) or generate"),
              std::string::npos)
        << e;
  }
  EXPECT_NE(pollux("{generate: {trace: b.csv, jobs: 0}, applications: .}")
                .find("workload.pollux.generate.trace"),
            std::string::npos);
}

TEST(Scenario, AdmissionSettingsAreCheckedWithTheirPlace) {
  const auto admission = [](const std::string& inline_map) {
    return error_of(
        std::string(kCluster) +
        "workload: {arrivals: {process: burst, count: 1}, jobs: [{model: resnet50, batch_size: 64, "
        "steps: 1}]}\npolicies:\n  - {name: p, scheduler: default-k8s, admission: " +
        inline_map + "}\n");
  };
  EXPECT_EQ(admission("{policy: lifo}").substr(0, 48),
            "8:59: policies[0].admission.policy: 'lifo' is no");
  EXPECT_EQ(admission("{policy: tiresias, thresholds_gpu_s: [100, 50]}"),
            "8:93: policies[0].admission.thresholds_gpu_s[1]: thresholds must increase");
  EXPECT_EQ(admission("{policy: tiresias, thresholds_gpu_s: [-1]}"),
            "8:88: policies[0].admission.thresholds_gpu_s[0]: expected a number of GPU-seconds in "
            "(0, 1e15]");
  EXPECT_EQ(admission("{policy: fifo, starvation_limit: 2}"),
            "8:83: policies[0].admission.starvation_limit: applies only to policy tiresias or "
            "tiresias-artifact (this one is fifo)");
  EXPECT_EQ(admission("{policy: tiresias, estimate_sigma: 0.5}"),
            "8:85: policies[0].admission.estimate_sigma: applies only to policy sjf or srtf (this "
            "one is tiresias)");
  EXPECT_EQ(admission("{policy: srtf, interval: 0s}").substr(0, 40),
            "8:75: policies[0].admission.interval: '0");
  // `args:` is for policies with parameters of their own (and those a program registers:
  // sim/admission/job_policy_registry.hpp).
  EXPECT_EQ(admission("{policy: fifo, args: {level: 3}}"),
            "8:71: policies[0].admission.args: applies only to policy tiresias-artifact, optimus, "
            "pollux, gavel or volcano (this one is fifo)");
  // A policy's own arguments are decoded into its typed args when the scenario is read, each
  // error at its field (JobPolicyEntry::decode).
  EXPECT_EQ(admission("{policy: pollux, args: {p: two}}"),
            "8:77: policies[0].admission.args.p: 'two' is not a number");
  EXPECT_EQ(admission("{policy: tiresias-artifact, args: {rounds: maybe}}"),
            "8:93: policies[0].admission.args.rounds: 'maybe' is not true or false");
  EXPECT_EQ(admission("{policy: optimus, args: {placement: nowhere}}").substr(0, 48),
            "8:86: policies[0].admission.args.placement: 'now");
  // Queues walk the jobs in the policy's order: a policy without one is refused at `queues:`.
  EXPECT_EQ(admission("{policy: tiresias-artifact, queues: {cluster_queues: [{name: q, "
                      "nominal_gpus: 4}]}}")
                .substr(0, 77),
            "8:86: policies[0].admission.queues: policy 'tiresias-artifact' does not order");
  EXPECT_EQ(admission("{policy: fifo, interval: 10s}"),
            "8:75: policies[0].admission.interval: applies only to policy srtf, tiresias, "
            "tiresias-artifact, optimus or pollux (this one is fifo)");
}

TEST(Scenario, SharingSettingsAreCheckedWithTheirPlace) {
  const auto sharing = [](const std::string& inline_map) {
    return error_of(std::string(kCluster) + "      sharing: " + inline_map +
                    "\nworkload: {arrivals: {process: burst, count: 1}, jobs: [{model: resnet50, "
                    "batch_size: 64, steps: 1}]}\npolicies: [first-fit]\n");
  };
  // Column of a value: "      sharing: {" is 16 characters, so the map's first key is at 17.
  EXPECT_EQ(
      sharing("{mode: exclusive, interference: 0.1}"),
      "6:48: cluster.node_groups[0].sharing.interference: only time-slicing has this setting");
  EXPECT_EQ(sharing("{mode: time-slicing, isolate_memory: true}"),
            "6:53: cluster.node_groups[0].sharing.isolate_memory: needs declared_memory: true");
  EXPECT_EQ(sharing("{mode: time-slicing, interference: 1.5}")
                .rfind("6:51: cluster.node_groups[0].sharing.interference: ", 0),
            0u);
  EXPECT_EQ(sharing("{mode: time-slicing, tie_break: random}")
                .rfind("6:48: cluster.node_groups[0].sharing.tie_break: ", 0),
            0u);
  EXPECT_EQ(sharing("{mode: time-slicing, policy: packed, tie_break: device-plugin, "
                    "interference: 0.2, declared_memory: true, isolate_memory: true}"),
            "(no error)");
}

TEST(Scenario, TotalsAndBudgetsAreRefusedWithTheirPlace) {
  // Each group is within its 100,000 nodes; together they are not.
  const std::string two_groups =
      "cluster:\n"
      "  node_groups:\n"
      "    - {name: a, gpu: A10, topology: a10x4-pcie, count: 60000}\n"
      "    - {name: b, gpu: A10, topology: a10x4-pcie, count: 60000}\n"
      "workload: {arrivals: {process: burst, count: 1}, jobs: [{model: resnet50, batch_size: 64, "
      "steps: 1}]}\npolicies: [first-fit]\n";
  EXPECT_EQ(error_of(two_groups),
            "4:7: cluster: the cluster has more than 100000 nodes (group 'b' brings it to 120000)");
  // A 100-year horizon at the default 10 s would keep 315 million samples.
  EXPECT_EQ(error_of(std::string(kCluster) +
                     "workload: {arrivals: {process: burst, count: 1}, jobs: [{model: resnet50, "
                     "batch_size: 64, steps: 1}]}\npolicies: [first-fit]\nrun: {until: 5218w}\n"),
            "8:14: run.until: until / sample_interval = 315584640 samples; at most 10000000 (make "
            "the interval longer or the horizon shorter)");
  EXPECT_EQ(
      error_of(
          std::string(kCluster) +
          "workload: {arrivals: {process: burst, count: 1}, jobs: [{model: resnet50, batch_size: "
          "64, steps: 1}]}\npolicies: [first-fit]\nrun: {until: 3h, sample_interval: 1ms}\n"),
      "8:35: run.sample_interval: until / sample_interval = 10800000 samples; at most "
      "10000000 (make the interval longer or the horizon shorter)");
}

TEST(Scenario, MisspeltReferenceMetricAndDuplicateKeysAreRefused) {
  EXPECT_EQ(
      error_of(
          std::string(kCluster) +
          "workload: {arrivals: {process: burst, count: 1}, jobs: [{model: resnet50, batch_size: "
          "64, steps: 1}]}\npolicies: [first-fit]\nreference:\n  metrics:\n    gpu_util_stdev: "
          "{first-fit: 0.1}\n"),
      "10:5: reference.metrics.gpu_util_stdev: unknown metric (docs/metrics.md lists them)");
  EXPECT_EQ(error_of(std::string(kCluster) +
                     "      count: 2\n      count: 3\nworkload: {arrivals: {process: burst, count: "
                     "1}, jobs: [{model: resnet50, batch_size: 64, steps: 1}]}\n"),
            "7:7: cluster.node_groups[0].count: duplicate key (first at line 6, column 7)");
}

// The `report:` section: the study's headline metrics, read strictly (sim/scenario/report_config).
TEST(Scenario, ReportSectionNamesTheHeadlineMetrics) {
  const std::string head = std::string(kCluster) +
                           "workload: {arrivals: {process: burst, count: 1}, jobs: [{model: "
                           "resnet50, batch_size: 64, steps: 1}]}\npolicies: [first-fit]\n";
  const std::string path =
      ::testing::TempDir() + "/report_section_" + std::to_string(::getpid()) + ".yaml";
  std::ofstream(path) << head
                      << "report:\n  metrics: [jct_mean_s, makespan_s, queue_wait_mean_s/a]\n";
  const Scenario s = load_scenario(path);
  EXPECT_EQ(s.report.metrics,
            (std::vector<std::string>{"jct_mean_s", "makespan_s", "queue_wait_mean_s/a"}));
  // A misspelt name is refused at its place, with the closest catalogue name.
  EXPECT_EQ(error_of(head + "report:\n  metrics: [jct_mean_s, jct_mean]\n"),
            "9:25: report.metrics[1]: unknown metric 'jct_mean' (did you mean 'jct_mean_s'?); "
            "docs/metrics.md lists them");
  EXPECT_EQ(error_of(head + "report:\n  metrics: [makespan_s, makespan_s]\n"),
            "9:25: report.metrics[1]: 'makespan_s' is listed twice");
  EXPECT_EQ(error_of(head + "report:\n  metrics: []\n"),
            "9:12: report.metrics: list at least one metric (or leave the section out for the "
            "default set)");
  EXPECT_EQ(error_of(head + "report:\n  metric: [makespan_s]\n"),
            "9:3: report.metric: unknown key 'metric' (did you mean metrics?)");
}

TEST(Scenario, ShippedScenariosLoad) {
  EXPECT_NO_THROW(load_scenario("scenarios/seed-benchmark.yaml"));
}

}  // namespace
}  // namespace tidesim::app
