// The Pollux artifact's application model (workloads/pollux.hpp): hand-worked on a toy
// application written for this test (tests/workloads/data/pollux/toy), then the real workload-6
// and its applications from ../shared/data (skipped when absent, failed under CI).
#include "tidesim/workloads/pollux.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "tests/common/errors.hpp"
#include "tests/common/require.hpp"
#include "tidesim/workloads/csv.hpp"
#include "tidesim/workloads/pollux_source.hpp"

namespace tidesim::workloads {
namespace {

const char* kToy = "tests/workloads/data/pollux";

// toy: validation at total batches 8 and 16 with two epochs (progress 10 and 12 after the first,
// 20 and 22 after the second; grad_sqr 1 and grad_var 1 then 3 in both), measured placements
// "1", "2" (local batches 4 and 8) and "12" (local batch 4), and a 6-node scalability run.
TEST(Pollux, ToyApplicationSettings) {
  const PolluxApplication app(kToy, "toy", 5, 0);
  EXPECT_EQ(app.init_batch_size(), 8);
  EXPECT_EQ(app.max_batch_size(), 16);
  EXPECT_EQ(app.max_epochs(), 2) << "min(5, the 2 epochs the validation runs have)";
}

TEST(Pollux, WorkIsProgressOverStatisticalEfficiency) {
  const PolluxApplication app(kToy, "toy", 5, 0);
  // progress(1) = min(10, 12) = 10, progress(2) = min(20, 22) = 20. At batch 16, scale = 16/8 = 2:
  // gain(0) = (1 + 1) / (1/2 + 1) = 4/3, gain(1) = (3 + 1) / (3/2 + 1) = 1.6;
  // W = 10 / (4/3) + 10 / 1.6 = 7.5 + 6.25 = 13.75.
  EXPECT_DOUBLE_EQ(app.work_steps(16), 13.75);
  // At batch 12 (scale 1.5; the statistics are the same at 8 and 16): gain(0) = 2 / (1/1.5 + 1)
  // = 1.2, gain(1) = 4 / (3/1.5 + 1) = 4/3; W = 10/1.2 + 10/(4/3) = 8.333... + 7.5.
  EXPECT_NEAR(app.work_steps(12), 10.0 / 1.2 + 7.5, 1e-12);
}

TEST(Pollux, LocalBatchAsTheArtifactSplitsIt) {
  const PolluxApplication app(kToy, "toy", 5, 0);
  // Batch 16 on 1 GPU: local 16 > the largest measured 8, so 1 accumulation step (also the
  // artifact's minimum for one replica above the initial batch), atomic 16 / 2 = 8.
  EXPECT_EQ(app.local_batch(16, 1).accum_steps, 1);
  EXPECT_EQ(app.local_batch(16, 1).atomic, 8);
  // Batch 12 on 2 GPUs: local 6, no accumulation.
  EXPECT_EQ(app.local_batch(12, 2).accum_steps, 0);
  EXPECT_EQ(app.local_batch(12, 2).atomic, 6);
}

TEST(Pollux, ThroughputByPlacement) {
  const PolluxApplication app(kToy, "toy", 5, 0);
  // Measured "1": linear in the local batch between 4 (1.0 s) and 8 (2.0 s).
  EXPECT_DOUBLE_EQ(app.throughput({1}, 6).step_time, 1.5);
  // {2, 1} is "12" after rotation.
  EXPECT_DOUBLE_EQ(app.throughput({2, 1}, 4).step_time, 1.5);
  EXPECT_DOUBLE_EQ(app.throughput({2, 1}, 4).sync_time, 0.5);
  // Six nodes of one GPU were not measured as a placement: the 6-node scalability run.
  EXPECT_DOUBLE_EQ(app.throughput({1, 1, 1, 1, 1, 1}, 8).step_time, 5.0);
  // Three nodes of one GPU, local batch 4: not measured; the point (3 nodes, 3 GPUs, 4) of the
  // measured configurations' triangulation lies on its edge from (1, 1, 4) ("1": 1.0 s, sync 0)
  // to (6, 6, 4) (scalability: 3.0 s, sync 1.0), 2/5 of the way: 1.0 + 0.4 x 2.0 = 1.8 s, sync
  // 0.4 s.
  EXPECT_NEAR(app.throughput({1, 1, 1}, 4).step_time, 1.8, 1e-12);
  EXPECT_NEAR(app.throughput({1, 1, 1}, 4).sync_time, 0.4, 1e-12);
  // Four nodes of one GPU at local batch 6: the point (4, 4, 6) lies on the hull's face GPUs =
  // nodes, the rectangle (1, 1, 4) 1.0 s, (1, 1, 8) 2.0 s, (6, 6, 4) 3.0 s, (6, 6, 8) 5.0 s, 3/5
  // of the way in nodes and 1/2 in local batch. Its four corners are cospherical and Qhull
  // (scipy's too) splits it along the diagonal (1, 1, 8)-(6, 6, 4); the point is on (6, 6, 8)'s
  // side of it: 5.0 + 0.4 x (2.0 - 5.0) + 0.5 x (3.0 - 5.0) = 2.8 s (3.2 s on the other diagonal);
  // sync 1.0 + 0.4 x (0 - 1.0) + 0.5 x (1.0 - 1.0) = 0.6 s.
  EXPECT_NEAR(app.throughput({1, 1, 1, 1}, 6).step_time, 2.8, 1e-12);
  EXPECT_NEAR(app.throughput({1, 1, 1, 1}, 6).sync_time, 0.6, 1e-12);
  // Seven nodes are beyond every measured configuration: an error naming the application and
  // the placement (the artifact asserts).
  const std::string message = test::message_of([&] {
    static_cast<void>(app.throughput({1, 1, 1, 1, 1, 1, 1}, 4));
  });
  EXPECT_NE(message.find("placements.csv"), std::string::npos) << message;
  EXPECT_NE(message.find("toy: placement 1111111 (7 nodes, 7 GPUs, local batch 4)"),
            std::string::npos)
      << message;
  // The job's step: batch 16 on 1 GPU, atomic 8 with 1 accumulation step:
  // 2.0 + (2.0 - 0.0) x 1 = 4.0 s.
  const PolluxSpeed speed(std::make_shared<const PolluxApplication>(kToy, "toy", 5, 0), 16, 1);
  EXPECT_DOUBLE_EQ(speed.step_seconds({1}), 4.0);
}

TEST(Pollux, WholeEpochsRoundEachEpochAsTheArtifact) {
  const auto app = std::make_shared<const PolluxApplication>(kToy, "toy", 5, 0);
  // Batch 16 on 2 GPUs: local 8, no accumulation: placement "2" at local 8, 2.2 s a step.
  // The epochs' work (WorkIsProgressOverStatisticalEfficiency): 7.5 and 6.25 steps, 16.5 s and
  // 13.75 s; W = 13.75, so the job has round(13.75) = 14 steps.
  const PolluxSpeed exact(app, 16, 2);
  EXPECT_NEAR(exact.step_seconds({2}), 2.2, 1e-12);
  // The artifact ends each epoch at a whole second, Python's round(): 16.5 -> 16 (halves to
  // even), 13.75 -> 14; 30 s over the 14 steps.
  const PolluxSpeed whole(app, 16, 2, true, 14);
  EXPECT_NEAR(whole.step_seconds({2}), 30.0 / 14.0, 1e-12);
  // The compute share of the step is kept: (2.2 - 0.2) / 2.2 of it.
  EXPECT_NEAR(whole.compute_seconds({2}), 30.0 / 14.0 * 2.0 / 2.2, 1e-12);
}

TEST(Pollux, MissingApplicationFolderIsAnInputError) {
  EXPECT_THROW(PolluxApplication(kToy, "nope", 5, 0), InputError);
}

const std::string kShared = TIDESIM_SHARED_DATA_DIR;

TEST(Pollux, Workload6HasIts160Jobs) {
  const std::string csv = kShared + "/traces/pollux_workload-6.csv";
  TIDESIM_REQUIRE_FILE(csv);
  PolluxSource src;
  src.file = csv;
  src.applications = kShared + "/pollux";
  RandomStream rng(1);
  const auto jobs = pollux_jobs(src, rng);
  ASSERT_EQ(jobs.size(), 160u);
  // The first row: cifar10-0,53,cifar10,6,2048.
  EXPECT_EQ(jobs[0].name, "cifar10-0");
  EXPECT_EQ(jobs[0].submit_time, TimePoint(std::chrono::seconds(53)));
  EXPECT_EQ(jobs[0].replicas, 6);
  EXPECT_EQ(jobs[0].pod_template.requests.gpus, 1);
  ASSERT_TRUE(jobs[0].measured);
  // cifar10 at 2048 on 6 GPUs: local ceil(2048/6) = 342 <= 1024, no accumulation; placement
  // {4, 2} is the measured "24".
  const auto& speed = dynamic_cast<const PolluxSpeed&>(*jobs[0].measured);
  EXPECT_EQ(speed.local().atomic, 342);
  EXPECT_EQ(speed.local().accum_steps, 0);
  EXPECT_DOUBLE_EQ(speed.step_seconds({4, 2}), speed.step_seconds({2, 4}));
  // bert at 384 on 6 GPUs (max local batch 12): local 64, accum ceil(64/12) - 1 = 5, atomic
  // ceil(64/6) = 11, capped at 384 / (6 x 6) = 10.
  const PolluxApplication bert(kShared + "/pollux", "bert", 2, 0);
  EXPECT_EQ(bert.local_batch(384, 6).accum_steps, 5);
  EXPECT_EQ(bert.local_batch(384, 6).atomic, 10);
  // ncf at 32768 on 1 GPU: at least 1 accumulation step, atomic 16384.
  const PolluxApplication ncf(kShared + "/pollux", "ncf", 10, 0);
  EXPECT_EQ(ncf.local_batch(32768, 1).accum_steps, 1);
  EXPECT_EQ(ncf.local_batch(32768, 1).atomic, 16384);
}

// The point (14 nodes, 37 GPUs, local batch 8) of yolov3 lies in the plane of local batch 8,
// where the scalability runs (16, 32), (12, 40), (16, 40) and (12, 32) form a square whose four
// corners are cospherical. Qhull triangulates the cells on either side of it on their own and
// splits the square along different diagonals (a flat simplex between them), so the two
// simplices that hold the point give different values. scipy's search reaches the one with the
// corners (16, 32), (12, 40), (16, 40), barycentric 3/8, 1/2, 1/8 ((14, 37) = 3/8 (16, 32) +
// 1/2 (12, 40) + 1/8 (16, 40)); the other would give 1/8 (12, 40) + 3/8 (12, 32) + 1/2 (16, 40).
TEST(Pollux, UnmeasuredPlacementTakesTheSimplexScipyFinds) {
  const std::string dir = kShared + "/pollux";
  TIDESIM_REQUIRE_FILE(dir + "/yolov3/scalability.csv");
  const PolluxApplication yolov3(dir, "yolov3", 50, 8);
  const CsvTable runs(dir + "/yolov3/scalability.csv",
                      {"num_nodes", "num_replicas", "local_bsz", "step_time", "sync_time"}, {});
  const auto step = [&runs](int nodes, int gpus) {
    for (std::size_t r = 0; r < runs.rows(); ++r) {
      if (runs.integer(r, "num_nodes", 1, 64) == nodes &&
          runs.integer(r, "num_replicas", 1, 256) == gpus &&
          runs.number(r, "local_bsz", 1, 1e9) == 8) {
        return runs.number(r, "step_time", 0, 1e9);
      }
    }
    ADD_FAILURE() << "no scalability run " << nodes << " " << gpus;
    return 0.0;
  };
  const double scipy = 0.375 * step(16, 32) + 0.5 * step(12, 40) + 0.125 * step(16, 40);
  const double other = 0.125 * step(12, 40) + 0.375 * step(12, 32) + 0.5 * step(16, 40);
  ASSERT_GT(std::abs(scipy - other), 0.01);
  // Nine nodes of 3 GPUs and five of 2: 14 nodes, 37 GPUs (no measured placement).
  const std::vector<int> placement = {3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2};
  EXPECT_NEAR(yolov3.throughput(placement, 8).step_time, scipy, 1e-12);
}

// A placement is the GPUs per node in the job's rank order, normalised to its smallest rotation
// as the artifact does (applications.py get_throughput), and the measured placements are keyed
// the same way: deepspeech2's "123" and "132" are two measurements (nodes of 1, 2, 3 GPUs around
// the ring in two orders), {3, 2, 1} and {2, 1, 3} are rotations of "132", and {1, 2, 3} is
// "123". cifar10's {2, 4, 2, 4} is its "2424", {4, 4, 2, 2} its "2244".
TEST(Pollux, PlacementsAreReadInRankOrder) {
  const std::string dir = kShared + "/pollux";
  TIDESIM_REQUIRE_FILE(dir + "/deepspeech2/placements.csv");
  TIDESIM_REQUIRE_FILE(dir + "/cifar10/placements.csv");
  const auto step_of = [&dir](const std::string& app, const std::string& placement, int local) {
    const CsvTable measured(dir + "/" + app + "/placements.csv",
                            {"placement", "local_bsz", "step_time", "sync_time"}, {});
    for (std::size_t r = 0; r < measured.rows(); ++r) {
      if (measured.text(r, "placement") == placement &&
          measured.integer(r, "local_bsz", 1, 1'000'000) == local) {
        return measured.number(r, "step_time", 0, 1e9);
      }
    }
    ADD_FAILURE() << "no measurement of " << app << " " << placement << " at " << local;
    return 0.0;
  };
  const PolluxApplication deepspeech2(dir, "deepspeech2", 80, 0);
  ASSERT_NE(step_of("deepspeech2", "123", 40), step_of("deepspeech2", "132", 40));
  EXPECT_DOUBLE_EQ(deepspeech2.throughput({3, 2, 1}, 40).step_time,
                   step_of("deepspeech2", "132", 40));
  EXPECT_DOUBLE_EQ(deepspeech2.throughput({2, 1, 3}, 40).step_time,
                   step_of("deepspeech2", "132", 40));
  EXPECT_DOUBLE_EQ(deepspeech2.throughput({1, 2, 3}, 40).step_time,
                   step_of("deepspeech2", "123", 40));
  const PolluxApplication cifar10(dir, "cifar10", 100, 0);
  ASSERT_NE(step_of("cifar10", "2244", 32), step_of("cifar10", "2424", 32));
  EXPECT_DOUBLE_EQ(cifar10.throughput({2, 4, 2, 4}, 32).step_time, step_of("cifar10", "2424", 32));
  EXPECT_DOUBLE_EQ(cifar10.throughput({4, 4, 2, 2}, 32).step_time, step_of("cifar10", "2244", 32));
  EXPECT_DOUBLE_EQ(cifar10.throughput({2, 2, 4, 4}, 32).step_time, step_of("cifar10", "2244", 32));
}

TEST(Pollux, BadWorkloadRowNamesLineAndColumn) {
  TIDESIM_REQUIRE_FILE(kShared + "/pollux/cifar10/placements.csv");
  const std::string path =
      ::testing::TempDir() + "/pollux_bad_" + std::to_string(::getpid()) + ".csv";
  std::ofstream(path) << "name,time,application,num_replicas,batch_size\n"
                         "a,0,cifar10,2,2048\n"
                         "b,5,resnet,2,2048\n";
  PolluxSource src;
  src.file = path;
  src.applications = kShared + "/pollux";
  try {
    RandomStream rng(1);
    pollux_jobs(src, rng);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 3);
    EXPECT_EQ(e.where().column, 5);  // "b,5,resnet"
    EXPECT_EQ(e.field(), "application");
  }
  std::ofstream(path) << "name,time,application,num_replicas,batch_size\n"
                         "a,0,cifar10,2,99999\n";
  try {
    RandomStream rng(1);
    pollux_jobs(src, rng);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 2);
    EXPECT_EQ(e.where().column, 15);  // "a,0,cifar10,2,99999"
    EXPECT_EQ(e.field(), "batch_size");
  }
}

