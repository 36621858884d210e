#pragma once
/// HamiDeviceFit: HAMi-style declared GPU memory and compute fitted per card
/// (Project-HAMi/HAMi: resources nvidia.com/gpumem, nvidia.com/gpumem-percentage,
/// nvidia.com/gpucores; its scheduler's node- and GPU-level policies binpack | spread,
/// docs/developers/scheduling.md). Filter: some `nvidia.com/gpu` distinct cards of the node can
/// each take the pod's claim (gpu_claim(), sim/api/pod_traits.hpp). Score: the node's declared
/// memory in use after the pod, binpack (more is better) or spread (less is better). Cards: the
/// fitting cards binpack (least declared memory left first) or spread (most left first), the
/// lowest index among equals; the binder honours them (CardChooserPlugin).
///
/// The plugin reads NodeInfo::gpu_memory_left / gpu_cores_left / gpu_card_memory, which only
/// nodes with `sharing.declared_memory` fill: any other node fails the filter for a GPU pod.
/// Use it with NodeResourcesFit's ignoredResources naming the three HAMi resources (nodes do not
/// advertise them; HAMi's scheduler extender manages them the same way).
#include <memory>
#include <vector>

#include "tidesim/policies/framework.hpp"
#include "tidesim/policies/plugin_args.hpp"

namespace tidesim::policies {

/// binpack or spread.
enum class FitPolicy { kBinpack, kSpread };

/// The cards of `node` that take `units` units of `pod`'s claim under `card_policy`, in the
/// order chosen; empty when fewer than `units` cards fit (or the node has no declared state).
std::vector<int> declared_cards(const NodeInfo& node, const PodSpec& pod, int units,
                                FitPolicy card_policy);

/// HamiDeviceFit's args: nodeSchedulerPolicy and gpuSchedulerPolicy (binpack | spread), with
/// HAMi's chart defaults.
struct HamiDeviceFitArgs {
  FitPolicy node_policy = FitPolicy::kBinpack;
  FitPolicy card_policy = FitPolicy::kSpread;
};
HamiDeviceFitArgs parse_hami_device_fit_args(const PluginArgs& args);
std::unique_ptr<Plugin> make_hami_device_fit(const HamiDeviceFitArgs& args);

}  // namespace tidesim::policies
