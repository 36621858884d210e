// Hand-worked cases of the step-time and memory model: each expected value is worked out in the
// comment above it from the formula docs/llm.md states.
#include <gtest/gtest.h>

#include "tidesim/llm/layer_ops.hpp"
#include "tidesim/llm/memory.hpp"
#include "tidesim/llm/step.hpp"
#include "tidesim/llm/validate.hpp"

namespace {

using namespace tidesim::llm;

// A model small enough to count by hand: 2 layers, h = 8, 2 heads of 4, FFN 32, sequence 4,
// vocabulary 16.
Model tiny() {
  return Model{.name = "tiny",
               .layers = 2,
               .hidden = 8,
               .heads = 2,
               .head_size = 4,
               .kv_heads = 2,
               .ffn = 32,
               .seq = 4,
               .vocabulary = 16,
               .places = {}};
}

Execution layout(std::int64_t tp, std::int64_t pp, std::int64_t dp) {
  Execution x;
  x.tensor_par = tp;
  x.pipeline_par = pp;
  x.data_par = dp;
  x.num_procs = tp * pp * dp;
  x.batch_size = 8 * dp;
  x.microbatch_size = 1;
  return x;
}

TEST(LlmModel, ParametersOfATinyModelByHand) {
  // Per layer: QKV 8 x 24 = 192, output 8 x 8 = 64, MLP 2 x 8 x 32 = 512; biases 24 + 8 + 32 + 8
  // = 72; two LayerNorms 4 x 8 = 32: 872. Embeddings (16 + 4) x 8 = 160. Total 2 x 872 + 160.
  const Model m = tiny();
  EXPECT_DOUBLE_EQ(m.layer_parameters(), 872);
  EXPECT_DOUBLE_EQ(m.embedding_parameters(), 160);
  EXPECT_DOUBLE_EQ(m.parameters(), 1904);
}

TEST(LlmMemory, WeightsGradientsAndOptimizerBytesByHand) {
  // TP 2, PP 1: (2 x 872 + 160) / 2 = 952 parameters per GPU: 2 bytes of weight, 4 of gradient,
  // 12 of optimizer state each at float16; sharding over DP 4 divides the optimizer state only.
  Execution x = layout(2, 1, 4);
  const MemoryParts m = memory_per_gpu(tiny(), x);
  EXPECT_DOUBLE_EQ(m.weights, 952 * 2);
  EXPECT_DOUBLE_EQ(m.gradients, 952 * 4);
  EXPECT_DOUBLE_EQ(m.optimizer, 952 * 12);
  x.optimizer_sharding = true;
  EXPECT_DOUBLE_EQ(memory_per_gpu(tiny(), x).optimizer, 952 * 12 / 4.0);
}

TEST(LlmMemory, ActivationsMatchKorthikantiEquations) {
  // GPT-3 175B's layer at t = 8, b = 1: sbh (10 + 24/t + 5as/(ht)) = sbh x 23 bytes without
  // recomputation (eq. 2), sbh x 34/t with sequence parallelism + selective (section 5), 2sbh/t
  // with sequence parallelism + full recomputation.
  Model m = *model_preset("gpt3-175B");
  Execution x = layout(8, 8, 1);
  const double sbh = 2048.0 * 12288;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, x, Recompute::none), sbh * 23);
  x.tensor_par_comm_type = TpCommType::rs_ag;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, x, Recompute::attn_only), sbh * 34 / 8);
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, x, Recompute::full), sbh * 2 / 8);
}

TEST(LlmNetwork, RingAllReduceTimeByHand) {
  // 1 GB over 8 GPUs at 100 GB/s x 0.5 with the ring's [2, -1]: latency + 2 x 1e9 x 7/8 / 50e9
  // = 1e-5 + 0.035 s. One participant costs nothing.
  Network n{.bandwidth = 100e9, .efficiency = 0.5, .size = 8, .latency = 1e-5};
  n.ops[static_cast<int>(Collective::all_reduce)] = {.scalar = 2, .offset = -1};
  EXPECT_DOUBLE_EQ(n.time(Collective::all_reduce, 1e9, 8), 1e-5 + 0.035);
  EXPECT_DOUBLE_EQ(n.time(Collective::all_reduce, 1e9, 1), 0.0);
}

