#include "tidesim/sim/scenario/gang_failures.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim {
namespace {

using std::chrono::hours;
using std::chrono::minutes;

// Llama 3 (Dubey et al., "The Llama 3 Herd of Models", arXiv 2407.21783, 2024, section 3.3.4,
// Table 5): 419 unexpected interruptions of one synchronous job on 16,384 H100 GPUs in 2,048
// hosts of 8 over a 54-day snapshot (1,296 h). A component's default rate is its count over
// the device-hours of its kind: count / (16,384 x 1,296) per GPU-hour for the GPU components
// and for the software ones (assumption: software failures scale with the job's GPUs),
// count / (2,048 x 1,296) per node-hour for host, network and host-maintenance ones. Repair
// times are assumptions (the paper gives none): 48 h for a GPU (a board swap), 24 h for other
// host hardware, 4 h for a switch or cable and for unplanned host maintenance; software
// failures lose no node.
constexpr double kGpuHours = 16'384.0 * 1'296.0;
constexpr double kNodeHours = 2'048.0 * 1'296.0;
constexpr double kNodesPerLlamaLeaf = 2.0;

FailureComponent gpu(const char* name, double count, Duration repair) {
  return {name, FailureComponent::Per::kGpu, count / kGpuHours, repair};
}
FailureComponent node(const char* name, double count, Duration repair) {
  return {name, FailureComponent::Per::kNode, count / kNodeHours, repair};
}

}  // namespace

std::vector<FailureComponent> default_failure_components() {
  const Duration none = Duration::zero();
  return {
      gpu("faulty_gpu", 148, hours(48)),
      gpu("gpu_hbm3_memory", 72, hours(48)),
      gpu("software_bug", 54, none),
      node("network_switch_cable", 35, hours(4)),
      node("host_maintenance", 32, hours(4)),
      gpu("gpu_sram_memory", 19, hours(48)),
      gpu("gpu_system_processor", 17, hours(48)),
      node("nic", 7, hours(24)),
      gpu("nccl_watchdog_timeouts", 7, none),
      gpu("silent_data_corruption", 6, hours(48)),
      gpu("gpu_thermal_interface_sensor", 6, hours(48)),
      node("ssd", 3, hours(24)),
      node("power_supply", 3, hours(24)),
      node("server_chassis", 2, hours(24)),
      node("io_expansion_board", 2, hours(24)),
      gpu("dependency", 2, none),
      node("cpu", 2, hours(24)),
      node("system_memory", 2, hours(24)),
  };
}

const char* to_string(OnFailure policy) {
  switch (policy) {
    case OnFailure::kRestartGang:
      return "restart_gang";
    case OnFailure::kReplaceNode:
      return "replace_node";
    case OnFailure::kSpare:
      return "spare";
    case OnFailure::kRestartPartition:
      return "restart_partition";
  }
  return "?";
}

