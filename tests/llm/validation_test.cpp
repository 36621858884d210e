// The model against published measurements: Korthikanti et al., "Reducing Activation
// Recomputation in Large Transformer Models" (arXiv 2205.05198), Table 5 (seconds per iteration of
// four Megatron-LM runs on Selene's A100s) and Figures 1 and 7 (memory per GPU), computed from
// Calculon's input files for those runs (calculon-ai/calculon, validation/seqsel/, in the data
// folder's llm/; docs/data.md).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "tests/common/require.hpp"
#include "tidesim/llm/job.hpp"
#include "tidesim/llm/step.hpp"
#include "tidesim/sim/input/data_folder.hpp"

namespace {

using tidesim::llm::Job;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string llm_data() {
  return tidesim::data_folder() + "/llm";
}

Job load(const std::string& figure, const std::string& model, const std::string& mode,
         const std::string& system) {
  const std::string d = llm_data();
  return tidesim::llm::load_calculon_job(
      d + "/models/" + model + ".json",
      d + "/validation/seqsel/" + figure + "/" + model + "_" + mode + ".json",
      d + "/systems/" + system + ".json");
}

struct Measured {
  const char* model;
  double full;    // seconds per iteration, full recomputation
  double seqsel;  // sequence parallelism + selective recomputation
};

// Korthikanti et al. 2022, Table 5 (also calculon/llm/validation.py, seqsel_tab5).
constexpr Measured kTable5[] = {{"megatron-22B", 1.42, 1.10},
                                {"gpt3-175B", 18.13, 13.75},
                                {"turing-530B", 49.05, 37.83},
                                {"megatron-1T", 94.42, 71.49}};

double table5_mape(const char* mode, double Measured::*seconds) {
  double sum = 0;
  for (const auto& row : kTable5) {
    const Job job = load("tab5", row.model, mode, "a100_80g");
    const auto s = tidesim::llm::step(job.model, job.execution, job.system);
    const double error = 100 * (s.step_seconds - row.*seconds) / row.*seconds;
    std::printf("Table 5 %-13s %-7s measured %7.2f s computed %7.2f s error %+6.1f%%  MFU %.1f%%\n",
                row.model, mode, row.*seconds, s.step_seconds, error, 100 * s.mfu);
    sum += std::fabs(error);
    EXPECT_TRUE(s.fits) << row.model << " " << mode;
  }
  const double mape = sum / std::size(kTable5);
  std::printf("Table 5 %s: mean absolute percentage error %.1f%%\n", mode, mape);
  return mape;
}

TEST(LlmTable5, FullRecomputationWithinTenPercent) {
  TIDESIM_REQUIRE_FILE(llm_data() + "/validation/seqsel/tab5");
  EXPECT_LE(table5_mape("full", &Measured::full), 10.0);
}

TEST(LlmTable5, SequenceParallelSelectiveWithinTenPercent) {
  TIDESIM_REQUIRE_FILE(llm_data() + "/validation/seqsel/tab5");
  EXPECT_LE(table5_mape("seqsel", &Measured::seqsel), 10.0);
}

// Figure 1: GiB per GPU of parameters + optimizer state, and of activations, without
// recomputation and with sequence parallelism + selective recomputation (calculon/llm/
// validation.py, seqsel_fig1, which reads the figure's bars; a100_80e: unbounded HBM).
struct Figure1 {
  const char* model;
  double par_opt;
  double act_none;
  double act_seqsel;
};
constexpr Figure1 kFigure1[] = {{"megatron-22B", 45.5625, 59.25, 9.5625},
                                {"gpt3-175B", 45.5625, 66.84375, 12.3515625},
                                {"turing-530B", 31.640625, 114.0234375, 23.076171875},
                                {"megatron-1T", 32.958984375, 131.25, 26.5625}};

void expect_close(double computed, double paper, const std::string& what) {
  const double error = 100 * (computed - paper) / paper;
  std::printf("%-40s paper %8.2f computed %8.2f error %+6.1f%%\n", what.c_str(), paper, computed,
              error);
  EXPECT_LE(std::fabs(error), 10.0) << what;
}

TEST(LlmFigure1, MemoryPerGpuWithinTenPercent) {
  TIDESIM_REQUIRE_FILE(llm_data() + "/validation/seqsel/fig1");
  for (const auto& row : kFigure1) {
    for (const std::string mode : {"none", "seqsel"}) {
      const Job job = load("fig1", row.model, mode, "a100_80e");
      const auto m = tidesim::llm::step(job.model, job.execution, job.system).memory;
      const std::string name = std::string(row.model) + " " + mode;
      expect_close((m.weights + m.gradients + m.optimizer) / kGiB, row.par_opt,
                   "Fig 1 " + name + " params+optimizer GiB");
      expect_close(m.activations / kGiB, mode == "none" ? row.act_none : row.act_seqsel,
                   "Fig 1 " + name + " activations GiB");
    }
  }
}

// Figure 7: activation memory of each technique as a percentage of none's (the same figures'
// numbers in calculon/llm/validation.py, seqsel_fig7; Turing and 1T share the paper's bars).
struct Figure7 {
  const char* model;
  double seq, sel, seqsel, full;
};
constexpr Figure7 kFigure7[] = {{"megatron-22B", 66.84, 49.42, 16.18, 7.64},
                                {"gpt3-175B", 62.04, 56.53, 18.49, 8.71},
                                {"turing-530B", 58.31, 62.04, 20.27, 9.42},
                                {"megatron-1T", 58.31, 62.04, 20.27, 9.42}};

TEST(LlmFigure7, ActivationShareWithinTenPercent) {
  TIDESIM_REQUIRE_FILE(llm_data() + "/validation/seqsel/fig7");
  for (const auto& row : kFigure7) {
    const auto act = [&](const char* mode) {
      const Job job = load("fig7", row.model, mode, "a100_80e");
      return tidesim::llm::step(job.model, job.execution, job.system).memory.activations;
    };
    const double none = act("none");
    const std::pair<const char*, double> modes[] = {
        {"seq", row.seq}, {"sel", row.sel}, {"seqsel", row.seqsel}, {"full", row.full}};
    for (const auto& [mode, paper] : modes) {
      expect_close(100 * act(mode) / none, paper,
                   "Fig 7 " + std::string(row.model) + " " + mode + " % of none");
    }
  }
}

TEST(LlmSystems, BuiltInA100IsCalculonsA100File) {
  // The built-in a100-80g holds the numbers of Calculon's systems/a100_80g.json: the same step.
  TIDESIM_REQUIRE_FILE(llm_data() + "/systems/a100_80g.json");
  for (const auto& row : kTable5) {
    Job job = load("tab5", row.model, "seqsel", "a100_80g");
    const double file = tidesim::llm::step(job.model, job.execution, job.system).step_seconds;
    job.system = *tidesim::llm::system_preset("a100-80g");
    const double builtin = tidesim::llm::step(job.model, job.execution, job.system).step_seconds;
    EXPECT_DOUBLE_EQ(builtin, file) << row.model;
  }
}

}  // namespace