TEST(LlmEfficiency, FirstRowAtOrBelowTheSize) {
  const EfficiencyTable t{{{128e9, 0.95}, {16e9, 0.9}, {1e9, 0.6}, {0, 0.1}}};
  EXPECT_DOUBLE_EQ(t.at(200e9), 0.95);
  EXPECT_DOUBLE_EQ(t.at(128e9), 0.95);
  EXPECT_DOUBLE_EQ(t.at(20e9), 0.9);
  EXPECT_DOUBLE_EQ(t.at(0.5e9), 0.1);
}

// A system with no memory time and one efficiency, so that kernel times are flops / peak.
System ideal() {
  System s;
  s.name = "ideal";
  s.matrix["float16"] = {.peak_flops = 100e12, .efficiency = {}};
  s.vector["float16"] = {.peak_flops = 100e12, .efficiency = {}};
  s.mem1 = {.capacity = 80e9, .bandwidth = 1e30, .efficiency = {}};
  s.mem2 = s.mem1;
  s.processing_mode = ProcessingMode::roofline;
  Network fast{.bandwidth = 1e30, .efficiency = 1, .size = 1 << 20, .latency = 0};
  s.networks = {fast};
  return s;
}

TEST(LlmStep, BubbleIsPMinusOneOverMVOfTheWork) {
  // Bubble / (forward + backward + recompute + TP) = (p - 1) / (m v): p = 4, m = 8, v = 2 gives
  // 3/16; without interleaving 3/8.
  const Model m = *model_preset("megatron-5B");  // 24 layers
  Execution x = layout(1, 4, 1);
  x.pipeline_interleaving = 2;
  const System s = ideal();
  validate(m, x, s);
  StepBreakdown b = step(m, x, s, networks_of(s, x));
  const double work = b.parts.forward + b.parts.backward + b.parts.recompute + b.parts.tp_comm;
  EXPECT_NEAR(b.parts.bubble / work, 3.0 / 16, 1e-12);
  x.pipeline_interleaving = 1;
  b = step(m, x, s, networks_of(s, x));
  EXPECT_NEAR(b.parts.bubble / (b.parts.forward + b.parts.backward), 3.0 / 8, 1e-12);
}

TEST(LlmStep, MatmulsRunAtPeakOnAnIdealGpu) {
  // Without memory time, with one efficiency: forward time = forward flops / peak, backward twice
  // the matmuls; MFU's model flops follow Narayanan et al. eq. 3 for a GPT.
  const Model m = *model_preset("megatron-5B");
  const Execution x = layout(1, 1, 1);
  const double b = 8, s = 2048, l = 24, h = 4096, v = 51200;
  const double eq3 = 72 * b * s * l * h * h * (1 + s / (6 * h) + v / (12 * l * h));
  EXPECT_NEAR(model_flops(m, x) / eq3, 1.0, 1e-12);
  const StepBreakdown r = step(m, x, ideal());
  // The layers' matmuls: 24 s h^2 + 4 s^2 h per sample and layer, and the logits' 2 s h V.
  const double matmul = b * l * (24 * s * h * h + 4 * s * s * h) + b * 2 * s * h * v;
  EXPECT_GT(r.parts.forward, matmul / 100e12);
  EXPECT_LT(r.parts.forward, 1.01 * matmul / 100e12);  // plus the small vector kernels
}

TEST(LlmStep, DoesNotFitWhenTheCardIsTooSmall) {
  // GPT-3 175B on 8 GPUs with TP 8: 22 billion parameters per GPU x 18 bytes is far over 80 GB.
  const Model m = *model_preset("gpt3-175B");
  Execution x = layout(8, 1, 1);
  const StepBreakdown r = step(m, x, *system_preset("a100-80g"));
  EXPECT_FALSE(r.fits);
  EXPECT_GT(r.memory.total(), r.capacity);
}

TEST(LlmStep, NetworksCanBeReplacedByWhatTheGroupGets) {
  // Halving the DP network's bandwidth doubles the DP reduction's wire time.
  const Model m = *model_preset("megatron-5B");
  Execution x = layout(1, 1, 8);
  x.data_par_net = 1;
  const System s = *system_preset("a100-80g");
  NetworkChoice nets = networks_of(s, x);
  const double full = step(m, x, s, nets).parts.dp_comm;
  nets.dp.bandwidth /= 2;
  const double half = step(m, x, s, nets).parts.dp_comm;
  EXPECT_NEAR(half - nets.dp.latency, 2 * (full - nets.dp.latency), 1e-9);
}

