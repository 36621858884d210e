// The fill experiment (sim/experiments/fill_experiment.hpp): invariants on a hand-made cluster, and
// on the shared openb data (when present) the FGD repository's expected curves, cell for cell.
#include "tidesim/sim/experiments/fill_experiment.hpp"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "tests/common/require.hpp"

namespace tidesim {
namespace {

namespace gs = policies::gpushare;

workloads::TraceRecord pod(const std::string& name, std::int64_t cpu, int gpus, int milli) {
  workloads::TraceRecord r;
  r.name = name;
  r.cpu_milli = cpu;
  r.memory_bytes = 1LL << 30;
  r.gpus_per_pod = gpus;
  r.gpu_milli = milli;
  return r;
}

FillInput small_input() {
  FillInput in;
  in.nodes.push_back({"node-a", 16000, 64LL << 30, 1, "T4", 2, {}, {}});
  in.nodes.push_back({"node-b", 16000, 64LL << 30, 2, "T4", 3, {}, {}});
  in.pods = {pod("p1", 1000, 0, 500), pod("p2", 1000, 0, 500), pod("p3", 2000, 2, 0),
             pod("p4", 2000, 2, 0), pod("p5", 1000, 0, 0)};
  return in;
}

TEST(FillExperiment, RowsCountEveryArrivalAndFailuresLeaveStateAlone) {
  FillOptions o;
  o.tune = 0;
  for (const auto policy : {gs::Policy::kRandom, gs::Policy::kDotProd, gs::Policy::kGpuClustering,
                            gs::Policy::kGpuPacking, gs::Policy::kBestFit, gs::Policy::kFgd}) {
    const FillRun r = run_fill(small_input(), policy, 1, o);
    EXPECT_EQ(r.total_gpus, 3);
    EXPECT_EQ(r.pods, 5);
    ASSERT_EQ(r.arrived.size(), 5U);
    // Requested in all: 500 + 500 + 2 x 2000 + 0 = 5000 milli; three cards hold at most 3000, and
    // the two 2-GPU pods cannot both fit (node-b is the only node with two cards): >= 1 failure.
    EXPECT_EQ(r.arrived.back(), 5000);
    EXPECT_GE(r.failed, 1);
    EXPECT_LE(r.used.back(), 3000);
    for (std::size_t i = 1; i < r.used.size(); ++i) {
      EXPECT_GE(r.used[i], r.used[i - 1]);
    }
    // Same seed, same rows.
    EXPECT_EQ(run_fill(small_input(), policy, 1, o).used, r.used);
  }
}

// Resource guards (docs/robustness.md). The estimate of small_input(): 3 cards, requests
// 500 + 500 + 2,000 + 2,000 + 0 = 5,000 milli-GPU over 5 pods (a mean pick of 1,000).
//  - tune 2: target 2 x 3,000 = 6,000; clones ceil((6,000 - 5,000) / 1,000) = 1; 6 pods, and each
//    arrival filters both nodes: 12 events;
//  - tune 0, or tune 0.5 (target 1,500 < 5,000: tuning removes pods): the 5 pods, 10 events.
TEST(FillExperiment, EstimateCountsTheTunedPodsAndTheirNodeEvaluations) {
  FillScenario fs;
  fs.input = small_input();
  fs.options.tune = 2.0;
  const RunEstimate tuned = estimate_fill(fs, 1, 1);
  EXPECT_TRUE(tuned.fill);
  EXPECT_EQ(tuned.jobs, 5);
  EXPECT_EQ(tuned.nodes, 2);
  EXPECT_EQ(tuned.cards, 3);
  EXPECT_EQ(tuned.pods, 6);
  EXPECT_EQ(tuned.events, 12);
  for (const double tune : {0.0, 0.5}) {
    fs.options.tune = tune;
    const RunEstimate e = estimate_fill(fs, 1, 1);
    EXPECT_EQ(e.pods, 5) << tune;
    EXPECT_EQ(e.events, 10) << tune;
  }
  // Memory grows with the finished runs' rows (32 bytes per pod each) and with the runs held at
  // once (each its own verdict cache and arrival order).
  const RunEstimate one = estimate_fill(fs, 1, 1);
  const RunEstimate ten = estimate_fill(fs, 10, 1);
  EXPECT_EQ(ten.memory_bytes - one.memory_bytes, 9 * 5 * 32);
  EXPECT_GT(estimate_fill(fs, 10, 4).memory_bytes, ten.memory_bytes);
}

// Only a pick with a GPU request can pass the target, so a workload without one would be cloned
// without end (the loop never broke, and memory grew until the process was killed).
TEST(FillExperiment, TuningAWorkloadWithoutGpuRequestsIsRefused) {
  FillInput in = small_input();
  in.pods = {pod("cpu-1", 1000, 0, 0), pod("cpu-2", 2000, 0, 0)};
  FillOptions o;
  o.tune = 1.3;
  EXPECT_THROW(run_fill(in, gs::Policy::kFgd, 1, o), std::invalid_argument);
  o.tune = 0;  // without tuning the two pods simply arrive
  EXPECT_EQ(run_fill(in, gs::Policy::kFgd, 1, o).pods, 2);
}

// Tune 100 on small_input() asks for 100 x 3,000 = 300,000 milli-GPU, about 295 clones of 1,000
// on average; a budget of 50 pods stops tuning with an error naming it.
TEST(FillExperiment, TuningPastTheBudgetStops) {
  FillOptions o;
  o.tune = 100;
  o.max_pods = 50;
  try {
    (void)run_fill(small_input(), gs::Policy::kBestFit, 1, o);
    FAIL() << "expected the budget to stop tuning";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("tuning made more than 50 pods"), std::string::npos)
        << e.what();
  }
  o.max_pods = 0;
  EXPECT_GT(run_fill(small_input(), gs::Policy::kBestFit, 1, o).pods, 50);
}

// The interrupt flag (a --timeout) is checked before each arrival: raised before the run, no pod
// arrives and the run says it was interrupted; lowered, it changes nothing.
TEST(FillExperiment, AnInterruptStopsTheRunBeforeItsNextArrival) {
  std::atomic<bool> flag{true};
  FillOptions o;
  o.tune = 0;
  o.interrupt = &flag;
  const FillRun cut = run_fill(small_input(), gs::Policy::kFgd, 1, o);
  EXPECT_TRUE(cut.interrupted);
  EXPECT_TRUE(cut.arrived.empty());
  flag = false;
  const FillRun whole = run_fill(small_input(), gs::Policy::kFgd, 1, o);
  EXPECT_FALSE(whole.interrupted);
  o.interrupt = nullptr;
  EXPECT_EQ(whole.used, run_fill(small_input(), gs::Policy::kFgd, 1, o).used);
}

TEST(FillExperiment, TuningStopsBeforeThePerCardShareWouldPassTheTarget) {
  FillOptions o;
  o.tune = 2.0;  // 2 x 3000 milli = 6000; the workload asks 5000
  o.keep_names = true;
  for (const auto mode : {FillRandomness::kTidesim, FillRandomness::kGoMathRand}) {
    o.randomness = mode;
    const FillRun r = run_fill(small_input(), gs::Policy::kBestFit, 7, o);
    EXPECT_EQ(r.pods, 5 + r.clones);
    // A clone is added while sum + its per-card gm <= 6000 (the FGD simulator's quirk: gm, not
    // gm x ng), so a 2-GPU clone (gm 1000, 2000 in all) may end 1000 past the target.
    EXPECT_LE(r.arrived.back(), 7000);
    EXPECT_GE(r.arrived.back(), 5000);
    for (std::int64_t i = 0; i < r.clones; ++i) {
      const std::string& name = r.names[static_cast<std::size_t>(5 + i)];
      EXPECT_NE(name.find("-tuned-" + std::to_string(i)), std::string::npos) << name;
    }
  }
}

TEST(FillExperiment, TuningDownRemovesPodsUntilWithinTheTarget) {
  FillOptions o;
  o.tune = 0.5;  // 0.5 x 3000 = 1500 milli; the workload asks 5000
  const FillRun r = run_fill(small_input(), gs::Policy::kFgd, 3, o);
  EXPECT_EQ(r.clones, 0);
  EXPECT_LT(r.pods, 5);
  EXPECT_LE(r.arrived.back(), 1500);
}

// ---- the openb experiment (../shared/data) ----

const std::string kTraces = TIDESIM_SHARED_DATA_DIR "/traces/";
const std::string kExpected = TIDESIM_SHARED_DATA_DIR "/fgd/expected_allocation_default.csv";

FillInput openb_default() {
  FillInput in;
  in.nodes = workloads::read_openb_nodes(kTraces + "openb_node_list_gpu_node.csv");
  in.pods = workloads::read_trace(kTraces + "openb_pod_list_default.csv").records;
  return in;
}

TEST(FillExperimentOpenb, GoArrivalOrderMatchesTheGoSimulator) {
  TIDESIM_REQUIRE_FILE(kTraces + "openb_pod_list_default.csv");
  const FillInput in = openb_default();
  FillOptions o;
  o.randomness = FillRandomness::kGoMathRand;
  o.keep_names = true;
  // FGD-EXPERIMENT.md: seed 42 starts openb-pod-0255, 1685, 6784, 4463, 0602, 1564 and has 10,866
  // pods, the last openb-pod-5877-tuned-2713; seed 43 has 10,793, the first openb-pod-2283.
  FillRun r = run_fill(in, gs::Policy::kDotProd, 42, o);
  const std::vector<std::string> first(r.names.begin(), r.names.begin() + 6);
  EXPECT_EQ(first,
            (std::vector<std::string>{"openb-pod-0255", "openb-pod-1685", "openb-pod-6784",
                                      "openb-pod-4463", "openb-pod-0602", "openb-pod-1564"}));
  EXPECT_EQ(r.pods, 10866);
  EXPECT_EQ(r.clones, 2714);
  EXPECT_EQ(r.names.back(), "openb-pod-5877-tuned-2713");
  EXPECT_EQ(r.total_gpus, 6212);
  r = run_fill(in, gs::Policy::kDotProd, 43, o);
  EXPECT_EQ(r.pods, 10793);
  EXPECT_EQ(r.names.front(), "openb-pod-2283");
}

// The expected file's rows: (policy label, seed) -> the 131 cells.
std::map<std::pair<std::string, int>, std::array<double, kCurvePoints>> read_expected() {
  std::map<std::pair<std::string, int>, std::array<double, kCurvePoints>> out;
  std::ifstream in(kExpected);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) {
      f.push_back(cell);
    }
    std::array<double, kCurvePoints> row{};
    for (int x = 0; x < kCurvePoints; ++x) {
      row[static_cast<std::size_t>(x)] = std::stod(f[static_cast<std::size_t>(5 + x)]);
    }
    out[{f[1], std::stoi(f[3])}] = row;
  }
  return out;
}

