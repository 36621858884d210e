#include "tidesim/topologies/presets.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "tidesim/sim/input/error.hpp"
#include "tidesim/topologies/nvidia_smi.hpp"

namespace tidesim {

namespace {

constexpr std::array<std::string_view, 6> kPresets{"a10x4-pcie", "a10x4-nvlink-mesh", "dgx1-v100",
                                                   "hgx-a100x4", "dgx-a100",          "hgx-h100x8"};

// NVIDIA DGX-1 (V100): the hybrid cube-mesh of the DGX-1 system architecture whitepaper, as
// `nvidia-smi topo -m` prints it on a real DGX-1 (the same matrix as
// ../shared/data/topo/dgx1_v100.txt).
constexpr std::string_view kDgx1 =
    "\tGPU0\tGPU1\tGPU2\tGPU3\tGPU4\tGPU5\tGPU6\tGPU7\tmlx5_0\tmlx5_2\tmlx5_1\tmlx5_3\tCPU "
    "Affinity\n"
    "GPU0\t X \tNV1\tNV1\tNV2\tNV2\tSYS\tSYS\tSYS\tPIX\tSYS\tPHB\tSYS\t0-19,40-59\n"
    "GPU1\tNV1\t X \tNV2\tNV1\tSYS\tNV2\tSYS\tSYS\tPIX\tSYS\tPHB\tSYS\t0-19,40-59\n"
    "GPU2\tNV1\tNV2\t X \tNV2\tSYS\tSYS\tNV1\tSYS\tPHB\tSYS\tPIX\tSYS\t0-19,40-59\n"
    "GPU3\tNV2\tNV1\tNV2\t X \tSYS\tSYS\tSYS\tNV1\tPHB\tSYS\tPIX\tSYS\t0-19,40-59\n"
    "GPU4\tNV2\tSYS\tSYS\tSYS\t X \tNV1\tNV1\tNV2\tSYS\tPIX\tSYS\tPHB\t20-39,60-79\n"
    "GPU5\tSYS\tNV2\tSYS\tSYS\tNV1\t X \tNV2\tNV1\tSYS\tPIX\tSYS\tPHB\t20-39,60-79\n"
    "GPU6\tSYS\tSYS\tNV1\tSYS\tNV1\tNV2\t X \tNV2\tSYS\tPHB\tSYS\tPIX\t20-39,60-79\n"
    "GPU7\tSYS\tSYS\tSYS\tNV1\tNV2\tNV1\tNV2\t X \tSYS\tPHB\tSYS\tPIX\t20-39,60-79\n"
    "mlx5_0\tPIX\tPIX\tPHB\tPHB\tSYS\tSYS\tSYS\tSYS\t X \tSYS\tPHB\tSYS\t\n"
    "mlx5_2\tSYS\tSYS\tSYS\tSYS\tPIX\tPIX\tPHB\tPHB\tSYS\t X \tSYS\tPHB\t\n"
    "mlx5_1\tPHB\tPHB\tPIX\tPIX\tSYS\tSYS\tSYS\tSYS\tPHB\tSYS\t X \tSYS\t\n"
    "mlx5_3\tSYS\tSYS\tSYS\tSYS\tPHB\tPHB\tPIX\tPIX\tSYS\tPHB\tSYS\t X \t\n";

// 4 x A100-SXM4-80 on an HGX A100 4-GPU board: every pair NV4, one NIC, two NUMA nodes
// (the matrix of ../shared/data/topo/nvlink_4x_a100_sxm_della.txt).
constexpr std::string_view kHgxA100x4 =
    "\tGPU0\tGPU1\tGPU2\tGPU3\tmlx5_0\tCPU Affinity\tNUMA Affinity\n"
    "GPU0\t X \tNV4\tNV4\tNV4\tNODE\t0-23\t0\n"
    "GPU1\tNV4\t X \tNV4\tNV4\tNODE\t0-23\t0\n"
    "GPU2\tNV4\tNV4\t X \tNV4\tSYS\t24-47\t1\n"
    "GPU3\tNV4\tNV4\tNV4\t X \tSYS\t24-47\t1\n"
    "mlx5_0\tNODE\tNODE\tSYS\tSYS\t X \t\t\n";

using CellFn = std::function<LinkCell(int, int)>;

// A matrix of `gpus` GPUs and `nics` NICs (mlx5_<i>); `cell` gives the upper triangle.
TopologyMatrix make_matrix(int gpus, int nics, const CellFn& cell,
                           const std::function<int(int)>& numa_of_device,
                           const std::function<std::string(int)>& cpus_of_numa) {
  TopologyMatrix m;
  const int n = gpus + nics;
  for (int i = 0; i < n; ++i) {
    m.devices.push_back(i < gpus ? "GPU" + std::to_string(i) : "mlx5_" + std::to_string(i - gpus));
  }
  m.cells.assign(static_cast<std::size_t>(n), std::vector<LinkCell>(static_cast<std::size_t>(n)));
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      m.cells[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] =
          i == j ? LinkCell{LinkType::kSelf, 0} : cell(std::min(i, j), std::max(i, j));
    }
    const bool gpu = i < gpus;
    m.numa_affinity.push_back(gpu ? numa_of_device(i) : -1);
    m.cpu_affinity.push_back(gpu ? cpus_of_numa(numa_of_device(i)) : "");
  }
  return m;
}

