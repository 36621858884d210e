#pragma once
/// Gavel's finish-time fairness (Themis-like; policies/finish_time_fairness.py,
/// FinishTimeFairnessPolicyWithPerf) on CLP (docs/gavel.md). It keeps state between calls, as
/// Gavel's does: each job's cumulative "isolated time", the time the steps it did since the
/// previous call would have taken at its isolated throughput.
#include <map>
#include <string>

#include "tidesim/sim/admission/gavel_allocation.hpp"

namespace tidesim::gavel {

/// Minimises max over jobs of rho_j(X) = (time_since_start + steps_remaining / sum_t
/// throughput x X) / (cumulative_isolated_time + steps_remaining / isolated_throughput), where
/// the isolated throughput is the job's under `isolated` (the equal split). rho_j(X) <= rho is
/// linear in X for a fixed rho (sum_t throughput x X >= steps_remaining / (rho x isolated time -
/// time_since_start)), so the least rho is found by bisection on rho, each step a feasibility
/// program (relative precision 1e-9); the returned X is, among those that reach it, the one of
/// largest sum of throughput x X / isolated throughput. A job with no steps left constrains
/// nothing. finish_time_fairness_packed (FinishTimeFairnessPolicyWithPacking) solves the same over
/// the packed layout (gavel_allocation.hpp; a job's throughput the sum over its columns and its
/// pairs'), each job's throughput divided by its priority weight as Gavel's packed variant
/// divides it (its perf variant leaves the weights unused); the isolated throughputs are the
/// jobs' alone.
class FinishTimeFairness {
 public:
  /// `agnostic`: Gavel's finish_time_fairness, every job's throughput on `reference` ("v100") on
  /// every type; otherwise finish_time_fairness_perf.
  /// `packed`: finish_time_fairness_packed (the jobs' own throughputs, and pairs).
  explicit FinishTimeFairness(bool agnostic = false, std::string reference = "v100",
                              bool packed = false)
      : agnostic_(agnostic && !packed), packed_(packed), reference_(std::move(reference)) {}

  /// One allocation; updates the cumulative isolated times. AllocationError for a bad problem or
  /// a solver failure (the state is then unchanged).
  Allocation allocate(const AllocationProblem& p);
  /// The same with the pairs' shares (finish_time_fairness_packed; none otherwise).
  PackedAllocation allocate_packed(const AllocationProblem& p);

  /// The least max rho of the last allocation (0 before any).
  double last_rho() const { return last_rho_; }
  /// Job `id`'s cumulative isolated time (0 if unknown).
  double cumulative_isolated_time(int id) const;

 private:
  struct Memory {
    double cumulative_isolated_s = 0.0;
    double isolated_throughput = 0.0;
    double steps_remaining = 0.0;
  };
  bool agnostic_;
  bool packed_;
  std::string reference_;
  std::map<int, Memory> memory_;
  double last_rho_ = 0.0;
};

}  // namespace tidesim::gavel
