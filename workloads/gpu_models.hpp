#pragma once
/// The GPU families training speeds are measured on or scaled to (docs/model-workloads.md,
/// "Scaling between GPUs"). Hardware facts (memory, memory bandwidth, FP32 and FP16 tensor
/// TFLOPS) come from the hardware catalogue, topologies/gpu_models.hpp; this catalogue adds only
/// what is training-specific: the TF32 rate PyTorch "fp32" training uses on Ampere and later, the
/// packed-FP16 "amp" rate of GPUs without tensor cores, the GPU to scale from, and aliases.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tidesim::workloads {

/// One GPU model. TFLOPS are dense (no sparsity) peak figures.
struct GpuModel {
  /// Catalogue name: "A10", "T4", "V100", "A100", "H100", ...
  std::string name;
  /// The hardware catalogue model (tidesim::gpu_model) the hardware figures below come from.
  std::string hardware;
  /// Device memory in bytes (from the hardware catalogue).
  std::int64_t memory_bytes = 0;
  /// Peak TFLOPS that PyTorch "fp32" training uses by default (TF32 tensor cores on Ampere and
  /// later, this catalogue's figure; plain FP32 before, from the hardware catalogue).
  double fp32_tflops = 0;
  /// Peak TFLOPS "amp" training uses: FP16 tensor cores (from the hardware catalogue), or packed
  /// FP16 on a GPU without tensor cores (P100; this catalogue's figure).
  double amp_tflops = 0;
  /// Memory bandwidth in bytes/s (from the hardware catalogue).
  double memory_bandwidth = 0;
  /// The measured GPU that speeds are scaled from when this one has no measurement of its own.
  std::string scale_from;
  /// Where the figures come from: the hardware catalogue's source, then the training figures'.
  std::string source;
};

/// Every GPU model the catalogue knows, in a fixed order.
std::vector<GpuModel> gpu_models();

/// Alias names (as the hardware catalogue and the openb trace write them) and the model each
/// stands for, in a fixed order.
std::vector<std::pair<std::string, std::string>> gpu_aliases();

/// The GPU called `name` (exact, case-sensitive; an alias returns its canonical model). Throws
/// InputError (field "gpu") listing the known names when there is none.
GpuModel gpu_model(const std::string& name);

}  // namespace tidesim::workloads
