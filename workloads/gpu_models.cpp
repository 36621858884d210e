#include "tidesim/workloads/gpu_models.hpp"

#include <array>

#include "tidesim/sim/input/error.hpp"
#include "tidesim/topologies/gpu_models.hpp"

namespace tidesim::workloads {
namespace {

// What only training needs, per workload GPU family. Memory, memory bandwidth, plain FP32 and
// FP16 tensor TFLOPS are hardware facts and come from the hardware catalogue
// (topologies/gpu_models.hpp) model named in `hardware`.
struct TrainingFigures {
  const char* name;
  // The hardware catalogue model whose figures this family uses.
  const char* hardware;
  // Dense TF32 tensor-core TFLOPS, what PyTorch "fp32" training runs at on Ampere and later;
  // 0: the GPU has no TF32 and "fp32" runs at the hardware's plain FP32 rate.
  double tf32_tflops;
  // TFLOPS "amp" training runs at on a GPU without tensor cores (packed FP16); 0: the
  // hardware's FP16 tensor-core rate.
  double amp_without_tensor_tflops;
  const char* scale_from;
  const char* source;
};

constexpr std::array<TrainingFigures, 10> kTraining{{
    {"A10", "A10", 62.5, 0, "V100", "A10 datasheet (TF32 62.5)"},
    {"T4", "T4", 0, 0, "V100", "Turing: no TF32, fp32 at the FP32 rate"},
    {"V100", "V100-SXM2-16", 0, 0, "", "Volta: no TF32, fp32 at the FP32 rate"},
    {"A100", "A100-SXM4-80", 156.0, 0, "", "A100 datasheet (TF32 156)"},
    {"H100", "H100-SXM", 494.7, 0, "A100", "H100 whitepaper (TF32 494.7 dense)"},
    {"A100-SXM4-40", "A100-SXM4-40", 156.0, 0, "A100", "A100 datasheet (TF32 156)"},
    {"A100-PCIe", "A100-PCIe", 156.0, 0, "A100", "A100 PCIe datasheet (TF32 156)"},
    {"H200", "H200", 494.7, 0, "A100", "H200 datasheet (TF32 as H100, 494.7 dense)"},
    {"P100", "P100", 0, 18.7, "V100",
     "Tesla P100 PCIe 16GB datasheet (FP16 18.7 without tensor cores); no TF32"},
    {"K80", "K80", 0, 4.37, "V100",
     "Kepler GK210: no TF32, no tensor cores and no FP16 rate above FP32 (packed FP16 came with "
     "GP100), so amp at the FP32 rate (assumption)"},
}};

GpuModel make_model(const TrainingFigures& t) {
  const tidesim::GpuModel& hw = tidesim::gpu_model(t.hardware);
  GpuModel g;
  g.name = t.name;
  g.hardware = std::string(hw.name);
  g.memory_bytes = hw.memory_bytes;
  g.fp32_tflops = t.tf32_tflops > 0 ? t.tf32_tflops : hw.fp32_tflops;
  g.amp_tflops =
      t.amp_without_tensor_tflops > 0 ? t.amp_without_tensor_tflops : hw.fp16_tensor_tflops;
  g.memory_bandwidth = hw.memory_bandwidth;
  g.scale_from = t.scale_from;
  g.source = "hardware: " + std::string(hw.source) + "; training: " + t.source;
  return g;
}

}  // namespace

std::vector<GpuModel> gpu_models() {
  std::vector<GpuModel> models;
  models.reserve(kTraining.size());
  for (const TrainingFigures& t : kTraining) {
    models.push_back(make_model(t));
  }
  return models;
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
  for (const auto& [alias, canonical] : gpu_aliases()) {
    if (alias == name) {
      return gpu_model(canonical);
    }
  }
  std::string known;
  for (const TrainingFigures& t : kTraining) {
    if (t.name == name) {
      return make_model(t);
    }
    known += (known.empty() ? "" : ", ") + std::string(t.name);
  }
  for (const auto& [alias, canonical] : gpu_aliases()) {
    known += ", " + alias;
  }
  throw InputError(SourceLocation{}, "gpu", "unknown GPU model '" + name + "'; known: " + known);
}

}  // namespace tidesim::workloads
