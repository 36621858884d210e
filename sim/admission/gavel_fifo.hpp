#pragma once
/// Gavel's FIFO (policies/fifo.py, FIFOPolicy in modes "base" and "perf"; docs/gavel.md): jobs
/// in arrival order each get one whole GPU type (X[j][t] = 1) while GPUs are left. Stateful, as
/// Gavel's: in the agnostic mode a job keeps its type until it ends (non-preemptive), and a
/// GPU type freed by an ending job goes first to the head of the queue; the perf mode decides
/// afresh at each call.
#include <cstdint>
#include <map>

#include "tidesim/sim/admission/gavel_allocation.hpp"
#include "tidesim/sim/engine/random.hpp"

namespace tidesim::gavel {

class Fifo {
 public:
  /// `perf`: fifo_perf (each job on the type where it is fastest among those with room, the
  /// first in the cluster's order on a tie); otherwise fifo (a type drawn uniformly among those
  /// with room, from the stream "gavel-fifo" of `seed`).
  Fifo(bool perf, std::uint64_t seed) : perf_(perf), rng_(seed, "gavel-fifo") {}

  /// Jobs are taken in the problem's order (arrival order: Gavel sorts by job id). A job at the
  /// head of the queue whose scale factor fits no type stops the walk (no job jumps ahead); one
  /// whose throughput is 0 on the type it was given is skipped for this call.
  Allocation allocate(const AllocationProblem& p);

 private:
  bool perf_;
  RandomStream rng_;
  /// Job id -> GPU type index, kept between calls in the agnostic mode.
  std::map<int, std::size_t> placed_;
};

}  // namespace tidesim::gavel
