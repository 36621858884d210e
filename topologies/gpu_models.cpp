#include "tidesim/topologies/gpu_models.hpp"

#include <array>
#include <stdexcept>
#include <string>

#include "tidesim/sim/input/error.hpp"

namespace tidesim {

namespace {

constexpr std::int64_t kMiB = 1024LL * 1024;
constexpr std::int64_t kGiB = 1024 * kMiB;
constexpr double kGBps = 1e9;

// Sources, abbreviated in the table below:
//  CAL   ../shared/reference/CALIBRATION.md, "GPUs".
//  DS    the vendor datasheet of that GPU (NVIDIA A10/T4/V100/A100/H100/H200 datasheets); these
//        figures are not in CALIBRATION.md and were not re-checked against it.
//  SMI   visible memory: the total nvidia-smi (NVML) reports, listed per GPU in
//        modal-labs/modal-client pull request 2797 (A10 23,028 MiB, T4 15,360 MiB, A100 40GB
//        40,960 MiB, A100 80GB 81,920 MiB, H100 81,559 MiB); the A10's NVML total
//        24,146,608,128 bytes (= 23,028 MiB) is also in mayooot/detect-gpu issue 3. A10G and
//        A100-PCIe take the A10's and A100 40GB's figure (assumption: same memory part). A model
//        without a figure leaves visible_memory_bytes 0: its nominal size is used (assumption).

// The records, each figure written once: a name whose figures are another record's is made from
// that record below (openb's V100s from the SXM2 cards, its undisclosed G1-G3 from one assumed
// record).

constexpr GpuModel kA10{
    .name = "A10",
    .memory_bytes = 24 * kGiB,
    .visible_memory_bytes = 23028 * kMiB,
    .fp32_tflops = 31.2,
    .fp16_tensor_tflops = 125.0,
    .memory_bandwidth = 600 * kGBps,
    .nvlink_generation = 0,
    .nvlink_links = 0,
    .pcie_generation = 4,
    .undisclosed = false,
    .source = "CAL (Baseten 'A10 vs A10G'); PCIe 4.0 x16, no NVLink",
};

constexpr GpuModel kA10G{
    .name = "A10G",
    .memory_bytes = 24 * kGiB,
    .visible_memory_bytes = 23028 * kMiB,
    .fp32_tflops = 31.2,
    .fp16_tensor_tflops = 70.0,
    .memory_bandwidth = 600 * kGBps,
    .nvlink_generation = 0,
    .nvlink_links = 0,
    .pcie_generation = 4,
    .undisclosed = false,
    .source =
        "CAL (AWS g5: PCIe interconnect); FP16 tensor 70 TFLOPS from Baseten's "
        "comparison, not in CAL (assumption)",
};

constexpr GpuModel kT4{
    .name = "T4",
    .memory_bytes = 16 * kGiB,
    .visible_memory_bytes = 15360 * kMiB,
    .fp32_tflops = 8.1,
    .fp16_tensor_tflops = 65.0,
    .memory_bandwidth = 320 * kGBps,
    .nvlink_generation = 0,
    .nvlink_links = 0,
    .pcie_generation = 3,
    .undisclosed = false,
    .source = "DS (NVIDIA T4 datasheet)",
};

constexpr GpuModel kP100{
    .name = "P100",
    .memory_bytes = 16 * kGiB,
    .fp32_tflops = 9.3,
    .fp16_tensor_tflops = 0.0,
    .memory_bandwidth = 732 * kGBps,
    .nvlink_generation = 0,
    .nvlink_links = 0,
    .pcie_generation = 3,
    .undisclosed = false,
    .source =
        "DS (Tesla P100 PCIe 16GB; openb's P100 form factor is not disclosed: "
        "PCIe assumed)",
};

constexpr GpuModel kV100Sxm2_16{
    .name = "V100-SXM2-16",
    .memory_bytes = 16 * kGiB,
    .fp32_tflops = 15.7,
    .fp16_tensor_tflops = 125.0,
    .memory_bandwidth = 900 * kGBps,
    .nvlink_generation = 2,
    .nvlink_links = 6,
    .pcie_generation = 3,
    .undisclosed = false,
    .source = "CAL (memory, bandwidth, NVLink2 6 links); DS (TFLOPS)",
};

constexpr GpuModel kV100Sxm2_32{
    .name = "V100-SXM2-32",
    .memory_bytes = 32 * kGiB,
    .fp32_tflops = 15.7,
    .fp16_tensor_tflops = 125.0,
    .memory_bandwidth = 900 * kGBps,
    .nvlink_generation = 2,
    .nvlink_links = 6,
    .pcie_generation = 3,
    .undisclosed = false,
    .source = "CAL (memory, bandwidth, NVLink2 6 links); DS (TFLOPS)",
};

constexpr GpuModel kA100Sxm4_40{
    .name = "A100-SXM4-40",
    .memory_bytes = 40 * kGiB,
    .visible_memory_bytes = 40960 * kMiB,
    .fp32_tflops = 19.5,
    .fp16_tensor_tflops = 312.0,
    .memory_bandwidth = 1555 * kGBps,
    .nvlink_generation = 3,
    .nvlink_links = 12,
    .pcie_generation = 4,
    .undisclosed = false,
    .source = "CAL (40 GB, NVLink3 12 links); DS (TFLOPS, 1,555 GB/s)",
};

constexpr GpuModel kA100Sxm4_80{
    .name = "A100-SXM4-80",
    .memory_bytes = 80 * kGiB,
    .visible_memory_bytes = 81920 * kMiB,
    .fp32_tflops = 19.5,
    .fp16_tensor_tflops = 312.0,
    .memory_bandwidth = 2039 * kGBps,
    .nvlink_generation = 3,
    .nvlink_links = 12,
    .pcie_generation = 4,
    .undisclosed = false,
    .source = "CAL (80 GB, NVLink3 12 links); DS (TFLOPS, 2,039 GB/s)",
};

constexpr GpuModel kA100Pcie{
    .name = "A100-PCIe",
    .memory_bytes = 40 * kGiB,
    .visible_memory_bytes = 40960 * kMiB,
    .fp32_tflops = 19.5,
    .fp16_tensor_tflops = 312.0,
    .memory_bandwidth = 1555 * kGBps,
    .nvlink_generation = 0,
    .nvlink_links = 0,
    .pcie_generation = 4,
    .undisclosed = false,
    .source = "DS (A100 PCIe 40GB; the optional NVLink bridge is not modelled)",
};

constexpr GpuModel kH100Sxm{
    .name = "H100-SXM",
    .memory_bytes = 80 * kGiB,
    .visible_memory_bytes = 81559 * kMiB,
    .fp32_tflops = 67.0,
    .fp16_tensor_tflops = 989.4,
    .memory_bandwidth = 3350 * kGBps,
    .nvlink_generation = 4,
    .nvlink_links = 18,
    .pcie_generation = 5,
    .undisclosed = false,
    .source =
        "CAL (80 GB, NVLink4 18 links); DS (FP32 67, 3.35 TB/s); H100 whitepaper "
        "(FP16 tensor 989.4 dense: 528 tensor cores x 1,024 FLOP/clock x 1.83 GHz)",
};

constexpr GpuModel kH200{
    .name = "H200",
    .memory_bytes = 141 * kGiB,
    .fp32_tflops = 67.0,
    .fp16_tensor_tflops = 989.4,
    .memory_bandwidth = 4800 * kGBps,
    .nvlink_generation = 4,
    .nvlink_links = 18,
    .pcie_generation = 5,
    .undisclosed = false,
    .source =
        "CAL (141 GB, NVLink4 18 links); DS (H200 SXM: TFLOPS as H100 (FP16 "
        "tensor 989.4 dense, H100 whitepaper), 4.8 TB/s)",
};

// A record under another name.
constexpr GpuModel renamed(GpuModel model, std::string_view name) {
  model.name = name;
  return model;
}

// openb's V100s: the SXM2 card's figures; the trace does not disclose the interconnect, so no
// NVLink (PCIe assumed).
constexpr GpuModel openb_v100(GpuModel sxm2, std::string_view name, std::string_view source) {
  sxm2.name = name;
  sxm2.nvlink_generation = 0;
  sxm2.nvlink_links = 0;
  sxm2.source = source;
  return sxm2;
}

constexpr GpuModel kV100M16 = openb_v100(
    kV100Sxm2_16, "V100M16",
    "openb V100 16 GB: figures of V100-SXM2-16; interconnect not disclosed, PCIe assumed "
    "(assumption)");
constexpr GpuModel kV100M32 = openb_v100(
    kV100Sxm2_32, "V100M32",
    "openb V100 32 GB: figures of V100-SXM2-32; interconnect not disclosed, PCIe assumed "
    "(assumption)");

// openb's undisclosed models (G1, G2, G3; named below): nothing is published. Assumption: treat
// each as a 16 GB-class datacentre GPU like V100M16, PCIe only, so that a replay runs; scenarios
// should override.
constexpr GpuModel kOpenbUndisclosed = [] {
  GpuModel model = kV100M16;
  model.name = {};
  model.undisclosed = true;
  model.source = "openb undisclosed model: every figure is an assumption (as V100M16)";
  return model;
}();

// The catalogue, in gpu_models()' order.
constexpr std::array kAllModels{kA10,
                                kA10G,
                                kT4,
                                kP100,
                                kV100Sxm2_16,
                                kV100Sxm2_32,
                                kV100M16,
                                kV100M32,
                                kA100Sxm4_40,
                                kA100Sxm4_80,
                                kA100Pcie,
                                kH100Sxm,
                                kH200,
                                renamed(kOpenbUndisclosed, "G1"),
                                renamed(kOpenbUndisclosed, "G2"),
                                renamed(kOpenbUndisclosed, "G3")};

}  // namespace

std::int64_t visible_memory(const GpuModel& model) {
  return model.visible_memory_bytes > 0 ? model.visible_memory_bytes : model.memory_bytes;
}

std::span<const GpuModel> gpu_models() {
  return kAllModels;
}

const GpuModel& gpu_model(std::string_view name) {
  for (const GpuModel& m : kAllModels) {
    if (m.name == name) {
      return m;
    }
  }
  std::string known;
  for (const GpuModel& m : kAllModels) {
    known += known.empty() ? "" : ", ";
    known += m.name;
  }
  throw InputError(SourceLocation{}, "gpu_model",
                   "unknown GPU model '" + std::string(name) + "'; known: " + known);
}

double nvlink_link_bandwidth(int generation) {
  switch (generation) {
    case 1:
      return 20 * kGBps;  // P100 whitepaper: 40 GB/s bidirectional per link (not in CAL)
    case 2:
    case 3:
    case 4:
      return 25 * kGBps;  // CAL: one NVLink2/3/4 link is 50 GB/s bidirectional
    default:
      throw std::invalid_argument("no NVLink generation " + std::to_string(generation));
  }
}

double pcie_bandwidth(int generation) {
  switch (generation) {
    case 3:
      return 12.4 * kGBps;  // CAL: measured pinned host-to-device copy, Gen3
    case 4:
      return 25 * kGBps;  // CAL: measured pinned host-to-device copy, Gen4
    case 5:
      return 63.0 * (25.0 / 31.5) * kGBps;  // derived: Gen4's measured/theoretical ratio x 63 GB/s
    default:
      throw std::invalid_argument("no PCIe generation " + std::to_string(generation));
  }
}

}  // namespace tidesim
