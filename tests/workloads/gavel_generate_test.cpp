// CPython's random draws (workloads/python_random.hpp) and Gavel's job generator
// (workloads/gavel_generate.hpp). Every expected number below was printed by CPython 3.11's
// `random` module (/usr/bin/python3) running the same calls, and for the generator by Gavel's
// own functions (scheduler/utils.py: _generate_scale_factor, _generate_duration, generate_job;
// scheduler.py: _sample_arrival_time_delta) copied into a script: the C++ must give the same
// doubles to the last bit.
#include "tidesim/workloads/gavel_generate.hpp"

#include <gtest/gtest.h>

#include <string>

#include "tests/common/require.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"
#include "tidesim/workloads/gavel_jobs.hpp"
#include "tidesim/workloads/python_random.hpp"
#include "tidesim/workloads/workload_spec.hpp"

namespace tidesim::workloads {
namespace {

TEST(PythonRandom, MatchesCPythonDraws) {
  // random.Random(2).random() three times.
  PythonRandom two(2);
  EXPECT_EQ(two.random(), 0.9560342718892494);
  EXPECT_EQ(two.random(), 0.9478274870593494);
  EXPECT_EQ(two.random(), 0.05655136772680869);
  // random.Random(0): random(), getrandbits(5), randrange(26), uniform(1.5, 3).
  PythonRandom zero(0);
  EXPECT_EQ(zero.random(), 0.8444218515250481);
  EXPECT_EQ(zero.getrandbits(5), 24U);
  EXPECT_EQ(zero.randbelow(26), 13U);
  EXPECT_EQ(zero.uniform(1.5, 3), 1.5607265672711663);
  // A seed of two 32-bit words: random.Random(2**40 + 7).random().
  PythonRandom wide((std::uint64_t{1} << 40) + 7);
  EXPECT_EQ(wide.random(), 0.6137037779936511);
}

TEST(GavelGenerate, JobTableIsGavels) {
  const auto& t = gavel_job_table();
  ASSERT_EQ(t.size(), 26U);
  EXPECT_EQ(t[0].job_type, "ResNet-18 (batch size 16)");
  EXPECT_EQ(t[8].job_type, "ResNet-50 (batch size 128)");
  EXPECT_EQ(t[18].job_type, "LM (batch size 80)");
  EXPECT_TRUE(t[18].distributed);
  EXPECT_EQ(t[19].job_type, "Recommendation (batch size 512)");
  EXPECT_FALSE(t[19].distributed);
  EXPECT_EQ(t[24].job_type, "A3C");
  EXPECT_EQ(t[25].job_type, "CycleGAN");
}

// A table where every job type runs 1 step/s on v100 at every scale factor: steps = duration.
ThroughputTable unit_table() {
  std::string text = "{\"v100\": {";
  bool first = true;
  for (const auto& t : gavel_job_table()) {
    for (const int sf : {1, 2, 4, 8}) {
      text += std::string(first ? "" : ", ") + "\"('" + t.job_type + "', " + std::to_string(sf) +
              ")\": {\"null\": 1.0}";
      first = false;
    }
  }
  return parse_throughput_table(text + "}}", "unit.json");
}

TEST(GavelGenerate, ContinuousSingleSeed0) {
  // Gavel's run_sweep_continuous.py at 3.0 jobs/h (lam = 3600 / 3.0), seed 0: the first four jobs.
  GavelGenerate g;
  g.rate_per_hour = 3.0;
  g.jobs = 4;
  const auto jobs = generate_gavel_jobs(g, 0, unit_table(), "v100");
  ASSERT_EQ(jobs.size(), 4U);
  EXPECT_EQ(jobs[0].job_type, "ResNet-18 (batch size 64)");
  EXPECT_EQ(jobs[0].total_steps, 68344);  // duration 68344.35010595087 s
  EXPECT_EQ(jobs[0].arrival_time_s, 0.0);
  EXPECT_EQ(jobs[1].job_type, "Transformer (batch size 16)");
  EXPECT_EQ(jobs[1].total_steps, 31017);  // 31016.60914593223 s
  EXPECT_EQ(jobs[1].arrival_time_s, 326.114763880402);
  EXPECT_EQ(jobs[2].job_type, "Recommendation (batch size 2048)");
  EXPECT_EQ(jobs[2].arrival_time_s, 1269.0331033721277);
  EXPECT_EQ(jobs[3].job_type, "Recommendation (batch size 8192)");
  EXPECT_EQ(jobs[3].total_steps, 7387);  // 7386.674819745945 s
  EXPECT_EQ(jobs[3].arrival_time_s, 1823.3902608751832);
  for (const auto& j : jobs) {
    EXPECT_EQ(j.scale_factor, 1);
    EXPECT_EQ(j.priority_weight, 1.0);
  }
}

TEST(GavelGenerate, ContinuousMultipleDrawsScaleFactors) {
  // --generate-multi-gpu-jobs at 1.5 jobs/h, seed 0: the same stream, the scale factor now kept
  // (job 0: 8 GPUs; job 4: 4), the types redrawn until distributed.
  GavelGenerate g;
  g.mode = "continuous-multiple";
  g.rate_per_hour = 1.5;
  g.jobs = 6;
  const auto jobs = generate_gavel_jobs(g, 0, unit_table(), "v100");
  const std::vector<std::pair<std::string, int>> want = {{"ResNet-18 (batch size 64)", 8},
                                                         {"Transformer (batch size 16)", 1},
                                                         {"Recommendation (batch size 2048)", 1},
                                                         {"Recommendation (batch size 8192)", 1},
                                                         {"LM (batch size 5)", 4},
                                                         {"Transformer (batch size 64)", 1}};
  ASSERT_EQ(jobs.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(jobs[i].job_type, want[i].first) << i;
    EXPECT_EQ(jobs[i].scale_factor, want[i].second) << i;
  }
  EXPECT_EQ(jobs[4].total_steps, 6859);  // 6858.69820697011 s
  EXPECT_EQ(jobs[4].arrival_time_s, 5869.514518648988);
  EXPECT_EQ(jobs[5].arrival_time_s, 8228.119105264013);
}

TEST(GavelGenerate, JobTableBefore2020_08_29) {
  // job_table.py before Gavel's 19a0dd2 (as at da5bc09^): A3C at index 14, the LMs after it.
  const auto& t = gavel_job_table(GavelGenerate::JobTable::kBefore2020_08_29);
  ASSERT_EQ(t.size(), 26U);
  EXPECT_EQ(t[13].job_type, "Transformer (batch size 256)");
  EXPECT_EQ(t[14].job_type, "A3C");
  EXPECT_FALSE(t[14].distributed);
  EXPECT_EQ(t[15].job_type, "LM (batch size 5)");
  EXPECT_EQ(t[20].job_type, "Recommendation (batch size 512)");
  EXPECT_EQ(t[25].job_type, "CycleGAN");
}

TEST(GavelGenerate, OlderJobTableMapsTheSameDrawsToOtherTypes) {
  // The same seed-0 draws as ContinuousMultipleDrawsScaleFactors, mapped by the older order:
  // Gavel's _generate_job at da5bc09^ (scheduler.py) with that commit's job_table.py, run by
  // CPython 3.11. Durations and arrivals do not depend on the order; the types do.
  GavelGenerate g;
  g.mode = "continuous-multiple";
  g.rate_per_hour = 1.5;
  g.jobs = 6;
  g.job_table = GavelGenerate::JobTable::kBefore2020_08_29;
  const auto jobs = generate_gavel_jobs(g, 0, unit_table(), "v100");
  const std::vector<std::pair<std::string, int>> want = {{"ResNet-18 (batch size 64)", 8},
                                                         {"Transformer (batch size 16)", 1},
                                                         {"Recommendation (batch size 1024)", 1},
                                                         {"Recommendation (batch size 4096)", 1},
                                                         {"LM (batch size 10)", 4},
                                                         {"A3C", 1}};
  ASSERT_EQ(jobs.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(jobs[i].job_type, want[i].first) << i;
    EXPECT_EQ(jobs[i].scale_factor, want[i].second) << i;
  }
  EXPECT_EQ(jobs[4].total_steps, 6859);  // 6858.69820697011 s
  EXPECT_EQ(jobs[5].total_steps, 2086);  // 2086.0203268704167 s
  EXPECT_EQ(jobs[5].arrival_time_s, 8228.119105264013);
}

TEST(GavelGenerate, PrioritiesAndStatic) {
  // Seed 1 with --generate-multi-priority-jobs: the weight draw follows each job's type.
  GavelGenerate g;
  g.mode = "static-multiple";
  g.jobs = 3;
  g.multi_priority = true;
  const auto jobs = generate_gavel_jobs(g, 1, unit_table(), "v100");
  ASSERT_EQ(jobs.size(), 3U);
  EXPECT_EQ(jobs[0].job_type, "Recommendation (batch size 512)");
  EXPECT_EQ(jobs[1].job_type, "LM (batch size 10)");
  EXPECT_EQ(jobs[2].job_type, "LM (batch size 40)");
  EXPECT_EQ(jobs[2].total_steps, 177180);  // 177180.02470571458 s
  for (const auto& j : jobs) {
    EXPECT_EQ(j.arrival_time_s, 0.0);  // static: lam = 0
    EXPECT_EQ(j.priority_weight, 1.0);
  }
}

TEST(GavelGenerate, SlosFromTheirOwnStream) {
  // --assign_SLOs, seed 0: random.Random(6).uniform(0, 1) gives 0.793..., 0.822..., 0.485...,
  // 0.262..., 0.00045..., 0.663... (CPython 3.11): SLOs 10, 10, 2, 1.2, 1.2, 2. The jobs' own
  // draws are untouched (the same types as ContinuousMultipleDrawsScaleFactors).
  GavelGenerate g;
  g.mode = "continuous-multiple";
  g.rate_per_hour = 1.5;
  g.jobs = 6;
  g.slos = true;
  const auto jobs = generate_gavel_jobs(g, 0, unit_table(), "v100");
  const std::vector<double> want = {10.0, 10.0, 2.0, 1.2, 1.2, 2.0};
  ASSERT_EQ(jobs.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(jobs[i].slo, want[i]) << i;
  }
  EXPECT_EQ(jobs[4].job_type, "LM (batch size 5)");
  g.slos = false;
  EXPECT_EQ(generate_gavel_jobs(g, 0, unit_table(), "v100")[0].slo, -1.0);
}

TEST(GavelGenerate, MissingTypeIsAnError) {
  GavelGenerate g;
  g.rate_per_hour = 3.0;
  g.jobs = 1;
  g.where = {"s.yaml", 4, 5};
  const auto table = parse_throughput_table("{\"v100\": {\"('A3C', 1)\": {\"null\": 1.0}}}", "t");
  try {
    generate_gavel_jobs(g, 0, table, "v100");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("s.yaml:4:5"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("('ResNet-18 (batch size 64)', 1)"), std::string::npos)
        << e.what();
  }
}

TEST(GavelGenerate, GavelsTableJob4999) {
  // With Gavel's simulation_throughputs.json: job 4999 of continuous-single at 3.0 jobs/h, seed 0
  // (the last job of Gavel's measured window) and job 0's steps (68344.35... s x 24.09... steps/s).
  const std::string path = TIDESIM_SHARED_DATA_DIR "/gavel/simulation_throughputs.json";
  TIDESIM_REQUIRE_FILE(path);
  GavelSource s;
  s.throughputs = path;
  s.gpu_types = {{"V100-SXM2-16", "v100"}, {"P100", "p100"}, {"K80", "k80"}};
  GavelGenerate g;
  g.rate_per_hour = 3.0;
  g.jobs = 5000;
  s.generate = g;
  const auto jobs = gavel_jobs(s, 0);
  ASSERT_EQ(jobs.size(), 5000U);
  EXPECT_EQ(jobs[0].name, "0");
  EXPECT_EQ(jobs[0].steps, 1646636);  // 1646636.2758419
  EXPECT_EQ(jobs[4999].name, "4999");
  EXPECT_EQ(jobs[4999].job_class, "Recommendation (batch size 1024)");
  EXPECT_EQ(jobs[4999].steps, 184356);  // 184356.37842165056
  // The run's clock has whole microseconds: the generator's double, then the job's time.
  const auto rows = generate_gavel_jobs(g, 0, read_throughput_table(path), "v100");
  EXPECT_EQ(rows[4999].arrival_time_s, 5936902.956814543);
  EXPECT_NEAR(to_seconds(jobs[4999].submit_time.time_since_epoch()), 5936902.956814543, 1e-6);
}

std::string error_of(const std::string& gavel) {
  try {
    const std::string text = "workload:\n  gavel:\n" + gavel +
                             "    throughputs: tests/workloads/data/gavel/throughputs_small.json\n";
    const auto doc = load_yaml_string(text, "s.yaml");
    (void)parse_workload(doc["workload"], "s.yaml", TIDESIM_SOURCE_DIR);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(GavelGenerate, BadSectionsAreErrors) {
  EXPECT_NE(error_of("    generate: {mode: continuous-odd, rate_per_hour: 1, jobs: 3}\n")
                .find("workload.gavel.generate.mode"),
            std::string::npos);
  EXPECT_NE(error_of("    generate: {mode: continuous-single, jobs: 3}\n")
                .find("workload.gavel.generate.rate_per_hour"),
            std::string::npos);
  EXPECT_NE(error_of("    generate: {rate_per_hour: 0, jobs: 3}\n").find("rate_per_hour"),
            std::string::npos);
  EXPECT_NE(error_of("    generate: {rate_per_hour: 1, jobs: 3}\n"
                     "    trace: tests/workloads/data/gavel/msr_small.trace\n")
                .find("give one of trace or generate"),
            std::string::npos);
  EXPECT_NE(error_of("    generate: {rate_per_hour: 1, jobs: 3, job_table: 2019}\n")
                .find("workload.gavel.generate.job_table"),
            std::string::npos);
  EXPECT_EQ(error_of("    generate: {mode: static-multiple, jobs: 3, seed: 2}\n"), "(no error)");
  EXPECT_EQ(error_of("    generate: {rate_per_hour: 1, jobs: 3, job_table: before-2020-08-29}\n"),
            "(no error)");
}

}  // namespace
}  // namespace tidesim::workloads