LinkCell kind(LinkType k) {
  return LinkCell{k, 0};
}

Topology make_a10x4(bool nvlink_mesh) {
  // Assumption (no published A10 server matrix): a single-socket 2U server, GPU0/GPU1 behind one
  // PCIe switch, GPU2/GPU3 behind another, both switches on one host bridge.
  auto cell = [nvlink_mesh](int a, int b) {
    if (nvlink_mesh) {
      return LinkCell{LinkType::kNVLink, 4};
    }
    return kind(a / 2 == b / 2 ? LinkType::kPix : LinkType::kPhb);
  };
  TopologyParams params = params_for_gpu("A10");
  if (nvlink_mesh) {
    // Hypothetical: GA102's NVLink (CALIBRATION.md: 4 x4 links, 112.5 GB/s total, i.e. 28.125
    // GB/s per link bidirectional, 14.0625 GB/s per direction) given whole to every pair.
    params.nvlink_link_bandwidth = 112.5e9 / 4 / 2;
    params.nvswitch = false;
  }
  return Topology(make_matrix(
                      4, 0, cell, [](int) { return 0; }, [](int) { return std::string("0-31"); }),
                  params);
}

// An 8-GPU NVSwitch board with two sockets: GPUs 0-3 and NICs 0..nics/2-1 on socket 0.
Topology make_nvswitch8(int nvlinks, int nics, const std::string& gpu,
                        const std::function<LinkType(int gpu, int nic)>& gpu_nic,
                        const std::array<std::string, 2>& cpus) {
  const int gpus = 8;
  auto socket = [&](int device) {
    return device < gpus ? device / 4 : (device - gpus) / (nics / 2);
  };
  auto cell = [&](int a, int b) {
    if (b < gpus) {
      return LinkCell{LinkType::kNVLink, nvlinks};
    }
    if (a < gpus) {
      const LinkType near = gpu_nic(a, b - gpus);
      return kind(socket(a) != socket(b) ? LinkType::kSys : near);
    }
    return kind(socket(a) == socket(b) ? LinkType::kNode : LinkType::kSys);
  };
  TopologyParams params = params_for_gpu(gpu);
  params.nvswitch = true;
  return Topology(make_matrix(
                      gpus, nics, cell, [&](int d) { return socket(d); },
                      [&](int numa) { return cpus[static_cast<std::size_t>(numa)]; }),
                  params);
}

// Assumption (a generic PCIe server, docs/model-hardware.md "Generic PCIe nodes"): GPUs in pairs
// behind PCIe switches (PIX within a pair), every switch on one host bridge (PHB across pairs),
// one socket, no NIC in the matrix.
Topology make_pcie(int gpus, const TopologyParams& params) {
  auto cell = [](int a, int b) { return kind(a / 2 == b / 2 ? LinkType::kPix : LinkType::kPhb); };
  return Topology(
      make_matrix(
          gpus, 0, cell, [](int) { return 0; }, [](int) { return std::string("0-31"); }),
      params);
}

}  // namespace

