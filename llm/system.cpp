#include "tidesim/llm/system.hpp"

#include <cmath>

namespace tidesim::llm {

double EfficiencyTable::at(double amount) const {
  for (const auto& [threshold, efficiency] : rows) {
    if (amount >= threshold) {
      return efficiency;
    }
  }
  return rows.empty() ? 1.0 : rows.back().second;
}

double Network::time(Collective op, double bytes, std::int64_t participants) const {
  if (participants < 2 || bytes <= 0) {
    return 0.0;
  }
  const CollectiveCost& c = ops[static_cast<std::size_t>(op)];
  const double wire = bytes * c.scalar * (1.0 + c.offset / static_cast<double>(participants));
  return latency + wire / (bandwidth * efficiency);
}

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Efficiency by kernel size: Calculon's calibration for Megatron on A100 (calculon-ai/calculon,
// systems/a100_80g.json, fitted to Korthikanti et al. 2022 Table 5). An assumption for H100.
EfficiencyTable matrix_efficiency() {
  return {{{128e9, 0.95}, {16e9, 0.9}, {1e9, 0.6}, {0, 0.1}}};
}
EfficiencyTable vector_efficiency() {
  return {{{16e9, 0.95}, {1e9, 0.5}, {0, 0.1}}};
}
EfficiencyTable hbm_efficiency() {
  return {{{100e6, 0.9}, {10e6, 0.75}, {1e6, 0.6}, {0, 0.3}}};
}
EfficiencyTable host_efficiency() {
  return {{{100e6, 0.95}, {10e6, 0.9}, {1e6, 0.7}, {0, 0.3}}};
}

// NVLink inside the node: a ring's all-reduce moves 2S(n-1)/n; reduce-scatter and all-gather are
// priced 1.5 S(n-1)/n, Calculon's calibration of Megatron's sequence-parallel collectives
// (systems/a100_80g.json). Efficiency 0.65 and 15% compute lost while overlapped: the same file.
Network nvlink(double bandwidth) {
  return {.bandwidth = bandwidth,
          .efficiency = 0.65,
          .size = 8,
          .latency = 10e-6,
          .ops = {CollectiveCost{1, 0}, {1.5, -1}, {1.5, -1}, {2, -1}},
          .must_be_filled = true,
          .processor_usage = 0.15};
}

// The cluster network (InfiniBand): one NIC per GPU, priced per GPU by the file's scalars.
Network infiniband(double bandwidth) {
  return {.bandwidth = bandwidth,
          .efficiency = 0.9,
          .size = 65536,
          .latency = 20e-6,
          .ops = {CollectiveCost{1, 0}, {1, 0}, {1, 0}, {1, 0}},
          .must_be_filled = false,
          .processor_usage = 0.02};
}

// NVIDIA A100 80 GB SXM (A100 datasheet, 2021): 312 TFLOPS dense FP16/BF16 tensor cores, 78 TFLOPS
// FP16 vector, 2,039 GB/s HBM2e (2,048 in Calculon's file, kept), NVLink 3 at 600 GB/s both
// directions (300 per direction), HDR InfiniBand 200 Gbit/s per GPU (DGX A100: 8 HCAs). Host
// memory: 512 GiB at 32 GB/s (PCIe 4 x16), an assumption.
System a100_80g() {
  System s;
  s.name = "a100-80g";
  for (const char* type : {"float16", "bfloat16"}) {
    s.matrix[type] = {.peak_flops = 312e12, .efficiency = matrix_efficiency()};
    s.vector[type] = {.peak_flops = 78e12, .efficiency = vector_efficiency()};
  }
  s.matrix["float32"] = {.peak_flops = 156e12, .efficiency = matrix_efficiency()};  // TF32
  s.vector["float32"] = {.peak_flops = 19.5e12, .efficiency = vector_efficiency()};
  s.mem1 = {.capacity = 80 * kGiB, .bandwidth = 2048e9, .efficiency = hbm_efficiency()};
  s.mem2 = {.capacity = 512 * kGiB, .bandwidth = 32e9, .efficiency = host_efficiency()};
  s.networks = {nvlink(300e9), infiniband(25e9)};
  return s;
}

// NVIDIA H100 80 GB SXM5 (H100 datasheet, 2023): 989 TFLOPS dense FP16/BF16, 1,979 FP8, 134
// TFLOPS FP16 vector, 3.35 TB/s HBM3, NVLink 4 at 900 GB/s both directions (450 per direction),
// NDR InfiniBand 400 Gbit/s per GPU (DGX H100: 8 ConnectX-7). Host: 1 TiB at 64 GB/s (PCIe 5
// x16), an assumption. Kernel efficiencies: the A100 calibration, an assumption.
System h100_80g() {
  System s;
  s.name = "h100-80g";
  for (const char* type : {"float16", "bfloat16"}) {
    s.matrix[type] = {.peak_flops = 989e12, .efficiency = matrix_efficiency()};
    s.vector[type] = {.peak_flops = 134e12, .efficiency = vector_efficiency()};
  }
  s.matrix["float8"] = {.peak_flops = 1979e12, .efficiency = matrix_efficiency()};
  s.vector["float8"] = {.peak_flops = 134e12, .efficiency = vector_efficiency()};
  s.matrix["float32"] = {.peak_flops = 495e12, .efficiency = matrix_efficiency()};  // TF32
  s.vector["float32"] = {.peak_flops = 67e12, .efficiency = vector_efficiency()};
  s.mem1 = {.capacity = 80 * kGiB, .bandwidth = 3350e9, .efficiency = hbm_efficiency()};
  s.mem2 = {.capacity = 1024 * kGiB, .bandwidth = 64e9, .efficiency = host_efficiency()};
  s.networks = {nvlink(450e9), infiniband(50e9)};
  return s;
}

}  // namespace

std::vector<std::string> system_preset_names() {
  return {"a100-80g", "h100-80g"};
}

std::optional<System> system_preset(const std::string& name) {
  if (name == "a100-80g") {
    return a100_80g();
  }
  if (name == "h100-80g") {
    return h100_80g();
  }
  return std::nullopt;
}

}  // namespace tidesim::llm
