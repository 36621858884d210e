#pragma once
/// Multi-Instance GPU (MIG): the GPU-instance profiles of the models that support it and the
/// check of a card's layout. Source: NVIDIA's MIG user guide, "Supported MIG Profiles" (A100 and
/// H100 tables: fraction of memory, fraction of SMs, number of instances available). Rules and
/// the placement simplification: docs/model-hardware.md, "MIG".
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tidesim/sim/api/api.hpp"
#include "tidesim/topologies/gpu_models.hpp"

namespace tidesim {

/// Compute slices of a MIG-capable A100/H100 (the guide's "fraction of SMs" is in sevenths).
inline constexpr int kMigComputeSlices = 7;
/// Memory slices of a MIG-capable A100/H100 (the guide's "fraction of memory" is in eighths).
inline constexpr int kMigMemorySlices = 8;
/// The prefix of the extended resource the device plugin's `mixed` strategy advertises per
/// profile (nvidia.com/mig-1g.5gb).
inline constexpr std::string_view kMigResourcePrefix = "nvidia.com/mig-";

/// One GPU-instance profile.
struct MigProfile {
  /// The guide's name without "MIG ": "1g.5gb".
  std::string_view name;
  /// Compute slices (the guide's fraction of SMs x 7).
  int compute_slices = 0;
  /// Memory slices (the guide's fraction of memory x 8).
  int memory_slices = 0;
  /// The most instances of this profile one card holds (the guide's "instances available").
  int max_instances = 0;
};

/// The profiles of `model` (empty when the model has no MIG: only A100 40/80 GB and H100-SXM
/// here).
std::span<const MigProfile> mig_profiles(const GpuModel& model);

/// The profile `name` of `model`, or nullptr.
const MigProfile* mig_profile(const GpuModel& model, std::string_view name);

/// The compute share of a slice of `profile`: compute_slices / 7 of the card's SMs.
double mig_compute_fraction(const MigProfile& profile);

/// The memory of a slice of `profile` on a card of `card_memory` bytes:
/// card_memory x memory_slices / 8 (rounded down to a byte).
std::int64_t mig_slice_memory(const MigProfile& profile, std::int64_t card_memory);

/// Why the layout `profiles` (one card's GPU instances) is not possible on `model`, or nullopt
/// when it is: the model has no MIG, a profile the model lacks, more instances of one profile than
/// the card holds, compute slices summing past 7 or memory slices past 8 (the simplification:
/// fixed placement positions are not checked).
std::optional<std::string> mig_layout_error(const GpuModel& model,
                                            const std::vector<std::string>& profiles);

/// The MIG profile a pod asks for: the suffix of its one `nvidia.com/mig-<profile>` extended
/// resource, or nullopt when it asks none.
std::optional<std::string> mig_request(const Resources& requests);

}  // namespace tidesim
