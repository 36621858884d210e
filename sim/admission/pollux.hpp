#pragma once
/// Pollux' scheduler (Qiao et al., "Pollux: Co-adaptive Cluster Scheduling for Goodput-Optimized
/// Deep Learning", OSDI'21, section 4.2; as the artifact runs it: petuum/adaptdl branch
/// osdi21-artifact, simulator/pollux.py and simulator.py; docs/artifact-policies.md, "Pollux"). At
/// each round (whole multiples of `interval`, 60 s) it
///  1. learns from the jobs: each running adaptive job reports its configuration, measured step
///     and gradient statistics (JobView::report); a configuration not seen before joins the job's
///     profile and its throughput model is fitted again (workloads/perf_fit.hpp);
///  2. gives each job a speedup function: its goodput on (nodes, GPUs) at the best batch
///     (workloads/speedup.hpp) over its goodput on its fair share (ceil(G / jobs) GPUs on
///     ceil(N / G) nodes); a job not yet measured gets replicas / fair share;
///  3. searches the allocation (pollux_search.hpp) that maximises the power mean (exponent `p`,
///     -1) of the speedups, each scaled by N / G and, for a job whose allocation changes, by
///     the restart factor max(age - restarts x `restart_delay`, 0) / (age + `restart_delay`);
///     a job gets at most min(max(2 x its most profiled replicas, 1), `max_replicas`,
///     max_batch / min_atomic) GPUs, at most 16 nodes, and at most one multi-node job shares a
///     node; jobs are ordered by attained GPU-seconds, then submission;
///  4. returns the jobs with GPUs, their replica counts and their node per pod; a running job
///     whose nodes change is moved (JobDecision::move). Each elastic job chooses its batch at
///     each epoch (workloads::kAdaptiveBatch), as AdaptDL's do under Pollux.
/// Parameters (`args:`): `p` (-1), `restart_delay` (30: seconds, the artifact's re-scale
/// delay), `max_replicas` (64: the artifact's cap), `population` (100), `generations` (100),
/// `rounds` (true). The search draws from the stream "pollux-search" of the run's seed.
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "tidesim/sim/admission/artifact_placement.hpp"
#include "tidesim/sim/admission/job_policy.hpp"
#include "tidesim/sim/admission/pollux_search.hpp"
#include "tidesim/sim/engine/random.hpp"
#include "tidesim/workloads/goodput.hpp"
#include "tidesim/workloads/perf_fit.hpp"
#include "tidesim/workloads/speedup.hpp"

namespace tidesim {

/// Pollux' parameters (`args:`; the header's comment), read by decode_pollux_args.
struct PolluxArgs {
  /// `p`: the power mean's exponent, in [-1e6, 1].
  double p = -1.0;
  /// `restart_delay`: seconds, in [0, 1e9].
  double restart_delay_s = 30.0;
  /// `max_replicas`, `population` (at least 1) and `generations` (at least 0), whole numbers up
  /// to 1e6.
  int max_replicas = 64;
  int population = 100;
  int generations = 100;
  /// `rounds`: decide only at the artifact's rounds.
  bool rounds = true;
};

/// Reads PolluxArgs from the policy's `args:` (JobPolicyEntry::decode); an InputError naming the
/// field for a value of the wrong kind or out of range.
PolluxArgs decode_pollux_args(Fields& args);

class PolluxPolicy final : public JobPolicy {
 public:
  /// Its parameters are `config`'s typed args (job_args<PolluxArgs>).
  explicit PolluxPolicy(const AdmissionConfig& config);
  std::string_view name() const override { return "pollux"; }
  std::optional<Duration> interval() const override;
  JobDecision decide(const JobPolicyState& state) override;
  /// Its searches' work since the last call (pollux_search_events), in events.
  std::uint64_t take_work() override;
  /// The search of `config`'s arguments (population, generations). For the run's estimate.
  static PolluxSearchConfig search_config(const AdmissionConfig& config);

  /// What it has learned of job `id`: its profile and fitted model (nullopt: not measured yet).
  struct Learned {
    std::vector<workloads::PerfSample> samples;
    std::set<std::tuple<int, int, int>> seen;  // (nodes, replicas, atomic batch)
    std::optional<workloads::PerfParams> perf;
    std::optional<workloads::GradParams> grad;
    int most_replicas = 0;
    /// Its speedup function and the model it was made for (kept while the model holds).
    std::shared_ptr<workloads::SpeedupFunction> speedup;
    workloads::PerfVector speedup_perf{};
    std::pair<double, double> speedup_grad{};
  };
  const Learned* learned(int id) const;

 private:
  /// Indices into JobPolicyState::jobs, in the order the search sees the jobs.
  using Order = std::vector<std::size_t>;
  /// The fair share a speedup is relative to: ceil(G / jobs) GPUs on ceil(N / G) nodes.
  struct FairShare {
    int replicas = 1;
    int nodes = 1;
  };
  /// The search's speedups, each (job, nodes, replicas) within the job's caps computed once.
  class SpeedupTable {
   public:
    SpeedupTable(const JobPolicyState& state, const Order& order, const PolluxProblem& problem,
                 std::vector<workloads::SpeedupFunction*> speedup, int fair_replicas);
    double operator()(int j, int n, int r);

   private:
    double compute(int j, int n, int r) const;
    const JobPolicyState& state_;
    const Order& order_;
    const std::vector<int>& max_replicas_;
    std::vector<workloads::SpeedupFunction*> speedup_;
    int fair_replicas_;
    int most_nodes_;
    std::vector<std::vector<double>> table_;
  };

  void learn(const JobView& job);
  static Order service_order(const std::vector<JobView>& jobs);
  /// Drops what it keeps of the jobs no longer in `jobs`.
  void forget_ended(const std::vector<JobView>& jobs);
  /// The search's base: a row of replicas per node for each job, in `order`.
  PolluxState current_allocation(const JobPolicyState& state, const Order& order,
                                 int node_count) const;
  static FairShare fair_share(int jobs, int nodes, int gpus);
  int replica_cap(const JobView& j) const;
  double restart_factor(const JobView& j, TimePoint now) const;
  /// The job's speedup function on its learned model, made again when the model changed;
  /// nullptr for a job without one (its speedup is replicas / fair share).
  workloads::SpeedupFunction* speedup_function(const JobView& j, FairShare fair);
  std::vector<PolluxState> carried_population(const JobPolicyState& state, const Order& order,
                                              const PolluxProblem& problem) const;
  /// Runs the search and keeps its population for the next round.
  void run_search(const JobPolicyState& state, const Order& order, const PolluxProblem& problem);
  /// Puts job `j`'s allocation `row` (its current one: `now`) into the decision.
  void give(const JobView& j, const int* row, const int* now, const std::vector<NodeInfo>& nodes,
            JobDecision& decision);

  ArtifactRounds rounds_;
  bool at_rounds_ = true;
  double p_ = -1.0;
  double restart_delay_s_ = 30.0;
  int max_replicas_ = 64;
  PolluxSearchConfig search_;
  double work_ = 0.0;  // events of the searches not yet taken
  RandomStream rng_;
  std::map<int, Learned> learned_;
  /// Its last decision: job -> node index -> replicas.
  std::map<int, std::map<int, int>> alloc_;
  /// The last search's population, its jobs and nodes (to start the next search from).
  std::vector<PolluxState> population_;
  std::vector<int> population_jobs_;
  int population_nodes_ = 0;
};

}  // namespace tidesim
