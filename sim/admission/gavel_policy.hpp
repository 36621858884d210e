#pragma once
/// Gavel's policies run in a scenario (docs/gavel.md, "Running the policies"): a job-level policy
/// that runs Gavel's rounds (gavel_rounds.hpp) over the cluster's GPU types, each round's
/// allocation X from one of Gavel's policies by its Gavel name, and places each chosen job on the
/// exact GPUs the rounds give it. Selected by `admission: {policy: gavel, args: {policy: NAME}}`.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/admission/gavel_allocation.hpp"
#include "tidesim/sim/admission/gavel_allox.hpp"
#include "tidesim/sim/admission/gavel_batch.hpp"
#include "tidesim/sim/admission/gavel_fifo.hpp"
#include "tidesim/sim/admission/gavel_ftf.hpp"
#include "tidesim/sim/admission/gavel_gandiva.hpp"
#include "tidesim/sim/admission/gavel_inputs.hpp"
#include "tidesim/sim/admission/gavel_rounds.hpp"
#include "tidesim/sim/admission/gavel_water_filling.hpp"
#include "tidesim/sim/admission/job_policy.hpp"
#include "tidesim/sim/admission/shockwave_policy.hpp"

namespace tidesim::workloads {
class MeasuredSpeed;
}  // namespace tidesim::workloads

namespace tidesim {

/// The names of the policies `gavel` runs (Gavel's utils.get_policy names, and Shockwave's
/// gandiva_fair).
const std::vector<std::string>& gavel_policy_names();
/// Whether policy `name` solves a linear program for its allocation (max-min fairness,
/// finish-time fairness, min total duration, max-sum-throughput, and their packed forms): the
/// policies `lp_method: interior` applies to.
bool gavel_solves_lp(const std::string& name);

/// One of Gavel's allocation policies by name, with the state some keep between allocations.
class GavelAllocator {
 public:
  /// std::invalid_argument for a name not in gavel_policy_names(). `reference`: the GPU type the
  /// agnostic finish-time fairness and min total duration take every throughput from; `alpha`:
  /// AlloX's share of the queue considered.
  GavelAllocator(const std::string& name, std::uint64_t seed, std::string reference, double alpha,
                 bool allox_multi_gpu = false, double packing_threshold = 1.5);
  /// X of `p`, one row per job, and a packing policy's pairs (the `_packed` policies, gandiva;
  /// none for the others). `entities`: the water-filling policies' hierarchy (nullptr: none).
  /// AllocationError as the policy throws it.
  gavel::PackedAllocation allocate(const gavel::AllocationProblem& p,
                                   const gavel::WaterFillingEntities* entities = nullptr);
  /// Gavel shuffles the GPU types each round for the policies whose name has neither Perf nor
  /// Packing (scheduler.py); FIFO does not run a job of priority 0.
  bool shuffles_types() const;
  bool fifo() const { return name_.rfind("fifo", 0) == 0; }
  /// Gavel's packing policies (`'Packing' in policy.name`: every _packed policy and gandiva),
  /// whose rounds rank every pair of jobs of the same scale factor.
  bool packs() const { return name_.find("packed") != std::string::npos || name_ == "gandiva"; }
  bool water_filling() const { return name_.rfind("max_min_fairness_water_filling", 0) == 0; }

 private:
  std::string name_;
  std::string reference_;
  std::unique_ptr<gavel::FinishTimeFairness> ftf_;
  std::unique_ptr<gavel::Fifo> fifo_;
  std::unique_ptr<gavel::AlloX> allox_;
  std::unique_ptr<gavel::Gandiva> gandiva_;