struct Target {
  gs::Policy policy;
  const char* label;  // the FGD repository's sc_policy
  // FGD-EXPERIMENT.md "Targets": 10-seed means at x = 50, 80, 90, 100, 110, 130.
  std::array<double, 6> mean;
};
constexpr std::array<int, 6> kX = {50, 80, 90, 100, 110, 130};
constexpr Target kTargets[] = {
    {gs::Policy::kRandom, "01-Random", {49.97, 78.66, 85.02, 86.30, 86.88, 87.47}},
    {gs::Policy::kDotProd, "02-DotProd", {50.01, 80.02, 89.98, 90.62, 90.70, 90.85}},
    {gs::Policy::kGpuClustering, "03-GpuClustering", {50.01, 80.02, 89.98, 91.65, 91.73, 91.88}},
    {gs::Policy::kGpuPacking, "04-GpuPacking", {50.01, 80.02, 89.98, 91.78, 91.85, 92.00}},
    {gs::Policy::kBestFit, "05-BestFit", {50.01, 80.02, 89.99, 92.86, 92.94, 93.08}},
    {gs::Policy::kFgd, "06-FGD", {50.01, 80.02, 89.98, 95.23, 95.30, 95.39}},
};

// The acceptance test of issue 13. Seeds 42..51 by default (about 10 s per mode on the 2-core
// development machine); TIDESIM_FGD_SEEDS=3 runs fewer.
int seed_count() {
  const char* env = std::getenv("TIDESIM_FGD_SEEDS");
  return env != nullptr ? std::max(1, std::min(10, std::atoi(env))) : 10;
}

