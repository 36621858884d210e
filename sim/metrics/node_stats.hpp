#pragma once
/// Small statistics over one cluster sample, shared by the collectors and the result recorder so
/// that every output computes node utilisation the same way.
#include <optional>
#include <span>
#include <vector>

#include "tidesim/sim/api/run_signals.hpp"

namespace tidesim::metrics {

/// Mean of a node's per-card GPU utilisation, in [0, 1]; std::nullopt for a node without GPUs.
std::optional<double> node_gpu_utilization(const NodeState& node);

/// A node's GPU memory in use over its GPU memory: sum(used) / (cards x capacity per card);
/// std::nullopt without GPUs or with zero capacity.
std::optional<double> node_gpu_memory_utilization(const NodeState& node);

/// Population variance (divide by n) of `values`; std::nullopt when empty.
std::optional<double> population_variance(std::span<const double> values);

/// Population standard deviation (divide by n) of `values`; std::nullopt when empty.
std::optional<double> population_stddev(std::span<const double> values);

/// Population std-dev across nodes of node GPU utilisation (nodes without GPUs left out);
/// std::nullopt when no node has GPUs.
std::optional<double> gpu_utilization_stddev(const ClusterSample& sample);

/// Population std-dev across nodes of node GPU-memory utilisation; std::nullopt when no node has
/// GPU memory.
std::optional<double> gpu_memory_utilization_stddev(const ClusterSample& sample);

}  // namespace tidesim::metrics
