#include "workloads/gpu_models.hpp"

#include "sim/error.hpp"

namespace tidesim::workloads {
namespace {
constexpr std::int64_t kGiB = std::int64_t{1} << 30;
}  // namespace

std::vector<GpuModel> gpu_models() {
  // Memory and bandwidth of A10/V100 and the NVLink facts: reference/CALIBRATION.md ("GPUs").
  // TFLOPS, T4 and H100 bandwidth: NVIDIA datasheets (A10, T4, V100, A100, H100 SXM), dense
  // figures.
  return {
      {"A10", 24 * kGiB, 62.5, 125.0, 600e9, "V100",
       "CALIBRATION.md (24 GB, 600 GB/s, FP16 tensor 125 TFLOPS); A10 datasheet (TF32 62.5)"},
      {"T4", 16 * kGiB, 8.1, 65.0, 320e9, "V100", "T4 datasheet (FP32 8.1, FP16 65, 320 GB/s)"},
      {"V100", 16 * kGiB, 15.7, 125.0, 900e9, "",
       "CALIBRATION.md (V100-SXM2-16GB, 900 GB/s); V100 datasheet (FP32 15.7, tensor 125)"},
      {"A100", 80 * kGiB, 156.0, 312.0, 2039e9, "",
       "A100-SXM4-80GB datasheet (TF32 156, FP16 312, 2,039 GB/s)"},
      {"H100", 80 * kGiB, 494.7, 989.4, 3350e9, "A100",
       "CALIBRATION.md (80 GB); H100-SXM datasheet (TF32 494.7, FP16 989.4, 3.35 TB/s)"},
      {"A100-SXM4-40", 40 * kGiB, 156.0, 312.0, 1555e9, "A100",
       "A100-SXM4-40GB datasheet (TF32 156, FP16 312, 1,555 GB/s)"},
      {"A100-PCIe", 40 * kGiB, 156.0, 312.0, 1555e9, "A100",
       "A100 PCIe 40GB datasheet (TF32 156, FP16 312, 1,555 GB/s)"},
      {"H200", 141 * kGiB, 494.7, 989.4, 4800e9, "A100",
       "CALIBRATION.md (141 GB); H200 SXM datasheet (TFLOPS as H100, 4.8 TB/s)"},
      {"P100", 16 * kGiB, 9.3, 18.7, 732e9, "V100",
       "Tesla P100 PCIe 16GB datasheet (FP32 9.3, FP16 18.7 without tensor cores, 732 GB/s)"},
  };
}

std::vector<std::pair<std::string, std::string>> gpu_aliases() {
  // Names the hardware catalogue (topologies/gpu_models.hpp) and the openb trace use. Speeds
  // depend only on TFLOPS and bandwidth, which these share with their canonical model; openb's
  // undisclosed G1-G3 are taken as V100 (assumption, as the hardware catalogue does).
  return {{"V100-SXM2-16", "V100"}, {"V100-SXM2-32", "V100"}, {"V100M16", "V100"},
          {"V100M32", "V100"},      {"G1", "V100"},           {"G2", "V100"},
          {"G3", "V100"},           {"A100-SXM4-80", "A100"}, {"H100-SXM", "H100"}};
}

GpuModel gpu_model(const std::string& name) {
  std::string known;
  for (const auto& [alias, canonical] : gpu_aliases()) {
    if (alias == name) {
      return gpu_model(canonical);
    }
  }
  for (auto& g : gpu_models()) {
    if (g.name == name) {
      return g;
    }
    known += (known.empty() ? "" : ", ") + g.name;
  }
  for (const auto& [alias, canonical] : gpu_aliases()) {
    known += ", " + alias;
  }
  throw InputError(SourceLocation{}, "gpu", "unknown GPU model '" + name + "'; known: " + known);
}

}  // namespace tidesim::workloads
