#pragma once
/// Step time of a data-parallel training job: compute (slowed by a time-slicing share) overlapped
/// with input loading, plus a ring all-reduce of the gradients (docs/model-workloads.md).
#include <cstdint>
#include <limits>

#include "tidesim/sim/engine/time.hpp"
#include "tidesim/workloads/catalogue.hpp"

namespace tidesim::workloads {

/// What one worker gets from the cluster while it runs.
struct StepConditions {
  /// Share of the GPU's compute this worker gets, in (0, 1] (1 = alone; time-slicing with k busy
  /// processes gives 1/k).
  double compute_share = 1.0;
  /// Storage bandwidth this worker gets, bytes/s (> 0; infinity = never waits for input).
  double input_bandwidth = std::numeric_limits<double>::infinity();
  /// Ring all-reduce bus bandwidth during a burst, bytes/s: the bottleneck of the job's ring
  /// path (> 0; ignored when gpus == 1).
  double allreduce_bandwidth = std::numeric_limits<double>::infinity();
  /// The ring's average share of its links, bytes/s (> 0; infinity = unlimited): the all-reduce
  /// runs in bursts, one per step, and over time it cannot move more than this. The driver caps
  /// the ring's flow at allreduce_average_demand(), so the share reaches it unless the links are
  /// oversubscribed on average.
  double allreduce_average_bandwidth = std::numeric_limits<double>::infinity();
  /// Latency each all-reduce burst adds, seconds (>= 0): the fabric's, for a job whose ring
  /// leaves its node (docs/model-fabric.md); 0 inside one node.
  double allreduce_latency = 0.0;
  /// GPUs in the whole job (ring size), at least 1.
  int gpus = 1;
};

/// The parts of one step, in seconds.
struct StepTime {
  /// Whole step: max(max(compute, input) + sync, V / average bandwidth), V = ring bytes.
  double seconds = 0;
  /// Compute wall time: profile.compute_seconds / compute_share.
  double compute_seconds = 0;
  /// Input loading time: input_bytes / input_bandwidth (overlapped with compute).
  double input_seconds = 0;
  /// Ring all-reduce time of one burst: (S / B) x 2(n - 1) / n + latency; 0 for one GPU.
  double sync_seconds = 0;
  /// Bus bandwidth the all-reduce achieved over the step, V / (seconds - max(compute, input))
  /// (the burst bandwidth unless the links' average share limits the step); 0 for one GPU.
  double allreduce_effective_bandwidth = 0;
  /// Model-FLOPs utilisation of an LLM job's step (0 for other jobs).
  double mfu = 0;
  /// The share of the GPU this worker keeps busy: profile.compute_seconds / seconds, in [0, 1].
  /// Summed over the workers sharing a card it gives the card's utilisation.
  double gpu_utilization = 0;
};

/// Ring all-reduce time of `bytes` over `gpus` GPUs at bus bandwidth `bandwidth` bytes/s:
/// t = (S / B) x 2(n - 1) / n (NCCL tests' PERFORMANCE.md, CALIBRATION.md). 0 when gpus <= 1.
double ring_allreduce_seconds(std::int64_t bytes, int gpus, double bandwidth);

/// Bytes one GPU moves over its ring per all-reduce, V = S x 2(n - 1) / n (NCCL tests'
/// PERFORMANCE.md); 0 when gpus <= 1.
double ring_allreduce_volume(std::int64_t bytes, int gpus);

/// The ring's average demand, bytes/s: V / (max(compute, input) + sync) under `conditions`
/// (allreduce_average_bandwidth ignored): what its bursts move per second when nothing but the
/// step itself limits them. 0 for one GPU. The driver caps the ring's fluid flow at it.
double allreduce_average_demand(const ModelProfile& profile, const StepConditions& conditions);

/// Step time of one worker of `profile` under `conditions`. Throws std::invalid_argument when a
/// condition is out of range (a programming error in the driver, not bad input).
StepTime step_time(const ModelProfile& profile, const StepConditions& conditions);

/// The most steps a job may have: 2^50 (a scenario's `steps`, a trace's `steps` column, and a
/// run time converted to steps). The run keeps progress as a double, exact up to 2^53.
inline constexpr std::int64_t kMaxJobSteps = std::int64_t{1} << 50;

/// Steps a job finishes in `duration` at `step_seconds` per step (at least 1). Throws InputError
/// (field "duration", no place) when that is more than kMaxJobSteps: a long run time of a very
/// fast step (the cast to an integer would otherwise be undefined).
std::int64_t steps_for_duration(Duration duration, double step_seconds);

}  // namespace tidesim::workloads
