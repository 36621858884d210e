#include "tidesim/policies/registry.hpp"

#include <stdexcept>

#include "tidesim/policies/plugins/basic.hpp"
#include "tidesim/policies/plugins/coscheduling.hpp"
#include "tidesim/policies/plugins/declared_gpu.hpp"
#include "tidesim/policies/plugins/default_preemption.hpp"
#include "tidesim/policies/plugins/gpu_share_plugins.hpp"
#include "tidesim/policies/plugins/interpod_affinity.hpp"
#include "tidesim/policies/plugins/load_aware.hpp"
#include "tidesim/policies/plugins/noderesources.hpp"
#include "tidesim/policies/plugins/pod_topology_spread.hpp"

namespace tidesim::policies {

namespace {

// Filled before main() by PluginRegistrar objects; read afterwards.
Registry& registered() {
  static Registry r;
  return r;
}

}  // namespace

void register_plugin(std::string name, RegistryEntry entry) {
  if (!registered().emplace(name, std::move(entry)).second) {
    throw std::logic_error("plugin '" + name + "' is registered twice");
  }
}

PluginRegistrar::PluginRegistrar(std::string name, RegistryEntry entry) {
  register_plugin(std::move(name), std::move(entry));
}

const Registry& registered_plugins() {
  return registered();
}

Fields args_fields(const PluginArgs& args) {
  Fields f(args.node, args.file, args.path);  // no args: an empty mapping
  f.get("apiVersion");
  f.get("kind");
  return f;
}

Registry builtin_registry() {
  Registry r;
  // Kubernetes' in-tree plugins (pkg/scheduler/framework/plugins/registry.go).
  r["PrioritySort"] = {make_priority_sort};
  r["SchedulingGates"] = {make_noop_plugin("SchedulingGates", NoopPoint::kPreEnqueue)};
  r["NodeUnschedulable"] = {make_node_unschedulable};
  r["NodeName"] = {make_node_name};
  r["TaintToleration"] = {make_taint_toleration};
  r["NodeAffinity"] = {make_node_affinity};
  r["NodePorts"] = {make_noop_plugin("NodePorts", NoopPoint::kFilter)};
  r["NodeResourcesFit"] = {make_node_resources_fit};
  r["VolumeRestrictions"] = {make_noop_plugin("VolumeRestrictions", NoopPoint::kFilter)};
  r["EBSLimits"] = {make_noop_plugin("EBSLimits", NoopPoint::kFilter)};
  r["GCEPDLimits"] = {make_noop_plugin("GCEPDLimits", NoopPoint::kFilter)};
  r["NodeVolumeLimits"] = {make_noop_plugin("NodeVolumeLimits", NoopPoint::kFilter)};
  r["AzureDiskLimits"] = {make_noop_plugin("AzureDiskLimits", NoopPoint::kFilter)};
  r["VolumeBinding"] = {make_noop_plugin("VolumeBinding", NoopPoint::kFilter)};
  r["VolumeZone"] = {make_noop_plugin("VolumeZone", NoopPoint::kFilter)};
  r["PodTopologySpread"] = {make_pod_topology_spread};
  r["InterPodAffinity"] = {make_inter_pod_affinity};
  r["DefaultPreemption"] = {make_default_preemption};
  r["Coscheduling"] = {make_coscheduling};
  r["NodeResourcesBalancedAllocation"] = {make_balanced_allocation};
  r["ImageLocality"] = {make_noop_plugin("ImageLocality", NoopPoint::kScore)};
  r["DefaultBinder"] = {make_noop_plugin("DefaultBinder", NoopPoint::kBind)};
  // The seed's plugins (digest 3.2) and tidesim's FIFO baseline. The two load-aware plugins
  // share one args type, and an arg set on one of them applies to both: the seed tunes only the
  // scorer (digest 4.1) although the margin is a filter setting.
  r["LoadAwareFilter"] = {make_load_aware_filter, "LoadAware"};
  r["LoadAwareScorer"] = {make_load_aware_scorer, "LoadAware"};
  r["FIFOSort"] = {make_fifo_sort};
  // The GPU-sharing policies of the FGD paper (Weng et al., ATC '23) and its baselines.
  r["RandomScore"] = {make_random_score};
  r["DotProductScore"] = {make_dot_product_score};
  r["GpuClusteringScore"] = {make_gpu_clustering_score};
  r["GpuPackingScore"] = {make_gpu_packing_score};
  r["BestFitScore"] = {make_best_fit_score};
  r["FGDScore"] = {make_fgd_score};
  // HAMi-style declared GPU memory (policies/plugins/declared_gpu.hpp).
  r["HamiDeviceFit"] = {make_hami_device_fit};
  // Plugins that registered themselves (out-of-tree plugins).
  for (const auto& [name, entry] : registered()) {
    if (!r.emplace(name, entry).second) {
      throw std::logic_error("plugin '" + name + "' takes the name of a built-in plugin");
    }
  }
  return r;
}

}  // namespace tidesim::policies
