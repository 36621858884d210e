#pragma once
/// A job's uncontended run time: how long its work takes at the GPUs it asks for, alone on the
/// cluster (no time-slicing, no shared links or storage). The job-level metrics' isolated run
/// time (finish-time fairness, docs/metrics.md) and the job-level policies' size estimate read it.
#include <string>

#include "tidesim/workloads/catalogue.hpp"
#include "tidesim/workloads/job.hpp"

namespace tidesim::workloads {

/// Seconds `spec`'s work takes uncontended: its measured step time on the fewest nodes (nodes of
/// `node_gpus` GPUs filled in turn) x its steps; else its traced run time (`duration`); else its
/// steps x the catalogue's step time on `reference_gpu` at its GPUs with no contention. 0 when
/// none applies (a CPU-only cluster: `reference_gpu` empty, and no run time given). Throws as
/// Catalogue::profile() does for a model the catalogue cannot profile on `reference_gpu`.
///
/// The same rule as the admission controller's size estimate (sim/model/admission_controller.cpp,
/// `known_seconds`), which computes it apart for now.
double uncontended_seconds(const JobSpec& spec, const Catalogue& catalogue,
                           const std::string& reference_gpu, int node_gpus);

}  // namespace tidesim::workloads
