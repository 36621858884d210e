// Gavel's and Shockwave's trace layouts (workloads/gavel_trace).
#include "tidesim/workloads/gavel_trace.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/common/require.hpp"
#include "tidesim/sim/input/data_folder.hpp"
#include "tidesim/workloads/gavel_jobs.hpp"

namespace tidesim::workloads {
namespace {

const std::string kData = std::string(TIDESIM_SOURCE_DIR) + "/tests/workloads/data/gavel/";

std::string error_of(const std::string& text,
                     GavelTraceFormat format = GavelTraceFormat::automatic) {
  try {
    (void)parse_gavel_trace(text, "t.trace", format);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(GavelTrace, ReadsTheMsrLayout) {
  const auto jobs = read_gavel_trace(kData + "msr_small.trace");
  ASSERT_EQ(jobs.size(), 2U);  // the row of scale factor 0 is skipped, as Gavel's loader does
  EXPECT_EQ(jobs[0].job_type, "A (batch size 8)");
  EXPECT_EQ(jobs[0].command, "python3 train.py --bs 8");
  EXPECT_EQ(jobs[0].num_steps_arg, "--steps");
  EXPECT_TRUE(jobs[0].needs_data_dir);
  EXPECT_EQ(jobs[0].total_steps, 1200);
  EXPECT_EQ(jobs[0].arrival_time_s, 0.0);
  EXPECT_EQ(jobs[0].scale_factor, 1);
  EXPECT_EQ(jobs[0].priority_weight, 1.0);
  EXPECT_EQ(jobs[0].line, 1);
  EXPECT_EQ(jobs[1].job_type, "C");
  EXPECT_EQ(jobs[1].arrival_time_s, 30.0);
  EXPECT_EQ(jobs[1].scale_factor, 2);
  EXPECT_EQ(jobs[1].line, 3);
  EXPECT_EQ(jobs[1].key(), (JobTypeKey{"C", 2}));
}

TEST(GavelTrace, ReadsThePhysicalAndShockwaveLayouts) {
  const auto physical = read_gavel_trace(kData + "physical_small.trace");
  ASSERT_EQ(physical.size(), 2U);
  EXPECT_EQ(physical[1].working_directory, "dir/c");
  EXPECT_FALSE(physical[1].needs_data_dir);
  EXPECT_EQ(physical[1].scale_factor, 2);
  EXPECT_EQ(physical[1].priority_weight, 5.0);
  EXPECT_EQ(physical[1].slo, 3600.5);
  EXPECT_EQ(physical[1].arrival_time_s, 120.0);
  EXPECT_EQ(physical[0].slo, -1.0);
  const auto shockwave = read_gavel_trace(kData + "shockwave_small.trace");
  ASSERT_EQ(shockwave.size(), 2U);
  EXPECT_EQ(shockwave[0].mode, "gns");
  EXPECT_EQ(shockwave[0].duration_s, 1418.0);
  EXPECT_EQ(shockwave[1].mode, "accordion");
  EXPECT_EQ(shockwave[1].arrival_time_s, 55.0);
  // A layout asked for must match.
  EXPECT_NE(error_of("A\tc\t-n\t1\t5\t0\t1\n", GavelTraceFormat::physical)
                .find("t.trace:1:1: expected 10 tab-separated columns"),
            std::string::npos);
}

TEST(GavelTrace, BadRowsNameTheirPlace) {
  // "A\tc\t-n\t1\t" is 9 bytes: total_steps starts at column 10.
  EXPECT_EQ(error_of("A\tc\t-n\t1\tmany\t0\t1\n"),
            "t.trace:1:10: total_steps: expected an integer in [1, 1125899906842624], not 'many'");
  EXPECT_EQ(error_of("A\tc\t-n\t1\t5\t0\t1\nA\tc\t-n\t1\t5\t-3\t1\n"),
            "t.trace:2:12: arrival_time: expected a number in [0.000000, 100000000000.000000], "
            "not '-3'");
  EXPECT_EQ(error_of("A\tc\t-n\t2\t5\t0\t1\n"),
            "t.trace:1:8: needs_data_dir: expected an integer in [0, 1], not '2'");
  EXPECT_EQ(error_of("\tc\t-n\t1\t5\t0\t1\n"), "t.trace:1:1: job_type: a job needs a job type");
  EXPECT_NE(error_of("A\tc\t-n\t1\t5\t0\t1\nA\tc\n").find("t.trace:2:1: expected 7"),
            std::string::npos);
  EXPECT_NE(error_of("A\tc\n").find("t.trace:1:1: a Gavel trace row has 7 (MSR), 10"),
            std::string::npos);
  EXPECT_NE(error_of("A\tc\td\t-n\t1\t5\t0\t1\t-1\t0\n")
                .find("scale_factor: expected an "
                      "integer in [1, "),
            std::string::npos);  // scale factor 0 only skipped in the MSR layout
  EXPECT_NE(error_of("A\tc\td\t-n\t1\t5\t1\tfast\t1\t-1\t9\t0\n")
                .find("mode: expected static, accordion or gns, not 'fast'"),
            std::string::npos);
  EXPECT_EQ(error_of(""), "t.trace: the trace has no job");
  EXPECT_EQ(error_of("A\tc\t-n\t1\t5\t0\t0\n"), "t.trace: the trace has no job");
  EXPECT_EQ(error_of("A\tc\t-n\t1\t5\t0\t1\r\n"), "");  // Windows line ends
}

TEST(GavelTrace, JobTypesAreCheckedAgainstTheTable) {
  const auto table = read_throughput_table(kData + "throughputs_small.json");
  const std::string file = kData + "msr_small.trace";
  const auto jobs = read_gavel_trace(file);
  check_gavel_trace(jobs, file, table, {"fast", "slow"});
  try {
    check_gavel_trace(jobs, file, table, {"slow"});  // C at scale factor 2 runs only on "fast"
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("msr_small.trace:3:1: job_type: job type ('C', 2) has "
                                         "a zero throughput on every GPU type"),
              std::string::npos)
        << e.what();
  }
  auto unknown = jobs;
  unknown[0].job_type = "Z";
  EXPECT_THROW(check_gavel_trace(unknown, file, table, {"fast"}), InputError);
}

// The real traces, counts and first rows as Python's line.split('\t') reads them.
// A row's priority weight and SLO reach the policies: physical_small.trace's job C has weight 5
// (column 8) and SLO 3600.5 (column 9), job A 1 and none.
TEST(GavelTrace, PriorityWeightsReachTheJobs) {
  GavelSource s;
  s.trace = kData + "physical_small.trace";
  s.throughputs = kData + "throughputs_small.json";
  s.gpu_types = {{"Fast", "fast"}, {"Slow", "slow"}};
  s.reference_gpu = "Fast";
  const auto jobs = gavel_jobs(s, 0);
  ASSERT_EQ(jobs.size(), 2U);
  EXPECT_EQ(gavel_priority_weight(*jobs[0].measured), 1.0);
  EXPECT_EQ(gavel_priority_weight(*jobs[1].measured), 5.0);
  // Job C's SLO 3600.5 x its run time alone on Fast (40 steps at 1 step/s): 144,020 s to its
  // deadline; job A has none (-1).
  EXPECT_FALSE(gavel_slo_seconds(*jobs[0].measured));
  EXPECT_DOUBLE_EQ(gavel_slo_seconds(*jobs[1].measured).value_or(0.0), 3600.5 * 40.0);
}

// Whole steps a round (GavelSource::whole_steps_round_s, Gavel's int(throughput x round)): with
// a round of 0.7 s, A (4 steps/s alone on "fast") runs int(2.8) = 2 steps a round, 2 / 0.7 steps
// per second; B (2 steps/s) int(1.4) = 1; together (the table's [3, 1.5]) int(2.1) = 2 and
// int(1.05) = 1. The policies' throughputs stay the table's. Off (0), the step is the table's.
TEST(GavelTrace, WholeStepsARound) {
  GavelSource s;
  s.trace = std::string(TIDESIM_SOURCE_DIR) + "/tests/sim/experiments/data/packed_pair.trace";
  s.throughputs = kData + "throughputs_small.json";
  s.gpu_types = {{"Fast", "fast"}};
  s.reference_gpu = "Fast";
  const auto plain = gavel_jobs(s, 0);
  s.whole_steps_round_s = 0.7;
  const auto whole = gavel_jobs(s, 0);
  ASSERT_EQ(whole.size(), 2U);
  const auto& a = dynamic_cast<const GavelSpeed&>(*whole[0].measured);
  const auto& b = dynamic_cast<const GavelSpeed&>(*whole[1].measured);
  EXPECT_DOUBLE_EQ(a.step_seconds_on("Fast", {1}, 0.0), 0.7 / 2.0);
  EXPECT_DOUBLE_EQ(b.step_seconds_on("Fast", {1}, 0.0), 0.7 / 1.0);
  EXPECT_DOUBLE_EQ(plain[0].measured->step_seconds_on("Fast", {1}, 0.0), 0.25);
  EXPECT_EQ(a.throughputs_at(0.0), (std::vector<std::pair<std::string, double>>{{"Fast", 4.0}}));
  const auto table = a.colocated_on("Fast", b);
  const auto run = a.colocated_run_on("Fast", b);
  ASSERT_TRUE(table && run);
  EXPECT_DOUBLE_EQ(table->first, 3.0);
  EXPECT_DOUBLE_EQ(table->second, 1.5);
  EXPECT_DOUBLE_EQ(run->first, 2.0 / 0.7);
  EXPECT_DOUBLE_EQ(run->second, 1.0 / 0.7);
  // Less than a step a round is left as it is (Gavel's job would never progress).
  EXPECT_DOUBLE_EQ(a.whole_steps(1.0), 1.0);
}

TEST(GavelTrace, ReadsGavelsAndShockwavesTraces) {
  const std::string data = data_folder();
  TIDESIM_REQUIRE_FILE(data + "/gavel/msr/seed=0/0e4a51.trace");
  std::size_t msr = 0;
  for (const auto& entry : std::filesystem::directory_iterator(data + "/gavel/msr/seed=0")) {
    msr += read_gavel_trace(entry.path().string()).size();
  }
  EXPECT_EQ(msr, 15264U);
  const auto first = read_gavel_trace(data + "/gavel/msr/seed=0/0e4a51.trace");
  EXPECT_EQ(first[0].job_type, "Transformer (batch size 128)");
  EXPECT_EQ(first[0].total_steps, 95121);
  EXPECT_EQ(first[0].scale_factor, 1);
  const auto table = read_throughput_table(data + "/gavel/simulation_throughputs.json");
  const std::string mmf = data + "/gavel/physical_cluster/max_min_fairness.trace";
  const auto physical = read_gavel_trace(mmf);
  ASSERT_EQ(physical.size(), 96U);
  EXPECT_EQ(physical[0].job_type, "ResNet-18 (batch size 128)");
  EXPECT_EQ(physical[0].total_steps, 925982);
  EXPECT_EQ(physical[0].scale_factor, 4);
  check_gavel_trace(physical, mmf, table, {"v100", "p100", "k80"});
  const std::string sw =
      data + "/shockwave/120_0.2_5_100_40_25_0,0.5,0.5_0.6,0.3,0.09,0.01_multigpu_dynamic.trace";
  const auto shockwave = read_gavel_trace(sw);
  ASSERT_EQ(shockwave.size(), 120U);
  EXPECT_EQ(shockwave[0].job_type, "LM (batch size 10)");
  EXPECT_EQ(shockwave[0].total_steps, 134583);
  EXPECT_EQ(shockwave[0].mode, "gns");
  EXPECT_EQ(shockwave[0].duration_s, 1418.0);
  check_gavel_trace(shockwave, sw, read_throughput_table(data + "/shockwave/tacc_throughputs.json"),
                    {"v100"});
}

// whole_steps runs Gavel's layouts only: on a trace of Shockwave's layout (whole epochs, batch
// sizes by epoch) it is an error at the first such row, not an option silently left unused.
TEST(GavelTrace, WholeStepsRefuseShockwavesLayout) {
  const std::string data = data_folder();
  GavelSource s;
  s.trace =
      data + "/shockwave/120_0.2_5_100_40_25_0,0.5,0.5_0.6,0.3,0.09,0.01_multigpu_dynamic.trace";
  TIDESIM_REQUIRE_FILE(s.trace);
  s.throughputs = data + "/shockwave/tacc_throughputs.json";
  s.gpu_types = {{"V100-SXM2-16", "v100"}};
  s.reference_gpu = "V100-SXM2-16";
  EXPECT_EQ(gavel_jobs(s, 0).size(), 120U);
  s.whole_steps_round_s = 120.0;
  try {
    (void)gavel_jobs(s, 0);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("multigpu_dynamic.trace:1:1: whole_steps: "),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tidesim::workloads