TEST(FillExperimentOpenb, GoMathRandReproducesTheExpectedCurves) {
  TIDESIM_REQUIRE_FILE(kTraces + "openb_pod_list_default.csv");
  // The per-cell comparison is the point of the test: without the expected file it is skipped
  // (failed under CI=true), not reduced to the means.
  TIDESIM_REQUIRE_FILE(kExpected);
  const FillInput in = openb_default();
  const auto expected = read_expected();
  ASSERT_FALSE(expected.empty()) << kExpected << " has no rows";
  FillOptions o;
  o.randomness = FillRandomness::kGoMathRand;
  const int seeds = seed_count();
  for (const Target& t : kTargets) {
    std::array<double, 6> sum{};
    std::array<double, 6> sum_expected{};
    for (int seed = 42; seed < 42 + seeds; ++seed) {
      const FillRun r = run_fill(in, t.policy, seed, o);
      const auto e = expected.find({t.label, seed});
      ASSERT_NE(e, expected.end())
          << kExpected << " has no row for " << t.label << " seed " << seed;
      for (int x = 0; x < kCurvePoints; ++x) {
        const auto& cell = r.curve[static_cast<std::size_t>(x)];
        ASSERT_TRUE(cell.has_value()) << t.label << " seed " << seed << " x " << x;
        // Every cell of the deterministic policies equals the repository's.
        if (t.policy != gs::Policy::kRandom) {
          EXPECT_NEAR(*cell, e->second[static_cast<std::size_t>(x)], 1e-9)
              << t.label << " seed " << seed << " x " << x;
        }
      }
      for (std::size_t k = 0; k < kX.size(); ++k) {
        sum[k] += *r.curve[static_cast<std::size_t>(kX[k])];
        sum_expected[k] += e->second[static_cast<std::size_t>(kX[k])];
      }
    }
    for (std::size_t k = 0; k < kX.size(); ++k) {
      const double mean = sum[k] / seeds;
      // With all ten seeds the reference's means; with fewer, the expected file's.
      const double target = seeds == 10 ? t.mean[k] : sum_expected[k] / seeds;
      const double tol = t.policy == gs::Policy::kRandom ? 0.3 : 0.01;
      EXPECT_NEAR(mean, target, tol) << t.label << " x " << kX[k];
    }
  }
}