namespace {

void parse_components(const ConfigNode& node, const std::string& file,
                      std::vector<FailureComponent>& components) {
  Fields f(node, file, "faults.gang.components");
  for (auto& c : components) {
    const ConfigNode entry = f.get(c.name);
    if (!entry) {
      continue;
    }
    Fields e(entry, file, "faults.gang.components." + c.name);
    const std::string per = e.choice("per", c.per == FailureComponent::Per::kGpu ? "gpu" : "node",
                                     {"gpu", "node", "leaf"});
    if (per == "leaf" && c.per == FailureComponent::Per::kNode) {
      // The same count over Llama 3's leaf-hours: its racks hold two servers under one
      // top-of-rack switch (section 3.3.1), 1,024 leaves for 2,048 hosts.
      c.rate_per_hour *= kNodesPerLlamaLeaf;
    } else if (per == "leaf" && !e.has("rate")) {
      throw e.error(e.get("per"), "per", "a GPU component per leaf needs its rate");
    }
    c.per = per == "gpu"    ? FailureComponent::Per::kGpu
            : per == "node" ? FailureComponent::Per::kNode
                            : FailureComponent::Per::kLeaf;
    c.rate_per_hour = e.number("rate", c.rate_per_hour, 0.0, 1.0);
    c.repair = e.duration("repair", c.repair);
    e.finish();
  }
  f.finish();
}

CheckpointPolicy parse_checkpoint(const ConfigNode& node, const std::string& file) {
  Fields f(node, file, "faults.gang.checkpoint");
  CheckpointPolicy p;
  const ConfigNode interval = f.get("interval");
  if (interval && interval.is_scalar() && interval.scalar() != "young-daly") {
    p.young_daly = false;
    p.interval = f.duration("interval", std::nullopt, std::chrono::seconds(1));
  } else if (interval && !interval.is_scalar()) {
    throw f.error(interval, "interval", "expected young-daly or a duration such as 10m");
  }
  if (f.has("size")) {
    const std::int64_t bytes = f.bytes("size", std::nullopt, 1);
    p.size_bytes = static_cast<double>(bytes);
  }
  // Assumption (docs/failures.md): a storage system of Tectonic's class (Llama 3, section 3.3.1:
  // 2 TB/s sustained).
  p.bandwidth = f.bandwidth("bandwidth", 2e12, 1.0);
  p.async = f.choice("mode", "blocking", {"blocking", "async"}) == "async";
  // Assumption: a GPU's copy to pinned host memory over PCIe Gen5 x16, about 50 GB/s.
  p.snapshot_bandwidth = f.bandwidth("snapshot_bandwidth", 50e9, 1.0);
  if (!p.async && f.has("snapshot_bandwidth")) {
    throw f.error(f.get("snapshot_bandwidth"), "snapshot_bandwidth", "applies to mode: async only");
  }
  f.finish();
  return p;
}

std::vector<InjectedGangFailure> parse_injected(const ConfigNode& list, const std::string& file,
                                                const std::vector<FailureComponent>& components,
                                                const std::vector<std::string>& node_names) {
  std::vector<InjectedGangFailure> out;
  int i = 0;
  for (const auto& item : sequence_of(list, file, "faults.gang.injected")) {
    Fields s(item, file, fmt::format("faults.gang.injected[{}]", i++));
    InjectedGangFailure f;
    f.at = TimePoint(s.duration("at", std::nullopt));
    const std::string name = s.string("node");
    const auto n = std::find(node_names.begin(), node_names.end(), name);
    if (n == node_names.end()) {
      throw s.error(s.get("node"), "node", "no node is called '" + name + "'");
    }
    f.node = static_cast<int>(n - node_names.begin());
    const std::string component = s.string("component");
    const auto c = std::find_if(components.begin(), components.end(),
                                [&](const FailureComponent& x) { return x.name == component; });
    if (c == components.end() && component != "planned") {
      throw s.error(s.get("component"), "component",
                    "no component is called '" + component + "' (a default component or planned)");
    }
    f.component = c == components.end() ? -1 : static_cast<int>(c - components.begin());
    s.finish();
    out.push_back(f);
  }
  return out;
}

}  // namespace

GangFailuresConfig parse_gang_failures(const ConfigNode& node, const std::string& file,
                                       const std::vector<std::string>& node_names) {
  GangFailuresConfig c;
  if (!node) {
    return c;
  }
  c.enabled = true;
  Fields f(node, file, "faults.gang");
  c.components = default_failure_components();
  if (const ConfigNode comp = f.get("components")) {
    parse_components(comp, file, c.components);
  }
  // Planned maintenance: Llama 3's 47 planned interruptions in the same 54 days, per node-hour
  // of its 2,048 hosts; downtime: assumption.
  c.planned_rate_per_node_hour = 47.0 / kNodeHours;
  c.planned_downtime = minutes(15);
  if (const ConfigNode planned = f.get("planned")) {
    Fields p(planned, file, "faults.gang.planned");
    c.planned_rate_per_node_hour = p.number("rate", c.planned_rate_per_node_hour, 0.0, 1.0);
    c.planned_downtime = p.duration("downtime", c.planned_downtime);
    p.finish();
  }
  // Recovery times: assumptions (Llama 3 reports automated recovery, not its times).
  c.detection = f.duration("detection", minutes(3));
  c.rescheduling = f.duration("rescheduling", minutes(10));
  c.replacement = f.duration("replacement", minutes(2));
  c.loading = f.duration("loading", minutes(2));
  const std::string policy = f.choice(
      "on_failure", "spare", {"restart_gang", "replace_node", "spare", "restart_partition"});
  c.on_failure = policy == "restart_gang"        ? OnFailure::kRestartGang
                 : policy == "replace_node"      ? OnFailure::kReplaceNode
                 : policy == "restart_partition" ? OnFailure::kRestartPartition
                                                 : OnFailure::kSpare;
  c.spares = static_cast<int>(f.integer("spares", 0, 0, 1'000'000));
  if (c.on_failure == OnFailure::kRestartPartition) {
    if (!f.has("partition_size")) {
      throw f.error(f.get("on_failure"), "on_failure",
                    "restart_partition needs partition_size (pods per partition)");
    }
    c.partition_size = static_cast<int>(f.integer("partition_size", 0, 1, 1'000'000));
  } else if (f.has("partition_size")) {
    throw f.error(f.get("partition_size"), "partition_size",
                  "applies to on_failure: restart_partition only");
  }
  c.checkpoint = parse_checkpoint(f.get("checkpoint"), file);
  c.random = f.boolean("random", true);
  if (const ConfigNode list = f.get("injected")) {
    c.injected = parse_injected(list, file, c.components, node_names);
  }
  f.finish();
  return c;
}

}  // namespace tidesim
