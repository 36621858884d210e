#pragma once
/// Built-in node topologies, each documented with its source in docs/model-hardware.md:
///  a10x4-pcie         4 x A10, PCIe only (real A10s have no NVLink: CALIBRATION.md)
///  a10x4-nvlink-mesh  the seed's hypothetical "4-card fully connected" A10 node (NV4 all pairs,
///                     at GA102 bridge link speed); no real A10 has NVLink
///  dgx1-v100          NVIDIA DGX-1, 8 x V100-SXM2, hybrid cube-mesh NV1/NV2, 4 NICs, 2 sockets
///  hgx-a100x4         4 x A100-SXM4-80, NV4 all-to-all, 1 NIC, 2 NUMA nodes
///  dgx-a100           8 x A100-SXM4-40 through NVSwitch (NV12), 8 NICs, 2 sockets
///  hgx-h100x8         8 x H100-SXM through NVSwitch (NV18), 8 NICs, 2 sockets
///  pcie-N             N GPUs (0..16) on PCIe, in pairs under switches on one host bridge
///                     (assumption; a generic node for trace replays). Not in preset_names():
///                     a family of names.
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "tidesim/topologies/topology.hpp"

namespace tidesim {

/// The GPU models preset `name` describes (its links and layout are those boards'), e.g.
/// {"A10", "A10G"} for a10x4-pcie; empty for a name that is no preset or fits any model (pcie-N).
std::span<const std::string_view> preset_gpu_models(std::string_view name);

/// A warning when node group `group` puts `gpu_model` cards on preset `preset` built for other
/// GPUs (the run takes the preset's links and the model's speeds, a node that does not exist);
/// nullopt when the preset fits the model, or `preset` is no preset or takes any model.
std::optional<std::string> preset_gpu_warning(std::string_view group, std::string_view preset,
                                              std::string_view gpu_model);

/// The most GPUs a `pcie-N` preset takes.
inline constexpr int kMaxPcieGpus = 16;

/// N for a `pcie-N` name (N in 0..kMaxPcieGpus, no leading zero), nullopt otherwise.
std::optional<int> pcie_preset_gpus(std::string_view name);

/// `gpus` GPUs on PCIe: GPU 2k and 2k+1 behind one switch (PIX), all switches on one host bridge
/// (PHB), one NUMA node, no NIC; link figures from `params` (params_for_gpu() of the model).
/// Assumption, documented in docs/model-hardware.md. InputError for gpus outside 0..16.
Topology pcie_preset(int gpus, const TopologyParams& params);

/// The fixed preset names, in the order above (the pcie-N family is not listed).
std::span<const std::string_view> preset_names();

/// One line on the preset and its source ("" for an unknown name).
std::string_view preset_description(std::string_view name);

/// True when `name` is a preset (pcie-N included).
bool is_preset(std::string_view name);

/// The network a preset's machine has between nodes: its compute NICs and their line rate.
struct PresetNetwork {
  int nics = 0;
  /// Line rate of one NIC, bytes/s.
  double nic_bandwidth = 0.0;
};

/// The compute NICs of the machine preset `name` describes (dgx1-v100: 4 x 100 Gbit/s EDR;
/// hgx-a100x4: 1 x 200 Gbit/s HDR, an assumption; dgx-a100: 8 x 200 Gbit/s HDR; hgx-h100x8:
/// 8 x 400 Gbit/s NDR; docs/model-hardware.md gives the sources); nullopt for the A10 presets,
/// pcie-N and names that are no preset, whose machines vary.
std::optional<PresetNetwork> preset_network(std::string_view name);

/// The preset's topology. Throws InputError listing the presets for an unknown name.
Topology preset(std::string_view name);

/// A preset by name (pcie-N built with `params`), or else an `nvidia-smi topo -m` file at that path
/// (parsed with `params`). Throws InputError naming the presets when it is neither.
Topology load_topology(const std::string& preset_or_file, const TopologyParams& params = {});

}  // namespace tidesim