std::optional<int> pcie_preset_gpus(std::string_view name) {
  constexpr std::string_view kPrefix = "pcie-";
  if (!name.starts_with(kPrefix) || name.size() == kPrefix.size() ||
      name.size() > kPrefix.size() + 2) {
    return std::nullopt;
  }
  int n = 0;
  for (const char c : name.substr(kPrefix.size())) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    n = n * 10 + (c - '0');
  }
  if (n > kMaxPcieGpus || (name.size() == kPrefix.size() + 2 && name[kPrefix.size()] == '0')) {
    return std::nullopt;
  }
  return n;
}

Topology pcie_preset(int gpus, const TopologyParams& params) {
  if (gpus < 0 || gpus > kMaxPcieGpus) {
    throw InputError(SourceLocation{}, "topology",
                     "pcie-N presets take 0 to " + std::to_string(kMaxPcieGpus) + " GPUs, not " +
                         std::to_string(gpus));
  }
  return make_pcie(gpus, params);
}

std::span<const std::string_view> preset_gpu_models(std::string_view name) {
  static constexpr std::array<std::string_view, 2> kA10{"A10", "A10G"};
  static constexpr std::array<std::string_view, 4> kV100{"V100-SXM2-16", "V100-SXM2-32", "V100M16",
                                                         "V100M32"};
  // HGX A100 boards came with 40 GB and 80 GB SXM4 cards; the HGX H200 board is the H100's.
  static constexpr std::array<std::string_view, 2> kA100{"A100-SXM4-40", "A100-SXM4-80"};
  static constexpr std::array<std::string_view, 2> kH100{"H100-SXM", "H200"};
  if (name == "a10x4-pcie" || name == "a10x4-nvlink-mesh") {
    return kA10;
  }
  if (name == "dgx1-v100") {
    return kV100;
  }
  if (name == "hgx-a100x4" || name == "dgx-a100") {
    return kA100;
  }
  if (name == "hgx-h100x8") {
    return kH100;
  }
  return {};
}

std::optional<std::string> preset_gpu_warning(std::string_view group, std::string_view preset,
                                              std::string_view gpu_model) {
  const auto models = preset_gpu_models(preset);
  if (models.empty() || gpu_model.empty() ||
      std::find(models.begin(), models.end(), gpu_model) != models.end()) {
    return std::nullopt;
  }
  std::string list;
  for (std::size_t i = 0; i < models.size(); ++i) {
    list += std::string(i == 0 ? "" : (i + 1 == models.size() ? " or " : ", ")) +
            std::string(models[i]);
  }
  return "node group '" + std::string(group) + "': topology preset '" + std::string(preset) +
         "' is a board of " + list + " GPUs, not " + std::string(gpu_model) +
         "; the run takes the preset's links with the " + std::string(gpu_model) +
         "'s speeds and memory (give a pcie-N preset or an nvidia-smi topo -m file of the real "
         "node)";
}

std::span<const std::string_view> preset_names() {
  return kPresets;
}

std::string_view preset_description(std::string_view name) {
  if (name == "a10x4-pcie") {
    return "4 x A10, PCIe Gen4 only (real A10s have no NVLink); switch layout assumed";
  }
  if (name == "a10x4-nvlink-mesh") {
    return "HYPOTHETICAL: the seed's '4-card fully connected' A10 node; real A10s have no NVLink "
           "(NV4 per pair at GA102 bridge speed)";
  }
  if (name == "dgx1-v100") {
    return "NVIDIA DGX-1: 8 x V100-SXM2, hybrid cube-mesh NVLink2, 4 NICs, 2 sockets";
  }
  if (name == "hgx-a100x4") {
    return "HGX A100 4-GPU: 4 x A100-SXM4-80, NV4 all-to-all, 1 NIC, 2 NUMA nodes";
  }
  if (name == "dgx-a100") {
    return "NVIDIA DGX A100: 8 x A100-SXM4-40 through NVSwitch (NV12), 8 NICs, 2 NUMA nodes "
           "(simplified from NPS4)";
  }
  if (name == "hgx-h100x8") {
    return "HGX H100 8-GPU: 8 x H100-SXM through NVSwitch (NV18), 8 NICs, 2 sockets";
  }
  if (pcie_preset_gpus(name)) {
    return "N GPUs (0-16) on PCIe: pairs under one switch (PIX), all switches on one host bridge "
           "(PHB); assumed layout, link speed from the GPU model";
  }
  return "";
}

