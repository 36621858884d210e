// The readers of the LLM inputs: tidesim's job file, Calculon's files, and every check of
// validate() naming the file, line, column and field.
#include <gtest/gtest.h>

#include <string>

#include "tests/common/require.hpp"
#include "tidesim/llm/job.hpp"
#include "tidesim/llm/step.hpp"
#include "tidesim/sim/input/data_folder.hpp"
#include "tidesim/sim/input/error.hpp"

namespace {

using tidesim::InputError;
using tidesim::llm::load_job_text;

// A valid job: GPT-3 175B as in Table 5, sequence parallel + selective recomputation.
std::string job(const std::string& execution_extra = "", const std::string& model = "gpt3-175B",
                const std::string& system = "a100-80g") {
  return "model: " + model +
         "\n"
         "execution:\n"
         "  tensor_par: 8\n"
         "  pipeline_par: 8\n"
         "  data_par: 1\n"
         "  pipeline_par_net: 1\n"
         "  data_par_net: 1\n"
         "  batch_size: 64\n"
         "  microbatch_size: 1\n"
         "  pipeline_interleaving: 3\n" +
         execution_extra + "system: " + system + "\n";
}

// The message of the InputError that loading `text` throws ("" when none).
std::string error_of(const std::string& text) {
  try {
    load_job_text(text, "job.yaml", ".");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(LlmJobFile, ReadsAPresetJob) {
  const auto j = load_job_text(
      job("  activation_recompute: attn_only\n  tensor_par_comm_type: rs_ag\n"), "job.yaml", ".");
  EXPECT_EQ(j.model.name, "gpt3-175B");
  EXPECT_EQ(j.execution.num_procs, 64);
  EXPECT_EQ(j.system.name, "a100-80g");
  const auto s = tidesim::llm::step(j.model, j.execution, j.system);
  EXPECT_GT(s.step_seconds, 0);
  EXPECT_TRUE(s.fits);
}

TEST(LlmJobFile, InlineArchitectureAndPresetOverrides) {
  const std::string inline_model =
      "{num_blocks: 48, hidden: 1024, attn_heads: 16, attn_size: 64, feedforward: 4096, "
      "seq_size: 1024}";
  const auto j = load_job_text(job("", inline_model), "job.yaml", ".");
  EXPECT_EQ(j.model.layers, 48);
  EXPECT_EQ(j.model.kv_heads, 16);
  const auto o = load_job_text(job("", "{preset: gpt3-175B, seq_size: 4096}"), "job.yaml", ".");
  EXPECT_EQ(o.model.seq, 4096);
  EXPECT_EQ(o.model.layers, 96);
}

TEST(LlmJobFile, EveryLayoutCheckNamesItsPlace) {
  // TP not dividing the heads (96): line 3, column 15 is the value of tensor_par.
  std::string text = job();
  text.replace(text.find("tensor_par: 8"), 13, "tensor_par: 7");
  EXPECT_NE(error_of(text).find("job.yaml:3:15: execution.tensor_par: tensor parallelism 7 "
                                "does not divide the attention heads (96)"),
            std::string::npos)
      << error_of(text);
  text = job();
  text.replace(text.find("pipeline_par: 8"), 15, "pipeline_par: 97");
  EXPECT_NE(error_of(text).find("job.yaml:4:17: execution.pipeline_par: pipeline parallelism 97 is "
                                "more than the model's 96 layers"),
            std::string::npos)
      << error_of(text);
  text = job();
  text.replace(text.find("interleaving: 3"), 15, "interleaving: 5");
  EXPECT_NE(error_of(text).find("job.yaml:10:26: execution.pipeline_interleaving"),
            std::string::npos)
      << error_of(text);
  EXPECT_NE(error_of(job("  num_procs: 65\n")).find("job.yaml:11:14: execution.num_procs"),
            std::string::npos)
      << error_of(job("  num_procs: 65\n"));
  text = job();
  text.replace(text.find("batch_size: 64"), 14, "batch_size: 63");
  text.replace(text.find("microbatch_size: 1"), 18, "microbatch_size: 2");
  EXPECT_NE(error_of(text).find("job.yaml:8:15: execution.batch_size: the batch (63) is not a "
                                "multiple of data_par x microbatch_size"),
            std::string::npos)
      << error_of(text);
}

TEST(LlmJobFile, DatatypesNetworksAndUnknownNames) {
  EXPECT_NE(error_of(job("  datatype: float12\n")).find("job.yaml:11:13: execution.datatype"),
            std::string::npos);
  EXPECT_NE(error_of(job("  datatype: float8\n")).find("has no float8"), std::string::npos)
      << error_of(job("  datatype: float8\n"));
  EXPECT_NE(error_of(job("  tensor_par_net: 2\n"))
                .find("job.yaml:11:19: execution.tensor_par_net: network 2 does not exist"),
            std::string::npos)
      << error_of(job("  tensor_par_net: 2\n"));
  // TP 8 and PP 8 both on the 8-GPU NVLink network: 64 GPUs do not fit in it.
  std::string text = job();
  text.replace(text.find("pipeline_par_net: 1"), 19, "pipeline_par_net: 0");
  EXPECT_NE(error_of(text).find("network 0 joins 8 GPUs"), std::string::npos) << error_of(text);
  EXPECT_NE(error_of(job("", "gpt3-176B"))
                .find("job.yaml:1:8: model: unknown model 'gpt3-176B' "
                      "(did you mean gpt3-175B?)"),
            std::string::npos)
      << error_of(job("", "gpt3-176B"));
  EXPECT_NE(error_of(job("", "gpt3-175B", "b200")).find("job.yaml:11:9: system: 'b200'"),
            std::string::npos)
      << error_of(job("", "gpt3-175B", "b200"));
  EXPECT_NE(
      error_of(job("  tensor_par_comms: ar\n")).find("execution.tensor_par_comms: unknown key"),
      std::string::npos);
  EXPECT_NE(error_of(job("", "{preset: gpt3-175B, kv_heads: 7}"))
                .find("model.kv_heads: key/value heads (7) must divide"),
            std::string::npos)
      << error_of(job("", "{preset: gpt3-175B, kv_heads: 7}"));
}

TEST(LlmJobFile, SystemFileRelativeToTheJob) {
  const std::string systems = tidesim::data_folder() + "/llm/systems";
  TIDESIM_REQUIRE_FILE(systems + "/a100_80g.json");
  const auto j = load_job_text(job("", "gpt3-175B", "a100_80g.json"), "job.yaml", systems);
  EXPECT_EQ(j.system.name, "a100_80g");
  EXPECT_EQ(j.system.networks.size(), 2U);
}

TEST(LlmCalculonFiles, BadSystemValuesNameTheirPlace) {
  const std::string text =
      "execution: {tensor_par: 1, pipeline_par: 1, data_par: 1, batch_size: 1, microbatch_size: "
      "1}\nmodel: megatron-126M\nsystem:\n  matrix: {float16: {tflops: 312, gflops_efficiency: "
      "[[1, 0.5], [2, 0.9]]}}\n";
  EXPECT_NE(error_of(text).find("job.yaml:4:66: system.matrix.float16.gflops_efficiency[1]: "
                                "thresholds must decrease"),
            std::string::npos)
      << error_of(text);
}

TEST(LlmJobFile, ModelChecksNameTheirPlace) {
  // hidden 0: refused by the reader at the value (line 1, column 47).
  const std::string zero =
      "{num_blocks: 4, attn_heads: 8, hidden: 0, attn_size: 64, feedforward: 2048, seq_size: 128}";
  EXPECT_NE(error_of(job("", zero)).find("job.yaml:1:47: model.hidden: 0 is out of range"),
            std::string::npos)
      << error_of(job("", zero));
  EXPECT_NE(error_of(job("", "{preset: llama3-8B, ffn_matrices: 4}"))
                .find("job.yaml:1:42: model.ffn_matrices: must be 2 (GELU MLP) or 3 (SwiGLU)"),
            std::string::npos)
      << error_of(job("", "{preset: llama3-8B, ffn_matrices: 4}"));
  // Heads divisible by TP 8 but the FFN (1004) not.
  const std::string ffn =
      "{num_blocks: 48, attn_heads: 8, hidden: 512, attn_size: 64, feedforward: 1004, "
      "seq_size: 128}";
  EXPECT_NE(error_of(job("", ffn))
                .find("execution.tensor_par: tensor parallelism 8 does not "
                      "divide the feed-forward size (1004)"),
            std::string::npos)
      << error_of(job("", ffn));
}

TEST(LlmJobFile, ANetworkThatMustBeFilledRefusesAPartialGroup) {
  // TP 4 on the 8-GPU NVLink network, which must be filled: 4 divides 8, accepted; TP 8 with PP 2
  // on it is 16 GPUs, too many; a 3-GPU group does not divide 8 (tensor_par_net is not written:
  // the error is at the execution mapping).
  const std::string ok =
      "model: megatron-5B\nexecution: {tensor_par: 4, pipeline_par: 1, "
      "data_par: 1, batch_size: 4, microbatch_size: 1}\nsystem: a100-80g\n";
  EXPECT_EQ(error_of(ok), "");
  const std::string three =
      "model: {preset: megatron-5B, attn_heads: 48, hidden: 6144, feedforward: 24576}\n"
      "execution: {tensor_par: 3, pipeline_par: 1, data_par: 1, batch_size: 4, "
      "microbatch_size: 1}\nsystem: a100-80g\n";
  EXPECT_NE(error_of(three).find("job.yaml:2:12: execution.tensor_par_net: network 0 must be "
                                 "filled: 3 does not divide its 8 GPUs"),
            std::string::npos)
      << error_of(three);
}

TEST(LlmCalculonFiles, SyntaxErrorsAndEmptyFilesNameTheFile) {
  const std::string folder = std::string(TIDESIM_SOURCE_DIR) + "/tests/llm/data/";
  try {
    (void)tidesim::llm::read_calculon_model(folder + "bad_syntax.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 3) << e.what();
  }
  try {
    (void)tidesim::llm::read_calculon_system(folder + "empty.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("empty.json"), std::string::npos) << e.what();
  }
}

}  // namespace