TEST(FillExperimentOpenb, TidesimRandomnessKeepsTheMeansAndTheRanking) {
  TIDESIM_REQUIRE_FILE(kTraces + "openb_pod_list_default.csv");
  if (seed_count() < 10) {
    GTEST_SKIP() << "the 10-seed means need TIDESIM_FGD_SEEDS unset or 10";
  }
  const FillInput in = openb_default();
  FillOptions o;
  o.randomness = FillRandomness::kTidesim;
  std::map<gs::Policy, double> at100;
  for (const Target& t : kTargets) {
    std::array<double, 6> sum{};
    for (int seed = 42; seed < 52; ++seed) {
      const FillRun r = run_fill(in, t.policy, seed, o);
      for (std::size_t k = 0; k < kX.size(); ++k) {
        sum[k] += *r.curve[static_cast<std::size_t>(kX[k])];
      }
    }
    at100[t.policy] = sum[3] / 10;
    const double tol =
        t.policy == gs::Policy::kRandom                                                 ? 0.3
        : t.policy == gs::Policy::kGpuClustering || t.policy == gs::Policy::kGpuPacking ? 0.3
                                                                                        : 0.2;
    if (t.policy == gs::Policy::kRandom) {
      continue;  // only the ranking is asked of Random here
    }
    for (std::size_t k = 0; k < kX.size(); ++k) {
      EXPECT_NEAR(sum[k] / 10, t.mean[k], tol) << t.label << " x " << kX[k];
    }
  }
  // FGD > BestFit > GpuPacking > GpuClustering > DotProd > Random at x = 100.
  EXPECT_GT(at100[gs::Policy::kFgd], at100[gs::Policy::kBestFit]);
  EXPECT_GT(at100[gs::Policy::kBestFit], at100[gs::Policy::kGpuPacking]);
  EXPECT_GT(at100[gs::Policy::kGpuPacking], at100[gs::Policy::kGpuClustering]);
  EXPECT_GT(at100[gs::Policy::kGpuClustering], at100[gs::Policy::kDotProd]);
  EXPECT_GT(at100[gs::Policy::kDotProd], at100[gs::Policy::kRandom]);
}

}  // namespace
}  // namespace tidesim
