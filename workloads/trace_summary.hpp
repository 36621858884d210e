#pragma once
/// A trace's summary in the columns of AcmeTrace's `data/cluster_summary.csv` (InternLM/AcmeTrace,
/// the table behind the NSDI'24 paper's comparison of Seren and Kalos with Philly and Helios):
/// job counts, run and queueing times of GPU and CPU jobs, GPUs per job, and the shares of jobs
/// and of GPU time that completed, were cancelled and failed (docs/traces.md, "Cluster summary").
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tidesim/workloads/trace_record.hpp"

namespace tidesim::workloads {

/// One value of the summary: nullopt where the trace cannot say (no CPU jobs, no queueing times,
/// no end states), an empty cell as in the published table's Philly row.
using SummaryValue = std::optional<double>;

/// The summary's columns in the published order, after `id`: job_num, cpu_job_num, gpu_job_num,
/// avg_run_time_gpu, ..., fail_rate_cpu.
const std::vector<std::string>& cluster_summary_columns();

/// The summary of `trace`, one value per cluster_summary_columns() entry, in that order.
///
/// A GPU job asks for GPUs (gpu_amount() > 0), a CPU job does not. Run time is the record's
/// duration (end - start), queueing time its queue (start - submit); jobs without one are left
/// out of that column's mean and median. avg/med/max_gpu_num are over GPU jobs, by
/// gpu_amount(). Medians are the middle value, or the mean of the two middle ones (pandas').
/// complete/cancel/fail_rate_X: the share of X jobs whose end state is completed, cancelled,
/// failed; complete/cancel/fail_gpu_time: the sum of run time x GPUs over GPU jobs of that end
/// state, seconds; *_rate_gpu_time: that over the sum of run time x GPUs of all GPU jobs. The
/// rates are nullopt for a trace whose jobs carry no end state.
std::vector<SummaryValue> cluster_summary(const Trace& trace);

}  // namespace tidesim::workloads