TEST(LlmStep, Llama3PresetsFollowThePaper) {
  // Llama 3 (arXiv 2407.21783, Table 3): 8B, 70B and 405B parameters.
  EXPECT_NEAR(model_preset("llama3-8B")->parameters() / 1e9, 8.0, 0.1);
  EXPECT_NEAR(model_preset("llama3-70B")->parameters() / 1e9, 70.6, 0.1);
  EXPECT_NEAR(model_preset("llama3-405B")->parameters() / 1e9, 405.9, 0.5);
}

TEST(LlmModel, KeyValueHeadsAreReplicatedWhenTpExceedsThem) {
  // Llama 3 70B has 8 key/value heads of 128: TP 4 holds 2 heads (256) per rank, TP 8 one (128),
  // TP 16 still one, replicated.
  const Model m = *model_preset("llama3-70B");
  EXPECT_DOUBLE_EQ(kv_width_per_rank(m, 4), 256);
  EXPECT_DOUBLE_EQ(kv_width_per_rank(m, 8), 128);
  EXPECT_DOUBLE_EQ(kv_width_per_rank(m, 16), 128);
}

// GPT-3 175B as in Table 5 (TP 8 on NVLink, PP 8 with interleaving 3 on InfiniBand), DP 4.
Execution table5_with_dp() {
  Execution x = layout(8, 8, 4);
  x.pipeline_par_net = 1;
  x.data_par_net = 1;
  x.batch_size = 256;
  x.pipeline_interleaving = 3;
  x.tensor_par_comm_type = TpCommType::rs_ag;
  x.activation_recompute = Recompute::attn_only;
  return x;
}

TEST(LlmOptions, OverlapsHideCommunicationAndCostProcessorTime) {
  const Model m = *model_preset("gpt3-175B");
  const System s = *system_preset("a100-80g");
  Execution x = table5_with_dp();
  const StepBreakdown plain = step(m, x, s);
  EXPECT_GT(plain.parts.dp_comm, 0);
  x.tensor_par_overlap = TpOverlap::ring;
  x.data_par_overlap = true;
  const StepBreakdown hidden = step(m, x, s);
  EXPECT_LT(hidden.parts.tp_comm, plain.parts.tp_comm);
  EXPECT_LT(hidden.parts.dp_comm, plain.parts.dp_comm);
  // What stays of an overlapped collective is at least processor_usage of it.
  EXPECT_GE(hidden.parts.dp_comm, 0.02 * plain.parts.dp_comm - 1e-12);
  EXPECT_LT(hidden.step_seconds, plain.step_seconds);
}

TEST(LlmOptions, ShardingAndOffloadMoveMemory) {
  const Model m = *model_preset("gpt3-175B");
  const System s = *system_preset("a100-80g");
  Execution x = table5_with_dp();
  const StepBreakdown plain = step(m, x, s);
  x.optimizer_sharding = true;
  const StepBreakdown sharded = step(m, x, s);
  EXPECT_DOUBLE_EQ(sharded.memory.optimizer, plain.memory.optimizer / 4);
  EXPECT_EQ(sharded.memory.gradients, plain.memory.gradients);
  x.optimizer_offload = true;
  x.weight_offload = true;
  const StepBreakdown offloaded = step(m, x, s);
  EXPECT_LT(offloaded.memory.total(), sharded.memory.total());
  EXPECT_GT(offloaded.memory.offloaded, 0);
  EXPECT_GT(offloaded.parts.offload, 0);  // weights streamed for 64 micro-batches at 32 GB/s
}

TEST(LlmOptions, RooflineIsTheLargerOfComputeAndMemory) {
  // 1 TFLOP and 1 GB on 100 TFLOPS and 1 TB/s, efficiency 1: 10 ms and 1 ms.
  System s = ideal();
  s.mem1.bandwidth = 1e12;
  EXPECT_DOUBLE_EQ(kernel_seconds(1e12, 1e9, true, s, "float16"), 0.01);
  s.processing_mode = ProcessingMode::no_overlap;
  EXPECT_DOUBLE_EQ(kernel_seconds(1e12, 1e9, true, s, "float16"), 0.011);
}

TEST(LlmOptions, InferenceIsTheForwardPassOnly) {
  const Model m = *model_preset("megatron-5B");
  Execution x = layout(1, 1, 1);
  x.training = false;
  const StepBreakdown r = step(m, x, *system_preset("a100-80g"));
  EXPECT_EQ(r.parts.backward, 0);
  EXPECT_EQ(r.parts.optimizer, 0);
  EXPECT_EQ(r.memory.gradients, 0);
  EXPECT_GT(r.parts.forward, 0);
}

}  // namespace
