#include "tidesim/workloads/catalogue.hpp"

#include <gtest/gtest.h>

#include "tests/common/errors.hpp"

#include <cmath>

#include "tidesim/sim/input/error.hpp"
#include "tidesim/topologies/gpu_models.hpp"
#include "tidesim/workloads/gpu_models.hpp"

namespace tidesim::workloads {
namespace {

using namespace std::chrono_literals;
constexpr std::int64_t kMiB = std::int64_t{1} << 20;
constexpr std::int64_t kGiB = std::int64_t{1} << 30;

using test::message_of;

TEST(Catalogue, ResNet50MeasuredSpeedAndOverheadLine) {
  // A100 AMP: 2470 img/s at batch 256 (NVIDIA DLE). At the measured batch the step is 256/2470 s;
  // at 128 it is T_ref x (f + (1 - f) x 0.5) with f = 0.0865.
  const double t_ref = 256.0 / 2470.0;
  EXPECT_NEAR(profile_for("resnet50", 256, "amp", "A100").compute_seconds, t_ref, 1e-12);
  EXPECT_NEAR(profile_for("resnet50", 128, "amp", "A100").compute_seconds,
              t_ref * (0.0865 + 0.9135 * 0.5), 1e-12);
  // V100 FP32: 367 img/s at batch 112.
  EXPECT_NEAR(profile_for("resnet50", 112, "fp32", "V100").compute_seconds, 112.0 / 367.0, 1e-12);
}

TEST(Catalogue, A10IsScaledFromV100ByTflopsAndBandwidth) {
  // AMP: 1200 x sqrt(125/125 x 600/900) = 979.80 img/s at batch 256.
  const double amp = 1200.0 * std::sqrt(600.0 / 900.0);
  EXPECT_NEAR(profile_for("resnet50", 256, "amp", "A10").compute_seconds, 256.0 / amp, 1e-12);
  EXPECT_NEAR(amp, 979.80, 0.01);
  // FP32 (TF32 on Ampere): 367 x sqrt(62.5/15.7 x 600/900) = 597.9 img/s at batch 112.
  const double fp32 = 367.0 * std::sqrt(62.5 / 15.7 * 600.0 / 900.0);
  EXPECT_NEAR(profile_for("resnet50", 112, "fp32", "A10").compute_seconds, 112.0 / fp32, 1e-12);
  Throughput ref;
  scaled_samples_per_second(builtin_models().front(), "A10", "amp", &ref);
  EXPECT_EQ(ref.gpu, "V100");
  // H100 from A100: 2470 x sqrt(989.4/312 x 3350/2039) = 5637.9 img/s.
  EXPECT_NEAR(scaled_samples_per_second(builtin_models().front(), "H100", "amp"), 5637.9, 0.1);
  // Aliases of the hardware catalogue map to the same speeds.
  EXPECT_EQ(profile_for("resnet50", 64, "amp", "V100-SXM2-16").compute_seconds,
            profile_for("resnet50", 64, "amp", "V100").compute_seconds);
}

TEST(Catalogue, ResNet50MemoryReproducesTheAnecdotes) {
  // Built so that FP32 batch 16 holds 6.7 GB and batch 512 about 40 GB (CALIBRATION.md).
  const auto b16 = profile_for("resnet50", 16, "fp32", "A10");
  EXPECT_EQ(b16.steady_bytes(), 6'700'000'000);
  EXPECT_EQ(b16.context_bytes, 300 * kMiB);
  EXPECT_EQ(b16.model_state_bytes, 12 * 25'557'032);  // SGD momentum, FP32
  EXPECT_EQ(b16.gradient_bytes, 4 * 25'557'032);
  EXPECT_EQ(b16.input_bytes, 16 * (138'000'000'000 / 1'281'167));
  const auto b512 = profile_for("resnet50", 512, "fp32", "A10");
  EXPECT_NEAR(static_cast<double>(b512.steady_bytes()), 40e9, 1e3);
  // AMP halves the activations.
  EXPECT_EQ(profile_for("resnet50", 64, "amp", "A10").activation_bytes,
            profile_for("resnet50", 64, "fp32", "A10").activation_bytes / 2);
  EXPECT_EQ(b16.ramp_up, 10s);
  EXPECT_EQ(b16.peak.extra_bytes, b16.activation_bytes / 4);
}

TEST(Catalogue, Gpt2MemoryFromParametersAndKorthikanti) {
  const auto p = profile_for("gpt2-124m", 1, "amp", "A100");
  EXPECT_EQ(p.model_state_bytes, 16 * 124'439'808);  // 1.99 GB, CALIBRATION.md's 2.0 GB
  // 12 layers x (1024 x 768 x 34 + 5 x 12 x 1024^2) + 1024 x 50257 x 8 = 1,487,544,320 bytes.
  EXPECT_EQ(p.activation_bytes, 1'487'544'320);
  EXPECT_EQ(p.gradient_bytes, 4 * 124'439'808);
  EXPECT_EQ(p.input_bytes, 2048);
  // 108K tokens/s per A100 at micro-batch 12: 12 x 1024 / 108000 s per step.
  EXPECT_NEAR(profile_for("gpt2-124m", 12, "amp", "A100").compute_seconds, 12 * 1024 / 108000.0,
              1e-12);
  // GPT-2 1.5B does not fit one A10 even at batch 1 (its states alone are 24.9 GB).
  const auto xl = profile_for("gpt2-1.5b", 1, "amp", "A10");
  EXPECT_EQ(xl.model_state_bytes, 24'921'779'200);
  EXPECT_GT(xl.steady_bytes(), gpu_model("A10").memory_bytes);
  EXPECT_EQ(gpu_model("A10").memory_bytes, 24 * kGiB);
}

TEST(Catalogue, FusedAttentionDropsTheScoreMatrices) {
  // "-sdpa": Korthikanti's eq. 1 without the 5 a s / h term: 12 x 1024 x 768 x 34 + 1024 x
  // 50257 x 8 = 320,864,256 + 411,705,344 = 732,569,600 bytes per sequence (eager: 1,487,544,320,
  // so the scores were 12 x 5 x 12 x 1024^2 = 754,974,720).
  const auto fused = profile_for("gpt2-124m-sdpa", 1, "amp", "A100");
  const auto eager = profile_for("gpt2-124m", 1, "amp", "A100");
  EXPECT_EQ(fused.activation_bytes, 732'569'600);
  EXPECT_EQ(eager.activation_bytes - fused.activation_bytes, 754'974'720);
  // Same states and speed (a fused kernel's speed-up is not modelled: assumption).
  EXPECT_EQ(fused.model_state_bytes, eager.model_state_bytes);
  EXPECT_DOUBLE_EQ(fused.compute_seconds, eager.compute_seconds);
  // At batch 8 on an A10 the eager GPT-2 124M holds 13.7 GiB, the fused one 8.1 GiB:
  // 300 MiB + 1,991,036,928 + 512 MiB + 8 x 732,569,600 = 8,703,037,440 bytes.
  EXPECT_EQ(profile_for("gpt2-124m-sdpa", 8, "amp", "A10").steady_bytes(), 8'703'037'440);
}

// Hardware facts come from the hardware catalogue (topologies/gpu_models.hpp); only the TF32 rate
// (Ampere and later), the P100's packed-FP16 rate and the K80's FP16 (its FP32 rate: no tensor
// cores) are the training catalogue's own.
TEST(Catalogue, GpuFamiliesTakeHardwareFiguresFromTheHardwareCatalogue) {
  for (const GpuModel& g : gpu_models()) {
    const tidesim::GpuModel& hw = tidesim::gpu_model(g.hardware);
    EXPECT_EQ(g.memory_bytes, hw.memory_bytes) << g.name;
    EXPECT_EQ(g.memory_bandwidth, hw.memory_bandwidth) << g.name;
    if (g.name == "K80") {
      EXPECT_EQ(g.amp_tflops, hw.fp32_tflops);
    } else if (g.name != "P100") {
      EXPECT_EQ(g.amp_tflops, hw.fp16_tensor_tflops) << g.name;
    }
  }
  // No TF32 before Ampere: "fp32" is the plain FP32 figure (V100 datasheet 15.7).
  EXPECT_EQ(gpu_model("V100").fp32_tflops, tidesim::gpu_model("V100-SXM2-16").fp32_tflops);
  EXPECT_DOUBLE_EQ(gpu_model("V100").fp32_tflops, 15.7);
  // Ampere: TF32 (A10 datasheet 62.5) instead of the hardware's plain FP32 31.2.
  EXPECT_DOUBLE_EQ(gpu_model("A10").fp32_tflops, 62.5);
  // H100 FP16 tensor, dense: H100 whitepaper 989.4 (528 tensor cores x 1,024 FLOP/clock x 1.83
  // GHz).
  EXPECT_DOUBLE_EQ(gpu_model("H100").amp_tflops, 989.4);
  // P100 has no tensor cores: "amp" runs at packed FP16, 18.7 (P100 PCIe datasheet).
  EXPECT_DOUBLE_EQ(gpu_model("P100").amp_tflops, 18.7);
  EXPECT_EQ(gpu_model("V100-SXM2-32").name, "V100");  // an alias gives its family
}

TEST(Catalogue, UnknownKeysListTheKnownOnes) {
  EXPECT_EQ(message_of([] { profile_for("bert", 8, "amp", "A10"); }),
            "model: unknown model 'bert'; known: gpt2-1.5b, gpt2-1.5b-sdpa, gpt2-124m, "
            "gpt2-124m-sdpa, gpt2-355m, gpt2-355m-sdpa, gpt2-774m, gpt2-774m-sdpa, resnet50");
  EXPECT_EQ(message_of([] { profile_for("resnet50", 8, "bf16", "A10"); }),
            "precision: 'bf16' is not one of: amp, fp32");
  EXPECT_NE(message_of([] {
              profile_for("resnet50", 8, "amp", "MI300");
            }).find("unknown GPU model 'MI300'; known: A10, T4, V100, A100, H100"),
            std::string::npos);
  EXPECT_NE(message_of([] { profile_for("resnet50", 0, "amp", "A10"); }).find("batch size 0"),
            std::string::npos);
}

TEST(Catalogue, TracedModelFromMeasurements) {
  Catalogue c;
  ModelDefinition d;
  d.name = "my-bert";
  d.context_bytes = 300 * kMiB;
  d.model_state_bytes = 2 * kGiB;
  d.activation_bytes_per_sample = {{"amp", 100 * kMiB}};
  d.gradient_bytes = 440'000'000;
  d.throughputs = {{"A10", "amp", 32, 160.0, "measured"}};
  c.add(d);
  const auto p = c.profile("my-bert", 16, "amp", "A10");
  EXPECT_DOUBLE_EQ(p.compute_seconds, 16.0 / 160.0);  // no overhead share: linear in batch
  EXPECT_EQ(p.activation_bytes, 16 * 100 * kMiB);
  // On a V100, scaled from the A10 measurement: 160 x sqrt(125/125 x 900/600).
  EXPECT_NEAR(c.profile("my-bert", 32, "amp", "V100").compute_seconds,
              32.0 / (160.0 * std::sqrt(1.5)), 1e-12);
  EXPECT_NE(message_of([&] { c.add(d); }).find("already defined"), std::string::npos);
  ModelDefinition empty = d;
  empty.name = "nothing";
  empty.throughputs.clear();
  EXPECT_NE(message_of([&] { c.add(empty); }).find("at least one throughput"), std::string::npos);
}

// A worker's memory grows with the batch: activation per sample x batch and the sum of the
// parts overflowed int64 for large inputs (2^62 x 4 = 2^64). Catalogue::profile checks both and
// refuses more than kMaxWorkerMemoryBytes = 2^50 (1024 TiB).
TEST(Catalogue, WorkerMemoryBeyondTheBoundIsRefused) {
  Catalogue c;
  ModelDefinition d;
  d.name = "huge";
  d.context_bytes = 300 * kMiB;
  d.model_state_bytes = 2 * kGiB;
  d.activation_bytes_per_sample = {{"amp", std::int64_t{1} << 62}};
  d.gradient_bytes = 1;
  d.throughputs = {{"A10", "amp", 32, 160.0, "measured"}};
  c.add(d);
  EXPECT_EQ(message_of([&] { c.profile("huge", 4, "amp", "A10"); }),
            "batch_size: model 'huge' at batch size 4: activation memory (activation per sample "
            "x batch) exceeds 1024 TiB per worker");
  // 2^40 per sample x 1024 = 2^50 exactly: allowed alone, but with the context and model state
  // on top the peak passes 2^50.
  ModelDefinition e = d;
  e.name = "edge";
  e.activation_bytes_per_sample = {{"amp", std::int64_t{1} << 40}};
  c.add(e);
  EXPECT_EQ(message_of([&] { c.profile("edge", 1024, "amp", "A10"); }),
            "batch_size: model 'edge' at batch size 1024: peak GPU memory (context + model state "
            "+ workspace + activations + peak) exceeds 1024 TiB per worker");
  EXPECT_EQ(c.profile("edge", 512, "amp", "A10").activation_bytes, std::int64_t{1} << 49);
}

}  // namespace
}  // namespace tidesim::workloads
