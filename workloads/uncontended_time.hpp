#pragma once
/// A job's uncontended run time: how long its work takes at the GPUs it asks for, alone on the
/// cluster (no time-slicing, no shared links or storage). The job-level metrics' isolated run
/// time (finish-time fairness, docs/metrics.md) and the job-level policies' size estimate read it.
#include <string>
#include <vector>

#include "tidesim/workloads/catalogue.hpp"
#include "tidesim/workloads/job.hpp"

namespace tidesim::workloads {

/// Seconds `spec`'s work takes uncontended: its measured step time on the fewest nodes (nodes of
/// `node_gpus` GPUs filled in turn) x its steps; else its traced run time (`duration`); else its
/// steps x the catalogue's step time on `reference_gpu` at its GPUs with no contention. 0 when
/// none applies (a CPU-only cluster: `reference_gpu` empty, and no run time given). Throws as
/// Catalogue::profile() does for a model the catalogue cannot profile on `reference_gpu`.
/// The admission controller's size estimate (job-level policies' JobView::estimate_s) is this.
double uncontended_seconds(const JobSpec& spec, const Catalogue& catalogue,
                           const std::string& reference_gpu, int node_gpus);

/// Seconds per step of `spec` on `placement` (GPUs on each node it uses) uncontended: measured
/// (Pollux jobs), else the catalogue's step time on `reference_gpu` at the placement's GPUs; 0 when
/// neither applies (no reference GPU: a CPU-only cluster). What a job-level policy asks with
/// JobPolicyState::step_seconds.
double uncontended_step_seconds(const JobSpec& spec, const Catalogue& catalogue,
                                const std::string& reference_gpu,
                                const std::vector<int>& placement);

}  // namespace tidesim::workloads
