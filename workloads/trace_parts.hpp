#pragma once
/// Pieces the trace readers share (trace.hpp, trace_slurm.hpp, trace_pai.hpp, trace_gfs.hpp):
/// calendar times and how a job's GPUs are split into identical pods.
#include <cstdint>
#include <optional>
#include <string>

namespace tidesim::workloads {

/// Philly machines have 8 GPUs (CALIBRATION.md, "Cluster traces").
inline constexpr int kPhillyGpusPerMachine = 8;

/// "YYYY-MM-DD HH:MM:SS" -> seconds since 1970 (UTC assumed; only differences matter). With
/// `offset_allowed`, a UTC offset "+HH:MM" or "-HH:MM" may follow (AcmeTrace writes
/// "2023-03-01 00:18:22+08:00") and is subtracted, so times of different offsets compare. A date
/// the calendar does not have ("2017-02-30") is refused, not rolled into the next month.
/// nullopt with `problem` saying why otherwise.
std::optional<std::int64_t> parse_timestamp(const std::string& s, std::string& problem,
                                            bool offset_allowed = false);

/// The pods of a job of `gpus` whole GPUs: the fewest pods, at least `min_pods` and at least
/// ceil(gpus / per_pod_max), that split the GPUs evenly; one GPU per pod when `min_pods` is more
/// than `gpus`. A job without GPUs gets max(min_pods, 1) pods. Philly: pods_for(g, 1, 8) (a job
/// of up to 8 GPUs is one pod, 12 GPUs are 2 pods of 6).
int pods_for(int gpus, int min_pods, int per_pod_max);

}  // namespace tidesim::workloads
