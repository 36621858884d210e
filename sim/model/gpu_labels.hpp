#pragma once
/// The labels a node's GPUs give it, besides nvidia.com/gpu.present and nvidia.com/gpu.product
/// (set by the cluster model, sim/model/cluster.cpp, on every node with cards): those NVIDIA's GPU
/// feature discovery publishes (NVIDIA/k8s-device-plugin, docs "GPU Feature Discovery":
/// nvidia.com/gpu.count, nvidia.com/gpu.memory in MiB) and two of tidesim's own, the device
/// plugin's sharing mode and the NVLink groups. Plugins read them (the Python Node view,
/// docs/python.md); no built-in filter or score does.
namespace tidesim {

inline constexpr const char* kGpuCountLabel = "nvidia.com/gpu.count";
/// Memory of one card, MiB (the model's visible memory).
inline constexpr const char* kGpuMemoryLabel = "nvidia.com/gpu.memory";
/// "exclusive", "time-slicing", "fractional", "mig", ... (topologies' to_string(SharingMode)).
inline constexpr const char* kGpuSharingLabel = "tidesim.io/gpu-sharing";
/// The cards joined by NVLink (directly or by NVSwitch; Topology::nvlink_groups): groups joined
/// by "_", each group's cards by "." ("0.1.2.3_4.5.6.7"); absent on a node without NVLink.
inline constexpr const char* kNvlinkGroupsLabel = "tidesim.io/nvlink-groups";

}  // namespace tidesim
