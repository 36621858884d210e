#pragma once
/// Datasheet figures of the GPU models the catalogue knows, used to scale measured training speed
/// from one GPU to another (docs/model-workloads.md, "Scaling between GPUs").
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tidesim::workloads {

/// One GPU model. TFLOPS are dense (no sparsity) peak figures.
struct GpuModel {
  /// Catalogue name: "A10", "T4", "V100", "A100", "H100".
  std::string name;
  /// Device memory in bytes.
  std::int64_t memory_bytes = 0;
  /// Peak TFLOPS that PyTorch "fp32" training uses by default (TF32 tensor cores on Ampere and
  /// later, plain FP32 before).
  double fp32_tflops = 0;
  /// Peak FP16 tensor-core TFLOPS (what "amp" training uses).
  double amp_tflops = 0;
  /// Memory bandwidth in bytes/s.
  double memory_bandwidth = 0;
  /// The measured GPU that speeds are scaled from when this one has no measurement of its own.
  std::string scale_from;
  /// Where the figures come from.
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
