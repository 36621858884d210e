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

class PolluxPolicy final : public JobPolicy {
 public:
  /// std::invalid_argument on an unknown argument or a value out of range.
  explicit PolluxPolicy(const AdmissionConfig& config);
  std::string_view name() const override { return "pollux"; }
  std::optional<Duration> interval() const override;
  JobDecision decide(const JobPolicyState& state) override;

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
  void learn(const JobView& job);

  ArtifactRounds rounds_;
  bool at_rounds_ = true;
  double p_ = -1.0;
  double restart_delay_s_ = 30.0;
  int max_replicas_ = 64;
  PolluxSearchConfig search_;
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