std::optional<PresetNetwork> preset_network(std::string_view name) {
  constexpr double kGbit = 1e9 / 8.0;
  if (name == "dgx1-v100") {
    return PresetNetwork{4, 100 * kGbit};  // DGX-1 datasheet: 4 x InfiniBand EDR 100 Gbit/s
  }
  if (name == "hgx-a100x4") {
    return PresetNetwork{1, 200 * kGbit};  // assumption: one HDR 200 Gbit/s NIC (the board's one)
  }
  if (name == "dgx-a100") {
    return PresetNetwork{8, 200 * kGbit};  // DGX A100 user guide: 8 x ConnectX-6 HDR 200 Gbit/s
  }
  if (name == "hgx-h100x8") {
    return PresetNetwork{8, 400 * kGbit};  // DGX H100 user guide: 8 x ConnectX-7 NDR 400 Gbit/s
  }
  return std::nullopt;
}

bool is_preset(std::string_view name) {
  if (pcie_preset_gpus(name)) {
    return true;
  }
  for (auto p : kPresets) {
    if (p == name) {
      return true;
    }
  }
  return false;
}

namespace {

std::string preset_list() {
  std::string out;
  for (auto p : kPresets) {
    out += out.empty() ? "" : ", ";
    out += p;
  }
  return out;
}

}  // namespace

Topology preset(std::string_view name) {
  if (const auto n = pcie_preset_gpus(name)) {
    return make_pcie(*n, TopologyParams{});
  }
  if (name == "a10x4-pcie") {
    return make_a10x4(false);
  }
  if (name == "a10x4-nvlink-mesh") {
    return make_a10x4(true);
  }
  if (name == "dgx1-v100") {
    return parse_nvidia_smi(kDgx1, "preset:dgx1-v100", params_for_gpu("V100-SXM2-16"));
  }
  if (name == "hgx-a100x4") {
    return parse_nvidia_smi(kHgxA100x4, "preset:hgx-a100x4", params_for_gpu("A100-SXM4-80"));
  }
  if (name == "dgx-a100") {
    // DGX A100 (NVIDIA DGX A100 user guide): 6 NVSwitches give each GPU 12 NVLink3 links; each
    // pair of GPUs shares a PCIe switch tier with two compute NICs (PXB). Simplified to two NUMA
    // nodes (the real system runs 8, NPS4).
    return make_nvswitch8(
        12, 8, "A100-SXM4-40",
        [](int g, int nic) { return g / 2 == nic / 2 ? LinkType::kPxb : LinkType::kNode; },
        {"0-63,128-191", "64-127,192-255"});
  }
  if (name == "hgx-h100x8") {
    // HGX/DGX H100 (NVIDIA DGX H100 user guide): NVSwitch gives each GPU 18 NVLink4 links; one
    // ConnectX-7 NIC per GPU under the GPU's PCIe switch (PIX).
    return make_nvswitch8(
        18, 8, "H100-SXM",
        [](int g, int nic) { return g == nic ? LinkType::kPix : LinkType::kNode; },
        {"0-55,112-167", "56-111,168-223"});
  }
  throw InputError(
      SourceLocation{}, "topology",
      "unknown topology preset '" + std::string(name) + "'; presets: " + preset_list());
}

Topology load_topology(const std::string& preset_or_file, const TopologyParams& params) {
  if (const auto n = pcie_preset_gpus(preset_or_file)) {
    return make_pcie(*n, params);
  }
  if (is_preset(preset_or_file)) {
    return preset(preset_or_file);
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(preset_or_file, ec)) {
    throw InputError(SourceLocation{preset_or_file, 0, 0}, "topology",
                     "neither a topology preset nor a readable file; presets: " + preset_list());
  }
  return load_nvidia_smi_file(preset_or_file, params);
}

}  // namespace tidesim
