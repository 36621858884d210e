#pragma once
/// Kueue's partial admission (feature gate PartialAdmission, beta and on by default;
/// kubernetes-sigs/kueue @ff69552, pkg/scheduler/flavorassigner/podset_reducer.go PodSetReducer,
/// called by getAssignments in pkg/scheduler/scheduler.go when the whole Workload does not fit):
/// a PodSet with `minCount` below its `count` may be admitted with fewer pods. The counts walk
/// down together from `count` to `minCount`: at step i of D = sum(count - minCount) each PodSet
/// has count - floor((count - minCount) * i / D) pods, and a binary search (Go's sort.Search over
/// i = 0..D) finds the first step whose counts fit (quota and topology, as `fits` says). The
/// probes are Go's, in its order, so a `fits` that is not monotonic gives Kueue's answer too.
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace tidesim::tas {

/// The counts of the first step that fits, or nullopt when no step does or no PodSet can be
/// reduced (every minCount equals its count). `min_counts[i]` is PodSet i's minCount (its count
/// when it has none).
std::optional<std::vector<std::int32_t>> reduce_counts(
    const std::vector<std::int32_t>& counts, const std::vector<std::int32_t>& min_counts,
    const std::function<bool(const std::vector<std::int32_t>&)>& fits);

/// Kueue's CanBePartiallyAdmitted: some PodSet's minCount is below its count.
bool can_be_partially_admitted(const std::vector<std::int32_t>& counts,
                               const std::vector<std::int32_t>& min_counts);

}  // namespace tidesim::tas
