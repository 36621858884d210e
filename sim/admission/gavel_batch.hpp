#pragma once
/// Shockwave's batch changes as its simulator makes them between rounds (uw-mad-dash/shockwave
/// scheduler/scheduler.py; GavelPolicy's `batch_changes: round`, docs/gavel.md "Batch changes at
/// the rounds"). The simulator counts a job's work in steps at its batch now: its trace's
/// `total_steps` at its initial batch until its first change. At each round's end it asks every
/// job for the batch its mode wants at its epochs then (`_simulate_gns`, `_simulate_accordion`:
/// a flag; workloads::shockwave_batch_request); a job that asked changes its batch at the end of
/// its next micro-task (`_done_callback` -> `_scale_bs_and_iters`), its steps counted again at
/// the new batch (rescale(): its epochs done rounded up). Here: at the start of each round (a
/// round's end), each job of Shockwave's layout seen for the first time moves to its trace's
/// steps at its initial batch, each that ran in the round that ended and had asked moves to its
/// batch (workloads::GavelSpeed::at_batch, JobDecision::speed_change), and then every one asks.
#include <map>
#include <memory>
#include <vector>

#include "tidesim/sim/admission/job_policy.hpp"
#include "tidesim/workloads/gavel_jobs.hpp"

namespace tidesim::gavel {

/// A job's work after a batch change, in steps at its new batch.
struct BatchWork {
  double done = 0.0;
  double steps = 0.0;
};

/// _scale_bs_and_iters: a job of `steps` steps at batch `from`, `done` of them run, at batch
/// `to`: its steps `ceil(steps x from / to)`, or its epochs `ceil(steps / ceil(dataset / from))`
/// x `ceil(dataset / to)` when those would change its epochs; its steps run its epochs run
/// rounded up (`ceil(done / ceil(dataset / from))`) x `ceil(dataset / to)`.
BatchWork rescale(const workloads::ShockwaveModel& m, int from, int to, double done, double steps);

class BatchChanges {
 public:
  /// One round's start: `ran` the jobs of the round that ended (ascending). Each job of `jobs`
  /// of Shockwave's layout seen for the first time moves to its trace's steps at its initial
  /// batch; each in `ran` that asked moves to the batch it asked for (unless the table lacks
  /// it); then every one asks from its epochs now. The views of the jobs moved are updated
  /// (steps, progress, steps left, throughputs), as the round's scheduling sees them. Returns
  /// their speed changes.
  std::map<int, SpeedChange> round(std::vector<JobView>& jobs, const std::vector<int>& ran);

 private:
  // The active jobs whose batch is the rounds' and their speed now (the engine's, as the speed
  // changes gave it: JobView::spec is the job's spec as submitted).
  std::map<int, std::shared_ptr<const workloads::GavelSpeed>> speeds_;
  std::map<int, int> asked_;  // job -> the batch it asked for at a round's end
};

}  // namespace tidesim::gavel
