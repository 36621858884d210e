// The resource estimate of a run (docs/robustness.md, "Resource guards"), derived by hand from
// the scenario and the documented per-item costs, and held against the events real runs count.
#include "tidesim/sim/experiments/run_estimate.hpp"
#include "tidesim/policies/loaded_profile.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/common/cli.hpp"
#include "tests/common/require.hpp"
#include "tidesim/policies/scheduler.hpp"
#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/sim/input/data_folder.hpp"
#include "tidesim/workloads/step_time.hpp"
#include "tidesim/workloads/workload_spec.hpp"

namespace tidesim {
namespace {

// A scenario written to a file of its own (relative paths in it resolve from the repository
// root's scenarios/ only when absolute).
// The file is named after the running test too: ctest runs this file's tests in parallel
// processes, which must not write the same path.
Scenario scenario_from(const std::string& name, const std::string& text) {
  const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  const auto path =
      std::filesystem::temp_directory_path() / ("tidesim-estimate-" + test + "-" + name + ".yaml");
  std::ofstream(path) << text;
  return load_scenario(path.string());
}

// tests/tools/data/solo.yaml: one node of 4 A10s, one 1-pod job of 1,000 steps (run time d at
// its uncontended speed), the default checkpoint interval (30 min), horizon and sample interval
// (30 d, 10 s).
//   end         = max(last arrival 0, 0 + d x 1 GPU / 4 cards) + the longest run time d = 1.25 d,
//                 rounded up to a second
//   samples     = end / 10 s + 1; checkpoints = d / 30 min (d is about 80 s: 0)
//   events      = 1 submission + 4 x 1 pod + samples x (1 + 1 node)
//   memory      = 1 seed x 1 job x 2,500 + 1 run x 1 job x 14,500 = 17,000 bytes; with series,
//                 + 1 policy x samples x (1 node x 600 + 4 cards x 120).
TEST(RunEstimate, OneJobOnOneNodeByHand) {
  const Scenario s = load_scenario("tests/tools/data/solo.yaml");
  const workloads::ModelProfile profile =
      workloads::catalogue_of(s.workload).profile("resnet50", 64, "amp", "A10");
  const double d = 1000 * workloads::step_time(profile, workloads::StepConditions{}).seconds;
  ASSERT_GT(d, 10);
  ASSERT_LT(d, 1800);
  const auto end = static_cast<std::int64_t>(std::ceil(1.25 * d));
  const std::int64_t samples = end / 10 + 1;
  RunPlan plan;
  const RunEstimate e = estimate_run(s, plan);
  EXPECT_EQ(e.jobs, 1);
  EXPECT_EQ(e.pods, 1);
  EXPECT_EQ(e.nodes, 1);
  EXPECT_EQ(e.cards, 4);
  EXPECT_EQ(e.end, std::chrono::seconds(end));
  EXPECT_EQ(e.samples, samples);
  EXPECT_EQ(e.checkpoints, 0);
  EXPECT_EQ(e.telemetry, 0);
  EXPECT_EQ(e.retries, 0);
  EXPECT_EQ(e.faults, 0);
  EXPECT_EQ(e.events, 1 + 4 + samples * 2);
  EXPECT_EQ(e.memory_bytes, 17'000);
  plan.series = true;
  EXPECT_EQ(estimate_run(s, plan).memory_bytes, 17'000 + samples * (600 + 4 * 120));
  // Telemetry (a load-aware policy): a round of agent samples every 10 s counts 1 + 1 node, a
  // scrape every 15 s one, from time 0.
  plan.telemetry = true;
  EXPECT_EQ(estimate_run(s, plan).telemetry, 2 * (end / 10 + 1) + end / 15 + 1);
}

// 100 jobs of one 1-GPU pod running 1 h (checkpoints every 30 min) at once on 2 nodes of 4 cards:
//   work W = 100 x 1 GPU x 3,600 s = 360,000 GPU-s; drain = W / 8 cards = 45,000 s
//   end    = 45,000 + 3,600 (the longest run) = 48,600 s; samples = 4,861
//   checkpoints = 100 x 3,600 / 1,800 = 200
//   waiting pods = 100 x (1 - 8 cards x (0 s of arrivals + 3,600 s) / 360,000) = 92
//   retries = 0.5 x 92 x (100 pod ends + 45,000 s / 5 min) = 11,500 (under 45,000 s / 10 ms)
//   events  = 100 + 4 x 100 + 4,861 x 3 + 200 + 11,500 = 26,783
// With card errors every 10 h on each card: 8 x 48,600 / 36,000 = 10.8 errors, each about
// (2 + 4 x 1 pod) events: 64; a job's hour is stretched to 2 x (e^(1,800/36,000) - 1) x 36,000
// = 3,691.5 s.
TEST(RunEstimate, ABurstOfOneHourJobsByHand) {
  const std::string text =
      "name: hour-burst\n"
      "cluster:\n"
      "  node_groups:\n"
      "    - {name: gpu, count: 2, gpu: A10, topology: a10x4-pcie}\n"
      "workload:\n"
      "  arrivals: {process: burst, count: 100}\n"
      "  jobs:\n"
      "    - {name: j, pod: {gpus: 1}, model: resnet50, batch_size: 64, duration: 1h}\n"
      "policies: [default-k8s]\n";
  const RunEstimate e = estimate_run(scenario_from("hour-burst", text), RunPlan{});
  EXPECT_EQ(e.end, std::chrono::seconds(48'600));
  EXPECT_EQ(e.samples, 4'861);
  EXPECT_EQ(e.checkpoints, 200);
  EXPECT_EQ(e.retries, 11'500);
  EXPECT_EQ(e.events, 26'783);
  const RunEstimate f = estimate_run(
      scenario_from("hour-burst-faults", text + "faults: {card_errors: {mtbf: 10h}}\n"), RunPlan{});
  const double run = 2 * std::expm1(0.05) * 36'000;
  EXPECT_NEAR(run, 3'691.5, 0.1);
  const double end = std::ceil(100 * run / 8 + run);
  EXPECT_EQ(f.end, std::chrono::seconds(static_cast<std::int64_t>(end)));
  EXPECT_EQ(f.faults, static_cast<std::int64_t>(8 * end / 36'000 * 6));
  // Held by an admission controller (every policy has one), the backlog makes no retries.
  RunPlan admitted;
  admitted.admission = true;
  EXPECT_EQ(estimate_run(scenario_from("hour-burst", text), admitted).retries, 0);
}

// The case: 100,000 jobs on 1,000 DGX A100 nodes with run times capped at 24 h and a
// 120-day horizon was refused (1.6 G events, 576 M checkpoints: every job checkpointing to the
// horizon) though it ends after about 1.5 days (13.7 million events, measured). Its checkpoints
// follow the run times now, and its samples the run's end: within the default budget.
TEST(RunEstimate, ALargeScenarioWithCappedRunTimesIsWithinTheDefaultBudget) {
  std::string text = test::read_file("scenarios/scale/jobs100k-nodes1000.yaml");
  const auto replace_all = [&text](const std::string& from, const std::string& to) {
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
      text.replace(at, from.size(), to);
      at += to.size();
    }
  };
  replace_all("checkpoint_interval: 0s", "checkpoint_interval: 30m");
  replace_all("sigma: 0.5}", "sigma: 0.5, max: 24h}");
  replace_all("until: 10000h", "until: 120d");
  ASSERT_NE(text.find("max: 24h"), std::string::npos);
  ASSERT_NE(text.find("until: 120d"), std::string::npos);
  const RunEstimate e = estimate_run(scenario_from("jobs100k-capped", text), RunPlan{});
  EXPECT_EQ(e.jobs, 100'000);
  EXPECT_EQ(e.nodes, 1'000);
  EXPECT_LT(e.end, std::chrono::hours(24 * 5));
  // Each job's mean run time (30 min x e^(0.125) = 2,040 s) over 30 min: 1.13 checkpoints.
  EXPECT_NEAR(static_cast<double>(e.checkpoints), 100'000 * 2'040.0 / 1'800, 1'000);
  EXPECT_EQ(budget_problem(e, RunBudget{}), "");
  EXPECT_GT(e.events, 1'370'000);  // a tenth of the 13.7 million measured
}

// What a real run counts (RunSummary::counted_events, from the run's own counter) against the
// estimate, for every policy of `s` on its first seed: within 10x either way.
void expect_within_ten_times(const Scenario& s) {
  const Workload w = make_jobs(s, s.seeds.front());
  for (const auto& p : s.policies) {
    RunPlan plan;
    plan.telemetry = p.loaded().reads_metrics;
    plan.admission = p.admission.has_value();
    plan_search(plan, p);
    const RunEstimate e = estimate_run(s, plan);
    RunSignals signals;
    const RunSummary r = run_policy(s, w, p, s.seeds.front(), signals);
    ASSERT_GT(r.counted_events, 0u);
    const double ratio = static_cast<double>(e.events) / static_cast<double>(r.counted_events);
    EXPECT_LE(ratio, 10.0) << s.path << " " << p.name << ": estimated " << e.events << ", ran "
                           << r.counted_events;
    EXPECT_GE(ratio, 0.1) << s.path << " " << p.name << ": estimated " << e.events << ", ran "
                          << r.counted_events;
  }
}

TEST(RunEstimate, WithinTenTimesOfTheEventsOfEveryShippedScenario) {
  const std::vector<std::string> scenarios = {
      "scenarios/descheduling.yaml",
      "scenarios/failures.yaml",
      "scenarios/gangs-and-priorities.yaml",
      "scenarios/manifest-gangs.yaml",
      "scenarios/prediction.yaml",
      "scenarios/quota-flavours.yaml",
      "scenarios/seed-benchmark.yaml",
      "scenarios/seed-benchmark-hami.yaml",
      "scenarios/seed-benchmark-pcie.yaml",
      "scenarios/study/poisson-moderate.yaml",
      "scenarios/study/poisson-moderate-hami.yaml",
      "scenarios/study/poisson-moderate-mig.yaml",
      "scenarios/teams-quotas.yaml",
      "scenarios/scale/jobs1k-nodes1000.yaml",
      "scenarios/scale/jobs10k-nodes100.yaml",
      // Last: they need the data folder (the test stops at the first one absent).
      "scenarios/openb-default.yaml",
      "scenarios/pollux-workload-6.yaml",
  };
  for (const auto& path : scenarios) {
    if (path.find("openb") != std::string::npos) {
      TIDESIM_REQUIRE_FILE(data_folder() + "/traces/openb_pod_list_default.csv");
    }
    if (path.find("pollux") != std::string::npos) {
      TIDESIM_REQUIRE_FILE(data_folder() + "/pollux");
    }
    expect_within_ten_times(load_scenario(path));
  }
}

// The fuzzing finds, made small: a burst of 1-GPU jobs on one 4-card node (a backlog retried
// at every pod's end until the horizon) and card errors every 10 s (every job interrupted before
// its first checkpoint, again and again). Both were estimated below a tenth of what they ran.
TEST(RunEstimate, WithinTenTimesOfARetryStormAndAFaultStorm) {
  const std::string node =
      "cluster:\n"
      "  node_groups:\n"
      "    - {name: gpu, count: COUNT, gpu: A10, topology: a10x4-pcie}\n"
      "workload:\n"
      "  arrivals: {process: burst, count: JOBS}\n"
      "  jobs:\n"
      "    - {name: j, pod: {gpus: 1}, model: resnet50, precision: amp, batch_size: 64, "
      "steps: STEPS}\n"
      "policies: [default-k8s]\n";
  const auto make = [&node](const std::string& name, const std::string& count,
                            const std::string& jobs, const std::string& steps,
                            const std::string& rest) {
    std::string text = "name: " + name + "\n" + node + rest;
    text.replace(text.find("COUNT"), 5, count);
    text.replace(text.find("JOBS"), 4, jobs);
    text.replace(text.find("STEPS"), 5, steps);
    return scenario_from(name, text);
  };
  expect_within_ten_times(make("retry-storm", "1", "1000", "1000", "run: {until: 6h}\n"));
  expect_within_ten_times(make("fault-storm", "8", "100", "100000",
                               "faults: {card_errors: {mtbf: 10s}}\nrun: {until: 1h}\n"));
}

// Issue 46, item 4: Pollux' allocation search (every 60 s, population x generations children
// over the jobs x nodes) was in no estimate and charged to no budget: 52,824 events estimated for
// 111.5 s of CPU on 255 nodes. Its work is now charged to the run's events
// (JobPolicy::take_work) and estimated: 30 one-hour jobs on 40 nodes under pollux with 20 x 20
// children a round: about 61 rounds x 400 x 30 jobs x 40 nodes / 1,000 = 29,280 events of search,
// most of the run's. The estimate is within 3x of what the run counts.
TEST(RunEstimate, PolluxSearchIsCountedWithinThreeTimes) {
  const Scenario s = scenario_from(
      "pollux-search",
      "name: pollux-search\ncluster:\n  node_groups:\n    - {name: gpu, count: 40, gpu: A10, "
      "topology: a10x4-pcie}\nworkload:\n  arrivals: {process: burst, count: 30}\n  jobs:\n    - "
      "{name: j, pod: {gpus: 1}, model: resnet50, batch_size: 64, duration: 1h}\npolicies:\n  - "
      "{name: pollux, scheduler: default-k8s, admission: {policy: pollux, args: {population: 20, "
      "generations: 20}}}\nrun: {sample_interval: 1m}\n");
  const PolicyConfig& p = s.policies.front();
  RunPlan plan;
  plan.admission = true;
  plan_search(plan, p);
  EXPECT_EQ(plan.search.population, 20);
  EXPECT_EQ(plan.search_interval, std::chrono::seconds(60));
  const RunEstimate e = estimate_run(s, plan);
  EXPECT_GT(e.searches, e.events / 2) << e.events;
  RunSignals signals;
  const RunSummary r = run_policy(s, make_jobs(s, s.seeds.front()), p, s.seeds.front(), signals);
  const double ratio = static_cast<double>(e.events) / static_cast<double>(r.counted_events);
  EXPECT_LE(ratio, 3.0) << "estimated " << e.events << ", ran " << r.counted_events;
  EXPECT_GE(ratio, 1.0 / 3.0) << "estimated " << e.events << ", ran " << r.counted_events;
  // Without the search's charge the run counts a fraction of it.
  EXPECT_GT(r.counted_events, static_cast<std::uint64_t>(e.searches / 3));
}

TEST(RunEstimate, OverTheBudgetSaysWhatAndByHowMuch) {
  RunEstimate e;
  e.jobs = 10;
  e.pods = 20;
  e.samples = 100;
  e.nodes = 3;
  e.end = std::chrono::hours(2);
  e.checkpoints = 7;
  e.retries = 30;
  e.faults = 4;
  e.events = 2'000;
  e.memory_bytes = std::int64_t{3} << 30;
  RunBudget b;
  EXPECT_EQ(budget_problem(e, b), "");
  b.events = 1'000;
  b.memory_bytes = std::int64_t{1} << 30;
  EXPECT_EQ(budget_problem(e, b),
            "the run is estimated at 2,000 events per run (10 jobs, 20 pods, 100 samples x 3 "
            "nodes to 2h, 7 checkpoints, 0 telemetry events, 30 scheduling retries, 4 fault "
            "events), over the budget of 1,000 (--max-events); and 3.0 GiB of memory, over the "
            "budget of 1.0 GiB (--max-memory); --force runs it anyway");
  EXPECT_EQ(event_limit_problem(b, "policy p seed 3", 1'001, std::chrono::milliseconds(90'500), e),
            "--max-events 1,000 reached: policy p seed 3 passed 1,001 events at simulated time "
            "1m30s (estimated 2,000 events); raise --max-events to let it finish");
}

}  // namespace
}  // namespace tidesim
