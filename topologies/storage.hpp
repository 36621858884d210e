#pragma once
/// Storage devices and their await (the seed's `ai_storage_await_ms`). A device is a fluid
/// resource of `bandwidth` shared max-min by the flows reading it (sim/fluid.hpp); its await
/// follows from its utilisation u by the M/M/1 (equivalently processor-sharing) mean response
/// time T = T_service / (1 - u) (CALIBRATION.md, "Storage"), capped because the formula diverges
/// at u = 1.
#include <string>

#include "tidesim/sim/engine/time.hpp"
#include "tidesim/sim/input/config_node.hpp"

namespace tidesim {

/// Default cap of the await, ms. Assumption (no source): 500 ms, ten times the seed's "severe
/// delay" level of 50 ms, so a saturated device reads as saturated without infinities.
inline constexpr double kDefaultAwaitCapMs = 500.0;

/// One storage device.
struct StorageDevice {
  /// Device name as the metric labels it ("nvme0n1p1", "nfs").
  std::string name;
  /// Sustained bandwidth, bytes/s (CALIBRATION.md: PCIe4 x4 NVMe up to about 7 GB/s; NFS
  /// figures are scenario parameters, none are published).
  double bandwidth = 0.0;
  /// Service time of one request at zero load, T_service (CALIBRATION.md ballparks: 4 KB random
  /// SSD read 150 us; 1 MB sequential read 1 ms; datacentre round trip 500 us).
  Duration service_time{};
  /// True for a cluster-wide device (one NFS server shared by every node); false for a device
  /// on each node (NVMe).
  bool shared = false;
};

/// A local NVMe with CALIBRATION.md's ballparks: 7 GB/s, 150 us service time, per node.
StorageDevice default_nvme(std::string name = "nvme0n1");

/// Mean await in ms at utilisation `utilisation` (clamped to [0, 1]):
/// min(cap_ms, T_service / (1 - u)); cap_ms at u = 1. `cap_ms` must be > 0.
double storage_await_ms(const StorageDevice& device, double utilisation,
                        double cap_ms = kDefaultAwaitCapMs);

/// Reads a device from YAML: {name, bandwidth: "7GB/s", service_time: "150us",
/// scope: node|shared (default node)}; every field but scope is required. InputError names the
/// file, line and field.
StorageDevice parse_storage_device(const ConfigNode& node, const std::string& file,
                                   const std::string& path);

}  // namespace tidesim
