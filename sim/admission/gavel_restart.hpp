#pragma once
/// The restart overhead of Shockwave's simulator (uw-mad-dash/shockwave scheduler/scheduler.py,
/// `simulate`: "inject overhead of preemption/reallocation for simulation fidelity"; Gavel's own
/// simulator has none). When a round ends, a job that was not in the schedule of the round before
/// the one it just ran loses `preemption_overhead = 20` s of that round: its steps are scaled by
/// `(t - 20) / t` (t: the seconds it ran), as if its work began 20 s late. Two exemptions, as the
/// artifact has them: the jobs of the run's first round (`current_round != 1`), and a round the
/// job runs for no more than `round - 5` s (`time_per_iteration - 5 < execution_time`: its last
/// round, the steps it has left fewer than a round's). Here the same loss is a delay of the job's
/// start in that round (JobDecision::start_delay), decided when the round begins. The overhead is
/// not time received: the artifact credits the job the round less 20 s (`execution_time -=
/// preemption_overhead`), and GavelPolicy credits its rounds the same (GavelPolicy::ran_s).
namespace tidesim::gavel {

/// What a job's round start depends on.
struct RestartCase {
  /// The job ran in the previous round (was in its schedule, on any GPUs).
  bool ran_last_round = false;
  /// This round is the run's first.
  bool first_round = false;
  /// Its steps left and its steps per second on the GPU type of this round (the whole job's).
  double steps_left = 0.0;
  double throughput = 0.0;
};

/// The artifact's margin: a round of more than `round - kRestartMargin` s pays the overhead.
inline constexpr double kRestartMarginS = 5.0;

/// A micro-task's duration in the artifacts' simulators (`_get_num_steps` and the finish time
/// `num_steps / throughput`): `min(floor(throughput x round_s), steps_left) / throughput`, the
/// whole steps of a round or the steps left; 0 at a throughput of 0 or less.
double micro_task_s(double throughput, double steps_left, double round_s);

/// The seconds job `c`'s work starts late in a round of `round_s` seconds under an overhead of
/// `overhead_s` (0: none): `overhead_s` unless it ran in the last round, this is the first round,
/// or `min(floor(throughput x round_s), steps_left) / throughput <= round_s - 5` (it would run
/// that little; Gavel's simulator credits whole steps a round, scheduler.py `_get_num_steps`).
double restart_delay(const RestartCase& c, double round_s, double overhead_s);

}  // namespace tidesim::gavel
