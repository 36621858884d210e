#pragma once
/// GPU memory of one worker over its life, as a piecewise-constant timeline, so the driver can
/// check for OOM exactly at the instants where memory grows. Formulas and sources:
/// docs/model-workloads.md, "Memory over a job's life".
#include <cstdint>
#include <optional>

#include "tidesim/sim/engine/time.hpp"
#include "tidesim/workloads/catalogue.hpp"

namespace tidesim::workloads {

/// Equal steps in which memory grows from context + model state to steady during the ramp
/// window (a discretisation of a continuous growth: assumption; the OOM check runs at each).
inline constexpr int kRampIncrements = 5;

/// Bytes the worker holds on its GPU `since_start` after its process started. With
/// base = context + model state, w = ramp_window, r0 = ramp_up - w:
///   [0, r0):                          base
///   [r0, ramp_up):                    base + (steady - base) x floor((t - r0) x K / w) / K
///   [ramp_up, ...):                   steady_bytes()
///   each peak window (see MemoryPeak): steady_bytes() + peak.extra_bytes
///   keep_peak (caching allocator):    steady_bytes() + peak.extra_bytes from the first peak on
/// (K = kRampIncrements). A negative `since_start` is treated as 0.
std::int64_t memory_at(const ModelProfile& profile, Duration since_start);

/// The first instant strictly after `since_start` at which memory_at() changes, or nullopt when
/// it never changes again.
std::optional<Duration> next_memory_change(const ModelProfile& profile, Duration since_start);

/// True while the worker's memory is growing towards steady state, [ramp_up - ramp_window,
/// ramp_up): a process that allocates as it goes, so an allocation that fails on its card fails
/// its next one too.
bool ramping(const ModelProfile& profile, Duration since_start);

/// The most memory the worker ever holds (steady plus peak).
std::int64_t peak_memory(const ModelProfile& profile);

}  // namespace tidesim::workloads
