#pragma once
/// GPU memory of one worker over its life, as a piecewise-constant timeline, so the driver can
/// check for OOM exactly at the instants where memory grows.
#include <cstdint>
#include <optional>

#include "sim/engine/time.hpp"
#include "workloads/catalogue.hpp"

namespace tidesim::workloads {

/// Bytes the worker holds on its GPU `since_start` after its process started:
///   [0, ramp_up):                     context + model state
///   [ramp_up, ...):                   steady_bytes()
///   each peak window (see MemoryPeak): steady_bytes() + peak.extra_bytes
/// A negative `since_start` is treated as 0.
std::int64_t memory_at(const ModelProfile& profile, Duration since_start);

/// The first instant strictly after `since_start` at which memory_at() changes, or nullopt when
/// it never changes again.
std::optional<Duration> next_memory_change(const ModelProfile& profile, Duration since_start);

/// The most memory the worker ever holds (steady plus peak).
std::int64_t peak_memory(const ModelProfile& profile);

}  // namespace tidesim::workloads
