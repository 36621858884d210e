#pragma once
/// The GPU hardware catalogue: memory, compute, memory bandwidth and interconnect of each model a
/// scenario or trace may name. The catalogue is data, topologies/gpu_models.csv, compiled in and
/// read once at first use. Each figure names its source in the `source` column (NVLink generation
/// tables, vendor datasheets, measured nvidia-smi totals), and guesses say "assumption".
/// docs/model-hardware.md has the full table.
#include <cstdint>
#include <span>
#include <string_view>

namespace tidesim {

/// One GPU model. Zero in a numeric field means "not published / not modelled".
struct GpuModel {
  /// Catalogue name, as scenarios write it ("A10", "V100-SXM2-16", "H100-SXM").
  std::string_view name;
  /// Device memory in bytes (marketing GB taken as GiB, as nvidia-smi's "Total" rounds).
  std::int64_t memory_bytes = 0;
  /// Memory the card reports to processes (nvidia-smi's / NVML's total), bytes: less than the
  /// nominal size (an A10 shows 23,028 MiB of its 24 GiB). 0 = no reported figure found; then
  /// visible_memory() gives the nominal size (assumption). Sources in gpu_models.cpp ("SMI").
  std::int64_t visible_memory_bytes = 0;
  /// Peak FP32 throughput, TFLOPS.
  double fp32_tflops = 0.0;
  /// Peak dense FP16 tensor-core throughput, TFLOPS (0 when the GPU has no tensor cores).
  double fp16_tensor_tflops = 0.0;
  /// Device memory bandwidth, bytes/s.
  double memory_bandwidth = 0.0;
  /// NVLink generation (0: none; 1: P100; 2: V100; 3: A100; 4: H100/H200).
  int nvlink_generation = 0;
  /// NVLink links per GPU.
  int nvlink_links = 0;
  /// PCIe generation of the host link (x16).
  int pcie_generation = 0;
  /// True for the openb trace's undisclosed models (G1/G2/G3): every figure is an assumption.
  bool undisclosed = false;
  /// Where the figures come from.
  std::string_view source;
};

/// The memory a process can use on a card of `model`: visible_memory_bytes, or memory_bytes
/// when no visible figure is known. This is the card capacity of the OOM rule and of the
/// schedulers' memory fits (HAMi, too, registers NVML's total as the card's memory).
std::int64_t visible_memory(const GpuModel& model);

/// Every model of the catalogue, in a fixed order.
std::span<const GpuModel> gpu_models();

/// The text of topologies/gpu_models.csv, the catalogue gpu_models() reads (compiled in from the
/// file by cmake/embed_text.cmake).
std::string_view gpu_models_csv();

/// The model named `name` (exact, case-sensitive). Throws InputError listing the known names.
const GpuModel& gpu_model(std::string_view name);

/// Bandwidth of one NVLink link in one direction, bytes/s: 25 GB/s for generations 2-4
/// (CALIBRATION.md: 50 GB/s bidirectional per link), 20 GB/s for generation 1 (P100 whitepaper).
/// Throws std::invalid_argument for another generation.
double nvlink_link_bandwidth(int generation);

/// Effective bandwidth of a PCIe x16 link in one direction, bytes/s: the measured pinned
/// host-to-device figures of CALIBRATION.md (Gen3 12.4 GB/s, Gen4 25 GB/s); Gen5 is Gen4's
/// measured/theoretical ratio applied to 63 GB/s (50 GB/s, derived, assumption).
/// Throws std::invalid_argument for another generation.
double pcie_bandwidth(int generation);

}  // namespace tidesim
