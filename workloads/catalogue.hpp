#pragma once
/// The model catalogue: what a training job of a given model, batch size and precision does on a
/// given GPU (memory, compute per step, bytes moved per step). Every default and formula is in
/// docs/model-workloads.md with its source; numbers not backed by a source are marked assumption.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tidesim/sim/engine/time.hpp"

namespace tidesim::workloads {

/// A periodic memory peak on top of steady state (evaluation passes, say). The k-th peak
/// (k = 1, 2, ...) covers [ramp_up + k x period, ramp_up + k x period + duration).
struct MemoryPeak {
  /// Bytes added during a peak; 0 means no peaks.
  std::int64_t extra_bytes = 0;
  /// Time between peak starts (after ramp-up). Zero means no peaks.
  Duration period{};
  /// Length of one peak; shorter than `period`.
  Duration duration{};
};

/// The most GPU memory one worker of a model profile may need at its peak: 1 PiB (2^50 bytes),
/// about 5,000 times the largest card of the catalogue. Catalogue::profile refuses more, so the
/// memory sums of the run (steady + peak, a card's workers) stay far below 2^63.
inline constexpr std::int64_t kMaxWorkerMemoryBytes = std::int64_t{1} << 50;

/// One model x batch x precision x GPU, per GPU (one data-parallel worker).
struct ModelProfile {
  /// Catalogue key, GPU name (as asked), precision ("amp" | "fp32") and local batch (samples).
  std::string model;
  std::string gpu;
  std::string precision;
  int batch_size = 0;
  /// CUDA context of the process, bytes.
  std::int64_t context_bytes = 0;
  /// Weights + gradients + optimizer state, bytes.
  std::int64_t model_state_bytes = 0;
  /// Activations kept for the backward pass at this batch size, bytes.
  std::int64_t activation_bytes = 0;
  /// Framework workspace and allocator cache (cuDNN/cuBLAS workspaces, fragmentation), bytes.
  std::int64_t workspace_bytes = 0;
  /// Time from process start until memory reaches steady state (workloads/memory.hpp).
  Duration ramp_up{};
  /// Length of the growth from context + model state to steady memory, ending at ramp_up (in
  /// kRampIncrements equal steps); zero = one step at ramp_up. At most ramp_up.
  Duration ramp_window{};
  /// Periodic extra memory (evaluation).
  MemoryPeak peak;
  /// True for PyTorch's caching allocator: memory reserved for a peak is kept after it (the
  /// high-water mark ratchets); false when the framework gives it back after each peak.
  bool keep_peak = true;
  /// Seconds of GPU compute per step when the job has the GPU to itself.
  double compute_seconds = 0;
  /// Bytes read from storage per step by this worker (its local batch).
  std::int64_t input_bytes = 0;
  /// Bytes all-reduced per step (the gradients).
  std::int64_t gradient_bytes = 0;

  /// Steady-state memory: context + model state + workspace + activations.
  std::int64_t steady_bytes() const {
    return context_bytes + model_state_bytes + workspace_bytes + activation_bytes;
  }
};

/// A measured training speed: `samples_per_second` of one GPU at local batch `batch`.
struct Throughput {
  /// GPU model (canonical name once added to a Catalogue).
  std::string gpu;
  std::string precision;  // "fp32" or "amp"
  int batch = 0;
  double samples_per_second = 0;
  /// Where the measurement comes from.
  std::string source;
};

/// Everything the catalogue knows about one model; built-in or defined by a scenario ("traced").
struct ModelDefinition {
  /// Catalogue key.
  std::string name;
  /// CUDA context and weights + gradients + optimizer state per GPU, bytes.
  std::int64_t context_bytes = 0;
  std::int64_t model_state_bytes = 0;
  /// Activation bytes per sample, by precision ("fp32", "amp").
  std::map<std::string, std::int64_t> activation_bytes_per_sample;
  /// Framework workspace, bytes read from storage per sample, bytes all-reduced per step.
  std::int64_t workspace_bytes = 0;
  std::int64_t input_bytes_per_sample = 0;
  std::int64_t gradient_bytes = 0;
  /// Time to reach steady memory and length of the growth before it (ModelProfile).
  Duration ramp_up{};
  Duration ramp_window{};
  /// Caching allocator: peaks are kept (ModelProfile::keep_peak).
  bool keep_peak = true;
  /// Peak extra = peak_activation_fraction x activation bytes + peak_extra_bytes.
  double peak_activation_fraction = 0;
  std::int64_t peak_extra_bytes = 0;
  /// Peak spacing and length (MemoryPeak); zero period = no peaks.
  Duration peak_period{};
  Duration peak_duration{};
  /// Share of the step time at the measured batch that does not shrink with the batch (launch,
  /// optimizer step, Python): compute(b) = T_ref x (f + (1 - f) x b / b_ref).
  double step_overhead_fraction = 0;
  /// Measured speeds; at least one.
  std::vector<Throughput> throughputs;
  /// Largest accepted local batch; 0 = no limit.
  int max_batch = 0;
};

/// The samples/s that `def` reaches on `gpu` at `precision` at the batch of the measurement it is
/// scaled from (returned in `reference`): a measurement on that GPU and precision when there is
/// one; otherwise scaled from the nearest measurement by
/// X = X_ref x sqrt((TFLOPS / TFLOPS_ref) x (bandwidth / bandwidth_ref)).
double scaled_samples_per_second(const ModelDefinition& def, const std::string& gpu,
                                 const std::string& precision, Throughput* reference = nullptr);

/// A set of model definitions: the built-in ones plus traced ones added by a scenario.
class Catalogue {
 public:
  /// The built-in models: resnet50, gpt2-124m, gpt2-355m, gpt2-774m, gpt2-1.5b.
  Catalogue();

  /// Adds a model defined from measurements; InputError when the name is taken or the definition
  /// is incomplete (no throughput, unknown GPU or precision in a throughput).
  void add(ModelDefinition def);

  /// The profile of `model` at local batch `batch`, `precision` ("fp32" | "amp"), on `gpu`.
  /// Throws InputError for an unknown model, precision or GPU (listing the known ones), a
  /// batch outside [1, max_batch], or a peak memory per worker over kMaxWorkerMemoryBytes.
  ModelProfile profile(const std::string& model, int batch, const std::string& precision,
                       const std::string& gpu) const;

  /// Names of every model, sorted.
  std::vector<std::string> model_names() const;
  /// The definition of `model`; InputError listing the known ones when absent.
  const ModelDefinition& definition(const std::string& model) const;

 private:
  std::map<std::string, ModelDefinition> models_;
};

/// profile() of the built-in catalogue.
ModelProfile profile_for(const std::string& model, int batch, const std::string& precision,
                         const std::string& gpu);

/// The built-in definitions (resnet50 and the four GPT-2 sizes).
std::vector<ModelDefinition> builtin_models();

}  // namespace tidesim::workloads
