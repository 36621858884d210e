#pragma once
/// Gavel's FIFO (policies/fifo.py, FIFOPolicy in modes "base" and "perf"; docs/gavel.md): jobs
/// in arrival order each get one whole GPU type (X[j][t] = 1) while GPUs are left. Stateful, as
/// Gavel's: in the agnostic mode a job keeps its type until it ends (non-preemptive), and a
/// GPU type freed by an ending job goes first to the head of the queue; the perf mode decides
/// afresh at each call. Both follow Gavel's code where it differs from its paper (docs/gavel.md,
/// "FIFO's agnostic mode"): the agnostic mode places every job on the last type by name that
/// has a free GPU, and can give that type more jobs than GPUs. fifo_packed (FIFOPolicyWithPacking,
/// mode "packing") places as the perf mode does, then packs the jobs left in the queue.
#include <cstdint>
#include <deque>
#include <map>
#include <vector>

#include "tidesim/sim/admission/gavel_allocation.hpp"
#include "tidesim/workloads/python_random.hpp"

namespace tidesim::gavel {

class Fifo {
 public:
  /// `perf`: fifo_perf (each job on the type where it is fastest among those with room, the
  /// first by type name on a tie); otherwise fifo, whose draws are CPython's
  /// `random.Random(seed).randrange`, as Gavel's FIFOPolicy(seed=seed) makes them.
  Fifo(bool perf, std::uint64_t seed) : perf_(perf), rng_(seed) {}
  /// fifo_packed: the perf mode, then FIFOPolicy._pack with Gavel's packing threshold (1.5).
  static Fifo packing(double threshold = 1.5);

  /// Jobs are taken in the problem's order (arrival order: Gavel sorts by job id). A job at the
  /// head of the queue whose scale factor fits no type stops the walk (no job jumps ahead); one
  /// whose throughput is 0 on the type it was given is skipped for this call.
  Allocation allocate(const AllocationProblem& p);
  /// The same with fifo_packed's pairs: each job left in the queue, in order, is paired with the
  /// job placed alone (in placement order, of the same scale factor) whose pair has the largest
  /// normalised throughput on that job's type, the sum over the two jobs of co-located / alone
  /// throughput there (a job of co-located throughput 0 adds nothing), if it exceeds the
  /// threshold (the first on a tie); the pair takes the placed job's type (X = 1). The first job
  /// with no such partner ends the packing (no job jumps ahead). A partner on whose type the
  /// queued job's own throughput is 0 is not considered (Gavel would divide by it).
  PackedAllocation allocate_packed(const AllocationProblem& p);

 private:
  /// Places jobs from the queue's head on the types with free GPUs, as Gavel's walk does.
  void walk(const AllocationProblem& p, std::deque<std::size_t>& queue,
            std::vector<long long>& free);

  /// FIFOPolicy._pack after the walk (fifo_packed).
  std::vector<PairShare> pack(const AllocationProblem& p, std::deque<std::size_t> queue,
                              std::vector<std::size_t>& alone) const;

  bool perf_;
  double packing_threshold_ = 0.0;  // > 0: fifo_packed
  workloads::PythonRandom rng_;
  /// The queue the last walk left (fifo_packed packs it).
  std::deque<std::size_t> left_;
  /// Job id -> GPU type index, kept between calls in the agnostic mode.
  std::map<int, std::size_t> placed_;
};

}  // namespace tidesim::gavel