// An application folder's files, with the place of each problem: a bad cell at the line and
// column where it begins, a file without rows at its column's header cell.
TEST(Pollux, BadApplicationFilesNameLineAndColumn) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / ("pollux_app_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "app");
  std::filesystem::copy(std::string(kToy) + "/toy", dir / "app");
  const auto write = [&](const char* name, const char* text) {
    std::ofstream(dir / "app" / name) << text;
  };
  // placements.csv: "12x" is no placement; it begins at line 3, column 1. A cell that is no
  // number: "1,4,abc,0.0" has step_time at 5.
  write("placements.csv", "placement,local_bsz,step_time,sync_time\n1,4,1.0,0.0\n12x,4,1.0,0.0\n");
  const std::string placements = (dir / "app" / "placements.csv").string();
  const auto error = [&] {
    return test::message_of([&] { PolluxApplication(dir.string(), "app", 5, 0); });
  };
  EXPECT_EQ(error(), placements + ":3:1: placement: expected the GPUs per node as digits 1-9");
  write("placements.csv", "placement,local_bsz,step_time,sync_time\n1,4,abc,0.0\n");
  EXPECT_EQ(error(), placements + ":2:5: step_time: 'abc' is not a number");
  // No measurement: at the header's "placement" cell, line 1 column 1.
  write("placements.csv", "placement,local_bsz,step_time,sync_time\n");
  EXPECT_EQ(error(), placements + ":1:1: placement: no measurements");
  // A validation run without epochs: at its "progress" header cell, after "iteration," (11).
  write("validation-8.csv", "iteration,progress,metric,grad_sqr,grad_var\n");
  EXPECT_EQ(error(), (dir / "app" / "validation-8.csv").string() + ":1:11: progress: no epochs");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tidesim::workloads
