#pragma once
/// CSV writers (RFC 4180, the one rule of sim/input/csv.hpp: comma-separated, fields with
/// commas, quotes or line breaks quoted): per-job records and per-node time series of a result.
/// Columns in docs/outputs.md.
#include <optional>
#include <ostream>
#include <string>

#include "tidesim/sim/input/csv.hpp"
#include "tidesim/tools/lib/result.hpp"

namespace tidesim::app {

/// One CSV field (sim/input/csv.hpp).
using tidesim::csv_field;
/// A number as a CSV field: the shortest text that reads back exactly; empty when undefined.
std::string csv_number(const std::optional<double>& v);

/// One row per job per run: policy, seed, job, state, gpus, nodes (';'-joined), submit_s,
/// first_bind_s, start_s, finish_s, wait_s, jct_s (empty when undefined), oom_kills, restarts,
/// evictions, nvlink_required, nvlink_counted_s, nvlink_contended_s. Throws InputError when the
/// result was written without its per-job records (tools/lib/result_records.hpp).
void write_jobs_csv(std::ostream& out, const RunResult& result);

/// One row per node per sample per run (runs that recorded series): policy, seed, time_s, node,
/// gpu_utilization (node mean), gpu_memory_used_bytes (sum over cards),
/// gpu_memory_capacity_bytes (sum), gpu_memory_utilization, nvlink_competition_index,
/// nvlink_utilization_variance (empty without NVLink), storage_await_ms, gpus_allocated,
/// gpus_allocatable.
void write_node_series_csv(std::ostream& out, const RunResult& result);

/// One row per card per sample per run: policy, seed, time_s, node, gpu_id, gpu_utilization,
/// gpu_memory_used_bytes, nvlink_utilization (empty without NVLink).
void write_card_series_csv(std::ostream& out, const RunResult& result);

/// attempts.csv: policy, seed, job, attempt, pod, node, cards (";"-separated), bound_s,
/// started_s, ended_s, outcome, oom_card, oom_memory_used_bytes, oom_memory_capacity_bytes,
/// oom_co_located (";"-separated job names). Throws InputError when the result was written
/// without its attempt log (tools/lib/result_records.hpp).
void write_attempts_csv(std::ostream& out, const RunResult& result);

}  // namespace tidesim::app
