#pragma once
/// Shockwave's planner as pure functions (Zheng et al., NSDI'23; uw-mad-dash/shockwave
/// scheduler/shockwave.py, JobMetaData.py; docs/gavel.md, "Shockwave's policy"): each job's
/// predicted run time left (a Dirichlet posterior over its batch-size modes), its finish-time
/// target under an equal share, and the plan of the next `future_rounds` rounds: how many rounds
/// each job gets (the market objective, solved by CBC as a mixed integer program) and which jobs
/// run in which round.
#include <cstdint>
#include <utility>
#include <vector>

namespace tidesim::shockwave {

/// The knobs of the artifact's configuration file (configurations/tacc_32gpus.json) and the
/// constants of its scheduler.
struct Config {
  /// Rounds planned at once (`future_rounds`).
  int future_rounds = 20;
  /// Weight of the makespan term: k x the largest run time left after the plan (`k`).
  double k = 1e-3;
  /// A job behind its finish-time target by ratio rho > rhomax has its utility weighted by
  /// rho^lambda when the targets cannot all be met (`lambda`, `rhomax`).
  double lambda = 12.0;
  double rhomax = 1.0;
  /// The points of the piecewise-linear log of normalised progress (`log_approximation_bases`),
  /// ascending from 0 to 1; log(0) is taken as log(`log_origin`) (scheduler.py logapx_origin
  /// {0.0: 1e-6}).
  std::vector<double> log_bases = {0.0, 0.2, 0.4, 0.6, 0.8, 1.0};
  double log_origin = 1e-6;
  /// Round length, seconds (Gavel's time_per_iteration).
  double round_s = 120.0;
  /// The plan is re-solved every `reopt_rounds` rounds besides arrivals and ends (scheduler.py
  /// REOPT_ROUNDS = 8).
  int reopt_rounds = 8;
  /// Weight of the finish-time estimates' running average against the latest one
  /// (shockwave.py finish_time_momentumed_average, momentum 0.9).
  double momentum = 0.9;
  /// Exponent of rho for a job with less than a round of work left (priority_M = 1e2).
  double priority_m = 100.0;
  /// Weights above this are clipped (rho^100 overflows a solver's scale); the round order still
  /// ranks by the unclipped weight. Assumption.
  double max_priority = 1e6;
  /// Branch and bound stops within this relative gap (`solver_rel_gap`, the artifact's Gurobi
  /// MIPGap) or after this many nodes (an assumption standing for the artifact's 15 s time limit,
  /// which would make the plan depend on the machine).
  double solver_rel_gap = 1e-3;
  int solver_max_nodes = 1000;
};

/// A job as the planner sees it (JobMetaData): GPUs, submission, its profile by epoch and the
/// epochs done.
struct Job {
  int id = 0;
  int workers = 1;
  double submit_s = 0.0;
  /// Batch and seconds alone of every epoch (the planning profile); seconds are rounded to whole
  /// seconds, at least 1, as JobMetaData.convert_epoch_duration_in_seconds does.
  std::vector<int> batch;
  std::vector<double> epoch_s;
  std::int64_t progress = 0;
  std::int64_t epochs() const { return static_cast<std::int64_t>(epoch_s.size()); }
};

/// Rounds `seconds` as the artifact does: max(1, round(s)).
std::vector<double> profile_seconds(const std::vector<double>& seconds);

/// JobMetaData.dirichlet_posterior_remaining_runtime at `progress` epochs done: prior count
/// epochs / modes per batch size, plus one per epoch observed (epochs 0..progress), rebased to
/// the job's epochs, less one per observed epoch; the sum over modes of those epochs x the mode's
/// mean epoch seconds, scaled by (epochs - progress) / max(epochs - progress,
/// int(rebased sum + 1)). 1 when nothing is left.
double remaining_runtime(const Job& j, std::int64_t progress);

/// The finish time under an equal share (ShockwaveScheduler.finish_time_uniform_share):
/// submit + (seconds of the epochs done + remaining_runtime) / min(1, gpus / jobs).
double equal_share_finish(const Job& j, int gpus, int jobs);

/// finish_time_momentumed_average: the estimates (round, value) weighted by the rounds each
/// held until `round`, then momentum x that + (1 - momentum) x the latest.
double momentum_average(const std::vector<std::pair<int, double>>& series, int round,
                        double momentum);

/// The plan's counts: rounds per job (in the jobs' order) and each job's weight.
struct Counts {
  std::vector<int> rounds;
  std::vector<double> priority;
  /// The finish-time constraints could not all be met: weights rho^lambda were used instead.
  bool relaxed = false;
};

/// dynamic_eisenberg_gale_scheduling over `jobs` (`targets`: each job's finish-time target, the
/// momentum average) planned from time `now_s` on `gpus` GPUs: maximise
///   sum_j w_j log~((done_j + p_j) / epochs_j) / (jobs x rounds) - k max_j max(0, rem_j - p_j d_j)
/// over the epochs p_j each job is planned to run and its whole rounds n_j, with p_j d_j <= n_j
/// round_s (d_j its mean epoch seconds so far) and sum_j workers_j n_j <= gpus x rounds, where
/// log~ is the chord approximation at the bases, and, when feasible, now + rounds x round_s +
/// max(0, rem_j - p_j d_j) / min(1, gpus / jobs) <= rhomax x target_j. Solved by CBC as a mixed
/// integer program with the artifact's gap: the per-round 0/1 variables are summed into the
/// whole count n_j per job (the objective depends on the count only), and the log's
/// breakpoints need no 0/1 variables (log is concave). Branch and bound starts from the linear
/// relaxation rounded: counts rounded down, the GPU-rounds left to the jobs that lose the most
/// objective per GPU. A job's count is at most the rounds its planned epochs need (rounds beyond
/// change nothing in the objective: the work-conserving fill gives them out). AllocationError
/// if the solver fails.
Counts plan_counts(const std::vector<Job>& jobs, const std::vector<double>& targets, int gpus,
                   double now_s, const Config& c);

/// The jobs (ids) of each of the plan's rounds (construct_schedules and
/// rank_in_schedule_jobs): every job runs in exactly its count of rounds (the artifact's ranking
/// keeps each job's count), earliest the jobs of highest weight / count (the coefficient of a
/// job's mean round in rank_in_schedule_jobs' objective); round by round, the jobs whose rounds
/// left fill the rounds left first, then by weight / count descending, then by how far behind
/// an even spread of their rounds they are, each taken when its GPUs fit; then the artifact's
/// work-conserving fill: the jobs not taken by remaining run time descending, each that fits.
std::vector<std::vector<int>> assign_rounds(const std::vector<Job>& jobs, const Counts& counts,
                                            int gpus, const Config& c);

}  // namespace tidesim::shockwave
