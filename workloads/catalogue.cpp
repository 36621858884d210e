#include "tidesim/workloads/catalogue.hpp"

#include <algorithm>
#include <cmath>

#include "tidesim/sim/engine/checked.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/workloads/gpu_models.hpp"

namespace tidesim::workloads {
namespace {

using namespace std::chrono_literals;
constexpr std::int64_t kMiB = std::int64_t{1} << 20;

// CUDA context per process with CUDA >= 11.7 lazy loading (CALIBRATION.md "Training jobs").
constexpr std::int64_t kContextBytes = 300 * kMiB;

InputError catalogue_error(const std::string& field, const std::string& message) {
  return InputError(SourceLocation{}, field, message);
}

double tflops(const GpuModel& g, const std::string& precision) {
  return precision == "amp" ? g.amp_tflops : g.fp32_tflops;
}

ModelDefinition resnet50() {
  // torchvision ResNet-50: 25,557,032 parameters.
  constexpr std::int64_t kParams = 25'557'032;
  ModelDefinition d;
  d.name = "resnet50";
  d.context_bytes = kContextBytes;
  // SGD with momentum, FP32 master weights (also under AMP): weights + grads + momentum =
  // 12 bytes/parameter (assumption: standard accounting, as in the ZeRO paper's).
  d.model_state_bytes = 12 * kParams;
  // Derived from CALIBRATION.md's anecdotes (batch 16 about 6.7 GB, batch 512 about 40 GB): the
  // line through them has slope (40e9 - 6.7e9) / 496 bytes per sample. AMP halves it
  // (assumption: 16-bit activations).
  constexpr std::int64_t kActFp32 = (40'000'000'000 - 6'700'000'000) / 496;
  d.activation_bytes_per_sample = {{"fp32", kActFp32}, {"amp", kActFp32 / 2}};
  // Whatever the batch-16 anecdote holds beyond context, state and activations: 5.00 GB. The
  // anecdote is a Caffe FP32 run, so this is no measurement of PyTorch's cuDNN workspaces and
  // allocator cache, and none for AMP: using it for PyTorch, both precisions, is an assumption.
  d.workspace_bytes = 6'700'000'000 - kContextBytes - d.model_state_bytes - 16 * kActFp32;
  // ImageNet: 138 GB / 1,281,167 JPEGs (CALIBRATION.md, derived).
  d.input_bytes_per_sample = 138'000'000'000 / 1'281'167;
  // FP32 gradient buckets (PyTorch DDP and apex AMP all-reduce FP32 gradients).
  d.gradient_bytes = 4 * kParams;
  // Assumption: 10 s from process start to steady memory (CUDA context, model to the GPU, first
  // batches, cudnn.benchmark autotuning), growing over all of it; PyTorch's caching allocator
  // keeps what a peak reserved (PyTorch docs, "CUDA semantics", memory management).
  d.ramp_up = 10s;
  d.ramp_window = 10s;
  d.keep_peak = true;
  d.peak_activation_fraction = 0.25;  // assumption: evaluation buffers
  d.peak_period = 1h;                 // assumption: one evaluation per epoch-scale interval
  d.peak_duration = 2min;             // assumption
  // Derived: least-squares line through pollux_imagenet_placements.csv single-GPU rows
  // (t = 0.0797 s + b / 237.6 img/s; 0.0797 / 0.9213 at b = 200).
  d.step_overhead_fraction = 0.0865;
  const std::string dle = "NVIDIA DeepLearningExamples RN50 v1.5, PyTorch 21.03 (CALIBRATION.md)";
  d.throughputs = {
      {"V100", "fp32", 112, 367.0, dle},
      {"V100", "amp", 256, 1200.0, dle},
      {"A100", "fp32", 256, 938.0, dle},
      {"A100", "amp", 256, 2470.0, dle},
      {"T4", "amp", 200, 217.09,
       "pollux_imagenet_placements.csv, placement 1 (apex AMP O1, g4dn.12xlarge), fitted line"},
  };
  return d;
}

struct Gpt2Size {
  const char* name;
  std::int64_t params;
  int layers;
  int hidden;
  int heads;
};

// Attention implementation: eager (explicit matmul + softmax, which keeps the a x s x s score,
// softmax and dropout tensors for the backward pass) or fused (PyTorch's
// scaled_dot_product_attention with its FlashAttention / memory-efficient kernels, which keep
// none of them: Dao et al. 2022, "FlashAttention", memory linear in s).
enum class Attention { kEager, kFused };

ModelDefinition gpt2(const Gpt2Size& size, Attention attention) {
  constexpr std::int64_t kSeq = 1024;
  constexpr std::int64_t kVocab = 50257;
  ModelDefinition d;
  d.name = std::string(size.name) + (attention == Attention::kFused ? "-sdpa" : "");
  d.context_bytes = kContextBytes;
  // Adam in mixed precision: 16 bytes/parameter (CALIBRATION.md, ZeRO accounting).
  d.model_state_bytes = 16 * size.params;
  // Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large Transformer Models"),
  // eq. 1: per layer s*b*h*(34 + 5*a*s/h) bytes with 16-bit activations; plus FP32 logits and
  // their gradient, s*V*8 bytes (assumption). FP32 doubles it (assumption). The 5*a*s/h term
  // is the attention scores (2 bytes), softmax output (2) and dropout mask (1) per element of the
  // a x s x s matrix (Korthikanti et al., section 4.1): fused attention does not store it. The
  // softmax statistics FlashAttention keeps (4 bytes x a x s per layer, under 0.1% here) are left
  // out (assumption).
  const std::int64_t scores =
      attention == Attention::kFused ? 0 : 5 * static_cast<std::int64_t>(size.heads) * kSeq * kSeq;
  const auto per_layer = kSeq * size.hidden * 34 + scores;
  const std::int64_t amp = size.layers * per_layer + kSeq * kVocab * 8;
  d.activation_bytes_per_sample = {{"fp32", 2 * amp}, {"amp", amp}};
  d.workspace_bytes = 512 * kMiB;       // assumption: cuBLAS workspace and allocator slack
  d.input_bytes_per_sample = kSeq * 2;  // assumption: uint16 token ids (nanoGPT's format)
  d.gradient_bytes = 4 * size.params;   // FP32 gradient buckets (PyTorch DDP)
  d.ramp_up = 10s;                      // assumption, as ResNet-50's
  d.ramp_window = 10s;                  // assumption
  d.keep_peak = true;                   // PyTorch's caching allocator
  d.peak_activation_fraction = 0.25;    // assumption: evaluation batches
  d.peak_period = 30min;                // assumption
  d.peak_duration = 1min;               // assumption
  d.step_overhead_fraction = 0.05;      // assumption
  // GPT-2 124M: about 108K tokens/s per A100 (CALIBRATION.md, derived from nanoGPT), i.e.
  // 108000 / 1024 sequences/s at nanoGPT's micro-batch 12; larger sizes in proportion to the
  // parameter count (assumption: 6N FLOPs per token).
  constexpr double kTokensPerSecond124m = 108'000.0;
  const double seq_per_s = kTokensPerSecond124m / static_cast<double>(kSeq) * 124'439'808.0 /
                           static_cast<double>(size.params);
  d.throughputs = {{"A100", "amp", 12, seq_per_s, "nanoGPT (CALIBRATION.md), scaled by size"}};
  return d;
}

}  // namespace

std::vector<ModelDefinition> builtin_models() {
  // Sizes: Hugging Face GPT-2 configurations (layers, hidden, heads) and parameter counts.
  // Each size with eager attention (the plain name) and with fused attention ("-sdpa").
  const Gpt2Size sizes[] = {{"gpt2-124m", 124'439'808, 12, 768, 12},
                            {"gpt2-355m", 354'823'168, 24, 1024, 16},
                            {"gpt2-774m", 774'030'080, 36, 1280, 20},
                            {"gpt2-1.5b", 1'557'611'200, 48, 1600, 25}};
  std::vector<ModelDefinition> out{resnet50()};
  for (const Attention a : {Attention::kEager, Attention::kFused}) {
    for (const Gpt2Size& size : sizes) {
      out.push_back(gpt2(size, a));
    }
  }
  return out;
}

double scaled_samples_per_second(const ModelDefinition& def, const std::string& gpu,
                                 const std::string& precision, Throughput* reference) {
  const GpuModel target = gpu_model(gpu);
  const auto find = [&](const std::string& g, const std::string& p) -> const Throughput* {
    for (const auto& t : def.throughputs) {
      if (t.gpu == g && t.precision == p) {
        return &t;
      }
    }
    return nullptr;
  };
  const std::string other = precision == "amp" ? "fp32" : "amp";
  const Throughput* ref = find(target.name, precision);
  if (ref == nullptr) {
    ref = find(target.name, other);
  }
  if (ref == nullptr && !target.scale_from.empty()) {
    ref = find(target.scale_from, precision);
  }
  if (ref == nullptr && !target.scale_from.empty()) {
    ref = find(target.scale_from, other);
  }
  for (const auto& t : def.throughputs) {
    if (ref == nullptr && t.precision == precision) {
      ref = &t;
    }
  }
  if (ref == nullptr && !def.throughputs.empty()) {
    ref = &def.throughputs.front();
  }
  if (ref == nullptr) {
    throw catalogue_error("model", "model '" + def.name + "' has no throughput measurement");
  }
  if (reference != nullptr) {
    *reference = *ref;
  }
  const GpuModel from = gpu_model(ref->gpu);
  const double ratio = (tflops(target, precision) / tflops(from, ref->precision)) *
                       (target.memory_bandwidth / from.memory_bandwidth);
  return ref->samples_per_second * std::sqrt(ratio);
}

Catalogue::Catalogue() {
  for (auto& d : builtin_models()) {
    models_.emplace(d.name, std::move(d));
  }
}

void Catalogue::add(ModelDefinition def) {
  if (models_.contains(def.name)) {
    throw catalogue_error("models", "model '" + def.name + "' is already defined");
  }
  if (def.throughputs.empty()) {
    throw catalogue_error("models", "model '" + def.name + "' needs at least one throughput");
  }
  if (def.activation_bytes_per_sample.empty()) {
    throw catalogue_error("models", "model '" + def.name + "' needs activation bytes per sample");
  }
  for (auto& t : def.throughputs) {
    t.gpu = gpu_model(t.gpu).name;  // aliases to their canonical model
    if (t.precision != "amp" && t.precision != "fp32") {
      throw catalogue_error("precision", "'" + t.precision + "' is not one of: amp, fp32");
    }
    if (t.batch < 1 || !(t.samples_per_second > 0)) {
      throw catalogue_error("throughputs", "batch and samples_per_second must be positive");
    }
  }
  models_.emplace(def.name, std::move(def));
}

std::vector<std::string> Catalogue::model_names() const {
  std::vector<std::string> out;
  for (const auto& [name, def] : models_) {
    out.push_back(name);
  }
  return out;
}

const ModelDefinition& Catalogue::definition(const std::string& model) const {
  const auto it = models_.find(model);
  if (it == models_.end()) {
    std::string known;
    for (const auto& n : model_names()) {
      known += (known.empty() ? "" : ", ") + n;
    }
    throw catalogue_error("model", "unknown model '" + model + "'; known: " + known);
  }
  return it->second;
}

ModelProfile Catalogue::profile(const std::string& model, int batch, const std::string& precision,
                                const std::string& gpu) const {
  const ModelDefinition& def = definition(model);
  if (precision != "amp" && precision != "fp32") {
    throw catalogue_error("precision", "'" + precision + "' is not one of: amp, fp32");
  }
  if (batch < 1 || (def.max_batch > 0 && batch > def.max_batch)) {
    throw catalogue_error(
        "batch_size",
        "batch size " + std::to_string(batch) + " is outside [1, " +
            (def.max_batch > 0 ? std::to_string(def.max_batch) : std::string("unlimited")) + "]");
  }
  Throughput ref;
  const double x = scaled_samples_per_second(def, gpu, precision, &ref);
  const double t_ref = static_cast<double>(ref.batch) / x;
  const double f = def.step_overhead_fraction;

  ModelProfile p;
  p.model = model;
  p.gpu = gpu;
  p.precision = precision;
  p.batch_size = batch;
  p.context_bytes = def.context_bytes;
  p.model_state_bytes = def.model_state_bytes;
  const auto act = def.activation_bytes_per_sample.find(precision);
  const std::int64_t per_sample = act != def.activation_bytes_per_sample.end()
                                      ? act->second
                                      : def.activation_bytes_per_sample.begin()->second;
  // Bytes scale with the batch: every product and sum below is checked, and a worker's peak
  // memory is at most kMaxWorkerMemoryBytes, which keeps every later sum of it (steady + peak,
  // workers x bytes on a card) far from 2^63 (docs/robustness.md, "Arithmetic").
  const auto too_big = [&](const std::string& what) {
    return catalogue_error("batch_size", "model '" + model + "' at batch size " +
                                             std::to_string(batch) + ": " + what + " exceeds " +
                                             std::to_string(kMaxWorkerMemoryBytes >> 40) +
                                             " TiB per worker");
  };
  const auto activation = checked_mul(per_sample, batch);
  if (!activation || *activation > kMaxWorkerMemoryBytes) {
    throw too_big("activation memory (activation per sample x batch)");
  }
  p.activation_bytes = *activation;
  p.workspace_bytes = def.workspace_bytes;
  p.ramp_up = def.ramp_up;
  p.ramp_window = std::min(def.ramp_window, def.ramp_up);
  p.keep_peak = def.keep_peak;
  p.peak.extra_bytes =
      static_cast<std::int64_t>(
          std::llround(def.peak_activation_fraction * static_cast<double>(p.activation_bytes))) +
      def.peak_extra_bytes;
  std::int64_t total = 0;
  for (const std::int64_t part :
       {p.context_bytes, p.model_state_bytes, p.workspace_bytes, p.activation_bytes,
        std::max<std::int64_t>(p.peak.extra_bytes, 0)}) {
    const auto sum = checked_add(total, part);
    if (!sum || *sum > kMaxWorkerMemoryBytes) {
      throw too_big("peak GPU memory (context + model state + workspace + activations + peak)");
    }
    total = *sum;
  }
  p.peak.period = def.peak_period;
  p.peak.duration = def.peak_duration;
  p.compute_seconds =
      t_ref * (f + (1.0 - f) * static_cast<double>(batch) / static_cast<double>(ref.batch));
  // input per sample x batch: both at most 2^63 - 1 as read; saturating keeps an absurd size
  // an absurd (but defined) demand on the data device.
  p.input_bytes = saturating_mul(def.input_bytes_per_sample, batch);
  p.gradient_bytes = def.gradient_bytes;
  return p;
}

ModelProfile profile_for(const std::string& model, int batch, const std::string& precision,
                         const std::string& gpu) {
  return Catalogue().profile(model, batch, precision, gpu);
}

}  // namespace tidesim::workloads
