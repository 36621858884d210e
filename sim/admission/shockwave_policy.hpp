#pragma once
/// Shockwave's scheduler (uw-mad-dash/shockwave scheduler/shockwave.py ShockwaveScheduler, and
/// its hooks in scheduler.py; docs/gavel.md, "Shockwave's policy") in Gavel's rounds: it keeps the
/// jobs' finish-time estimates and the plan of the next rounds, re-solves the plan when a job
/// arrives or leaves, every `reopt_rounds` rounds and when the plan runs out, and otherwise runs
/// the stored plan's round. Run by `admission: {policy: gavel, args: {policy: shockwave, ...}}`
/// (gavel_policy.hpp), which hands each round's jobs to the rounds' placement.
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tidesim/sim/admission/job_policy.hpp"
#include "tidesim/sim/admission/shockwave_plan.hpp"

namespace tidesim::shockwave {

/// Whether `key` is one of Shockwave's arguments: the keys of the artifact's configuration file
/// (future_rounds, k, lambda, rhomax, log_approximation_bases, gpu_ram, solver_rel_gap,
/// solver_num_threads, solver_timeout), of its scheduler's constants (reopt_rounds, momentum,
/// log_origin, priority_m, max_priority) and solver_max_nodes.
bool is_arg(const std::string& key);

/// The Config of those arguments (`round_s`: the rounds' length). gpu_ram, solver_num_threads
/// and solver_timeout are checked (> 0) and change nothing: the artifact only asserts gpu_ram >
/// 0, and the integer program is solved by one deterministic thread within solver_rel_gap
/// (in [0, 1]) or solver_max_nodes nodes, not a time limit (docs/gavel.md).
/// std::invalid_argument naming the argument for a value out of range or not a number; bases
/// must ascend strictly from 0 to 1.
Config parse_config(const std::map<std::string, std::string>& args, double round_s);

/// The planner's view of the active jobs `ids` of `state` (their epoch profiles and epochs
/// done). gavel::AllocationError naming the job for one without an epoch profile (a row of
/// Gavel's layout: Shockwave plans by epochs).
std::vector<Job> jobs_of(const JobPolicyState& state, const std::vector<int>& ids);

class Scheduler {
 public:
  explicit Scheduler(Config c) : c_(std::move(c)) {}
  /// The jobs (ids) to run in the round beginning at `now_s` on `gpus` GPUs, given the active
  /// jobs; called once a round, in time order.
  std::vector<int> round(const std::vector<Job>& active, int gpus, double now_s);
  /// How many times the plan was solved, and with the finish-time constraints relaxed.
  int solves() const { return solves_; }
  int relaxed_solves() const { return relaxed_; }

 private:
  Config c_;
  std::set<int> known_;
  std::map<int, std::vector<std::pair<int, double>>> series_;  // finish-time estimates
  std::map<int, std::vector<int>> plan_;                       // round -> jobs
  int round_ = 0;
  int since_solve_ = 0;
  bool started_ = false;
  bool resolve_ = true;
  bool reestimate_ = true;
  int solves_ = 0;
  int relaxed_ = 0;
};

}  // namespace tidesim::shockwave