  gavel::Allocation allocate_single(const gavel::AllocationProblem& p);
};

/// `admission: {policy: gavel, args: {...}}`. Args: `policy` (a name of gavel_policy_names(),
/// default max_min_fairness_perf), `round` (seconds, Gavel's time_per_iteration, default 360),
/// `min_reset_interval` (seconds, default 1920), `reference_gpu` (default V100-SXM2-16),
/// `allox_alpha` (default 1), `allox_multi_gpu` (true: Shockwave's AlloX, jobs of any scale
/// factor; default false: Gavel's, single-GPU jobs only), `gpu_order` (the greedy walk's order of
/// GPU models, comma-separated, default V100-SXM2-16,P100: Gavel walks v100, p100, k80), `prices`
/// (a price per hour for each GPU model, `MODEL:PRICE,...`, read by
/// max_sum_throughput_normalized_by_cost_perf* and _packed_SLOs, which need it), `restart_overhead`
/// (seconds, default 0: a job that did not run in the last round starts its work this late in a
/// round, as Shockwave's simulator charges 20 s, and is credited that much less;
/// gavel_restart.hpp), `credit` (round, the default: the rounds credit a job the seconds it ran;
/// steps: no more than its micro-task, its whole steps of the round at its throughput, as Gavel's
/// and Shockwave's simulators credit it), `packing_threshold`
/// (fifo_packed only: the normalised throughput a pair must exceed, default 1.5 as Gavel's
/// FIFOPolicyWithPacking), `lp_method` (simplex, the
/// default: a vertex and tidesim's tie-break stages; interior: each program in one stage as Gavel
/// writes it, solved inside its optimal face as cvxpy's ECOS does; only for gavel_solves_lp
/// policies), `entities` (the water-filling policies' hierarchy, Gavel's entities:
/// `QUEUE:WEIGHT:RULE,...`, each job's entity its local queue, the label kueue.x-k8s.io/queue-name,
/// RULE fairness or fifo; a job of another queue or none is an error); with `policy: shockwave`,
/// Shockwave's arguments (shockwave_policy.hpp: its plan chooses each round's jobs, on a cluster of
/// one GPU type as the artifact's).
class GavelPolicy : public JobPolicy {
 public:
  explicit GavelPolicy(const AdmissionConfig& config);
  ~GavelPolicy() override;
  std::string_view name() const override { return "gavel"; }
  /// The time to the end of the round in progress.
  std::optional<Duration> interval() const override;
  JobDecision decide(const JobPolicyState& state) override;
  /// Gavel's lease-extension counts (gavel::Rounds).
  std::int64_t lease_extensions() const;
  std::int64_t lease_extension_opportunities() const;
  /// `lease_extensions` (a count) and `lease_extension_share` (of the opportunities, when any).
  void add_metrics(std::map<std::string, double>& out) const override;

 private:
  gavel::RoundAllocation allocate(const JobPolicyState& state);
  /// The entities of the jobs (rows of the allocation problem) by their local queues.
  gavel::WaterFillingEntities entities_of(const std::vector<const JobView*>& jobs) const;
  void start(const JobPolicyState& state);
  void leave(const JobPolicyState& state, double now);
  void plan_delays(const JobPolicyState& state, const std::vector<int>& last_round);
  void plan_credits(const JobPolicyState& state);
  /// A pair's throughput per GPU type for the rounds: the lesser of its jobs' co-located
  /// throughputs there (0 where the table has none).
  std::vector<double> pair_throughput(int a, int b) const;
  JobDecision current(const JobPolicyState& state) const;
  /// The seconds `p` ran this round until `now` that the rounds credit: the time since the round
  /// began (with `credit: steps`, no more than its micro-task) less its restart delay
  /// (gavel_restart.hpp).
  double ran_s(const gavel::Placement& p, double now) const;

  gavel::RoundsConfig rounds_config_;
  std::string reference_;
  std::vector<std::string> order_;
  std::map<std::string, double> prices_;  // GPU model -> price per hour (cost-aware policies)
  std::unique_ptr<GavelAllocator> allocator_;
  std::unique_ptr<gavel::Rounds> rounds_;
  std::unique_ptr<shockwave::Scheduler> shockwave_;
  gavel::GpuTypes types_;
  std::map<int, gavel::Placement> placed_;  // this round's
  // The jobs' speeds at the last round's start (the rounds' pairs read their co-located
  // throughputs from them).
  std::map<int, const workloads::MeasuredSpeed*> speeds_;
  std::vector<int> known_;                              // ids added to the rounds, ascending
  double restart_overhead_s_ = 0.0;                     // gavel_restart.hpp
  std::map<int, double> delay_;                         // this round's start delays, seconds
  bool credit_steps_ = false;                           // credit: steps
  std::map<int, double> micro_task_;                    // credit: steps: this round's, seconds
  std::unique_ptr<gavel::BatchChanges> batch_changes_;  // batch_changes: round
  lp::Method lp_method_ = lp::Method::simplex;          // lp_method
  bool conic_centre_ = false;                           // lp_method: centre
  // entities: queue -> (weight, rule)
  std::map<std::string, std::pair<double, gavel::WaterFillingEntities::Rule>> entities_;
  std::int64_t rounds_started_ = 0;
  double round_start_ = 0.0;
  double round_end_ = 0.0;
  double last_now_ = 0.0;
  bool started_ = false;
};

}  // namespace tidesim
