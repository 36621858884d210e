#pragma once
/// AlloX as Gavel runs it (policies/allox.py, AlloXPolicy; docs/gavel.md): single-GPU jobs are
/// matched to GPU positions by a min-cost assignment. A job placed on a worker keeps it until it
/// ends; the others are matched afresh at each call. Gavel solves the assignment with the
/// Hungarian method (scipy's linear_sum_assignment); here it is the same assignment as a
/// transportation program on CLP, whose vertices are integral.
#include <map>
#include <vector>

#include "tidesim/sim/admission/gavel_allocation.hpp"

namespace tidesim::gavel {

class AlloX {
 public:
  /// `alpha`: the share of the waiting jobs considered, at least as many as free GPUs (Gavel's
  /// default 1.0: all of them).
  /// `multi_gpu`: Shockwave's allox.py, which comments Gavel's assertion out: a job of any scale
  /// factor takes one position like a single-GPU job and, when first on its GPU, gets X =
  /// 1 / scale_factor (so only single-GPU jobs keep their row; the rounds give the others their
  /// GPUs by priority).
  explicit AlloX(double alpha = 1.0, bool multi_gpu = false)
      : alpha_(alpha), multi_gpu_(multi_gpu) {}

  /// Jobs whose last row sums to 1 keep it. The others, oldest first (by time_since_start),
  /// the first max(floor(alpha x m), free GPUs) of them, are matched to positions: position k
  /// (1 = last to run) on a free GPU of type t costs k x steps_remaining / throughput[t] +
  /// time_since_start, each job to one position, each position to at most one job per free GPU
  /// of its type. A job has no position on a type where its throughput is 0 (Gavel reads that
  /// throughput as 1e-10), and one with no position at all waits. On each GPU the job of the
  /// highest position runs now (X = 1). AllocationError for a job of scale factor other than 1
  /// (Gavel asserts) unless `multi_gpu`, or a solver failure.
  Allocation allocate(const AllocationProblem& p);

 private:
  double alpha_;
  bool multi_gpu_;
  std::map<int, std::vector<double>> previous_;
};

}  // namespace tidesim::gavel
