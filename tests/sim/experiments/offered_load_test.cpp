// The offered load (sim/experiments/offered_load.hpp): GPU-seconds asked over capacity x arrival
// window, each job at the run time the model gives it alone on its reference placement (its
// stated run time, by the stated-run-time rule), gangs with all their GPUs.
#include "tidesim/sim/experiments/offered_load.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>

#include "tidesim/sim/model/reference_speed.hpp"

namespace tidesim {
namespace {

// tests/sim/data/overload.yaml: a day of Poisson arrivals on 2 x 8 H100, nine in ten 1-GPU jobs
// of 1 h and one in ten 8-GPU jobs of 1 h, at about 190% (the file's comment works it out).
TEST(OfferedLoad, ADayAtAboutTwiceTheCapacityWarns) {
  const Scenario s = load_scenario("tests/sim/data/overload.yaml");
  const Workload w = make_jobs(s, 1);
  const OfferedLoad load = offered_load(s, w);
  EXPECT_EQ(load.jobs, 429);
  EXPECT_EQ(load.unknown, 0);
  EXPECT_EQ(load.capacity_gpus, 16.0);
  // Every job runs its stated hour alone (a step is whole: within 1%), so the GPU-seconds are
  // 3,600 x the GPUs asked.
  double gpus = 0;
  double first = 1e300;
  double last = 0;
  for (const auto& job : w.jobs) {
    gpus += static_cast<double>(job.pod_template.requests.gpus * job.replicas);
    first = std::min(first, to_seconds(job.submit_time));
    last = std::max(last, to_seconds(job.submit_time));
  }
  EXPECT_NEAR(load.gpu_seconds, 3600.0 * gpus, 0.01 * 3600.0 * gpus);
  EXPECT_DOUBLE_EQ(load.window_s(), last - first);
  ASSERT_TRUE(load.load());
  EXPECT_NEAR(*load.load(), load.gpu_seconds / (16.0 * (last - first)), 1e-12);
  // 1.7 GPU-h a job on average, one per 201 s: 1.7 x 3,600 / (16 x 201) = 1.90, and this draw's.
  EXPECT_GT(*load.load(), 1.8);
  EXPECT_LT(*load.load(), 2.1);
  const auto warning = overload_warning(load);
  ASSERT_TRUE(warning);
  EXPECT_TRUE(warning->starts_with("offered load 19")) << *warning;
  EXPECT_NE(warning->find("the queue grows for as long as jobs arrive"), std::string::npos);
  const auto lines = offered_load_lines(load);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_TRUE(lines[1].starts_with("  single: ")) << lines[1];
  EXPECT_NE(lines[1].find("of 1 GPU, 60.0 min alone on H100-SXM"), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find("of 8 GPUs, 60.0 min alone on H100-SXM"), std::string::npos) << lines[2];
}

// A gang asks all its GPUs: 2 pods x 8 GPUs is 16 GPUs for its 2 h.
TEST(OfferedLoad, GangsCountAllTheirGpus) {
  const Scenario s = load_scenario("tests/sim/data/two_gpu_models.yaml");
  const OfferedLoad load = offered_load(s, make_jobs(s, 1));
  const auto gang = std::find_if(load.classes.begin(), load.classes.end(),
                                 [](const JobClassLoad& c) { return c.name == "gang"; });
  ASSERT_NE(gang, load.classes.end());
  EXPECT_DOUBLE_EQ(gang->gpus, 16.0 * static_cast<double>(gang->jobs));
  EXPECT_NEAR(gang->gpu_seconds, 16.0 * 7200.0 * static_cast<double>(gang->jobs),
              0.01 * 16.0 * 7200.0 * static_cast<double>(gang->jobs));
  EXPECT_EQ(gang->reference_gpu, "H100-SXM");
  EXPECT_EQ(load.capacity_gpus, 24.0);  // 2 x 4 A100 + 2 x 8 H100
}

// Jobs that arrive at once have no arrival window: no load, no warning; the line says how long
// the whole cluster needs for the work. The makespan line compares with that time.
TEST(OfferedLoad, ABurstIsComparedWithTheClustersTimeForTheWork) {
  OfferedLoad load;
  load.jobs = 4;
  load.gpu_seconds = 4 * 3600.0;
  load.capacity_gpus = 2;
  EXPECT_FALSE(load.load());
  EXPECT_FALSE(overload_warning(load));
  EXPECT_EQ(offered_load_lines(load).front(),
            "jobs arrive at once: 4 GPU-h asked, 2.0 h of the whole cluster's 2 GPUs (run times "
            "alone on each job's reference GPU)");
  EXPECT_EQ(makespan_line(load, {{"fifo", 3.0 * 3600.0, false}, {"srtf", 4.0 * 3600.0, true}}),
            "makespan against the whole cluster's time for the work (2.0 h): fifo 3.0 h (1.5 x), "
            "srtf 4.0 h (jobs unfinished at the end) (2.0 x)");
  load.last_submit_s = 3.0 * 3600.0;
  EXPECT_EQ(makespan_line(load, {{"fifo", 9.0 * 3600.0, false}}),
            "makespan against the arrival window (3.0 h): fifo 9.0 h (3.0 x)");
}

// A job's stated run time is measured on the cluster's GPU model with the most GPUs, never on
// the first node group's: listing the H100 group before the A100 group, or after it, gives
// every job the same steps and the same run time alone.
TEST(StatedRunTime, TheOrderOfNodeGroupsChangesNoJobsRunTime) {
  const Scenario a100_first = load_scenario("tests/sim/data/two_gpu_models.yaml");
  Scenario h100_first = a100_first;
  std::swap(h100_first.cluster.groups[0], h100_first.cluster.groups[1]);
  ASSERT_EQ(h100_first.cluster.groups[0].name, "h100");
  EXPECT_EQ(default_reference_gpu(a100_first), "H100-SXM");
  EXPECT_EQ(default_reference_gpu(h100_first), "H100-SXM");
  const Workload a = make_jobs(a100_first, 1);
  const Workload b = make_jobs(h100_first, 1);
  ASSERT_EQ(a.jobs.size(), b.jobs.size());
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    EXPECT_EQ(a.jobs[i].steps, b.jobs[i].steps) << a.jobs[i].name;
    EXPECT_EQ(a.jobs[i].reference_step_seconds, b.jobs[i].reference_step_seconds) << a.jobs[i].name;
  }
  // And that run time is the stated one (1 h or 2 h, within a step).
  const OfferedLoad la = offered_load(a100_first, a);
  const OfferedLoad lb = offered_load(h100_first, b);
  EXPECT_EQ(la.gpu_seconds, lb.gpu_seconds);
  for (const auto& c : la.classes) {
    const double stated = c.name == "gang" ? 7200.0 : 3600.0;
    EXPECT_NEAR(c.run_seconds / static_cast<double>(c.jobs), stated, 0.01 * stated) << c.name;
  }
}

}  // namespace
}  // namespace tidesim
