#pragma once
/// The connection types of `nvidia-smi topo -m` (legend in CALIBRATION.md, "nvidia-smi topo -m").
#include <optional>
#include <string>
#include <string_view>

namespace tidesim {

/// How two devices connect, closest first. kSys is also old drivers' `SOC`.
enum class LinkType {
  kSelf,    ///< `X`: the device itself
  kNVLink,  ///< `NV#`: a bonded set of # NVLinks
  kPix,     ///< at most one PCIe bridge (switch)
  kPxb,     ///< several PCIe bridges, not through the host bridge
  kPhb,     ///< PCIe through a host bridge (typically the CPU)
  kNode,    ///< PCIe plus the interconnect between host bridges within one NUMA node
  kSys,     ///< PCIe plus the SMP interconnect between NUMA nodes (QPI/UPI); `SOC` on old drivers
};

/// One matrix cell: the connection type and, for NV#, the number of bonded links.
struct LinkCell {
  LinkType kind = LinkType::kSys;
  /// Bonded NVLink count for kNVLink (>= 1), else 0.
  int nvlinks = 0;

  bool operator==(const LinkCell&) const = default;
  /// True for NV#.
  bool is_nvlink() const { return kind == LinkType::kNVLink; }
};

/// The cell as nvidia-smi prints it: "X", "NV4", "PIX", ..., "SYS" (or "SOC" when `soc`).
std::string to_string(LinkCell cell, bool soc = false);

/// Parses one cell ("X", "NV12", "PIX", "PXB", "PHB", "NODE", "SYS", "SOC"); nullopt otherwise.
/// Sets `*was_soc` to true when the cell was spelled SOC (when `was_soc` is not null).
std::optional<LinkCell> parse_link_cell(std::string_view cell, bool* was_soc = nullptr);

/// Distance rank of the PCIe kinds: PIX 1, PXB 2, PHB 3, NODE 4, SYS 5; 0 for self and NVLink
/// (nvidia-smi hides the PCIe relation of an NVLink pair).
int pcie_rank(LinkType kind);

}  // namespace tidesim
