#pragma once
/// Pollux's goodput model (Qiao et al., "Pollux: Co-adaptive Cluster Scheduling for
/// Goodput-Optimized Deep Learning", OSDI'21, section 3; petuum/adaptdl branch osdi21-artifact,
/// simulator/goodput.py): a job's predicted step time from seven performance parameters, its
/// statistical efficiency from the gradient noise, and goodput = throughput x efficiency, with the
/// search for the best batch configuration on an allocation. Formulas: docs/goodput-model.md.
/// The fit of the parameters: perf_fit.hpp; the speedup: speedup.hpp.
namespace tidesim::workloads {

/// The performance parameters (seconds; the artifact's PerfParams). Compute time is linear in the
/// atomic (per-GPU, per-pass) batch; network time depends on whether the replicas span nodes;
/// gamma in [1, 10] sets how much the two overlap (1: not at all, 10: nearly fully).
struct PerfParams {
  double alpha_c = 0;  ///< constant term of the compute time (s)
  double beta_c = 0;   ///< compute seconds per sample of the atomic batch
  double alpha_n = 0;  ///< constant term of the inter-node network time (s)
  double beta_n = 0;   ///< inter-node network seconds per replica beyond 2
  double alpha_r = 0;  ///< constant term of the intra-node network time (s)
  double beta_r = 0;   ///< intra-node network seconds per replica beyond 2
  double gamma = 1;    ///< overlap exponent of compute and network
};

/// Gradient statistics (the artifact's GradParams): the squared norm of the true gradient and
/// the variance of its estimate, both measured at the initial batch size.
struct GradParams {
  double sqr = 0;
  double var = 0;
};

/// Compute seconds of one pass (forward and backward) over `atomic_bsz` samples:
/// alpha_c + beta_c x atomic_bsz.
double predict_accum_time(const PerfParams& p, double atomic_bsz);

/// Network seconds of the gradient all-reduce over `replicas` GPUs on `nodes` nodes:
/// alpha_n + beta_n x max(replicas - 2, 1e-8) across nodes (nodes > 1), alpha_r + beta_r x
/// max(replicas - 2, 1e-8) within one node (replicas > 1), else 1e-8 + 1e-8 x 1e-8 (the
/// artifact's near-zero for one replica).
double predict_network_time(const PerfParams& p, int nodes, int replicas);

/// log of the optimizer step's seconds, log(T_c^gamma + T_n^gamma) / gamma, computed without
/// overflow as log(m) + log((T_c/m)^gamma + (T_n/m)^gamma) / gamma, m = max(T_c, T_n).
/// `accum_time` and `network_time` are positive.
double predict_log_optim_time(const PerfParams& p, double accum_time, double network_time);

/// Seconds of one optimizer step: (T_c^gamma + T_n^gamma)^(1/gamma).
double predict_optim_time(const PerfParams& p, double accum_time, double network_time);

/// Seconds of one step of the whole batch: accum_steps x T_c + optim time (the last pass
/// overlaps the all-reduce; the `accum_steps` passes before it do not synchronise).
double predict_step_time(const PerfParams& p, int nodes, int replicas, double atomic_bsz,
                         int accum_steps);

/// The batch search of GoodputFunction::optimize (the artifact's optimize arguments).
struct BatchSearch {
  /// Largest total batch; 0: the initial batch size.
  double max_batch_size = 0;
  /// Smallest atomic batch per GPU (at least 1).
  int min_atomic_bsz = 1;
  /// Largest atomic batch per GPU; 0: max_batch_size.
  int max_atomic_bsz = 0;
  /// Whether a GPU may accumulate gradients over several passes before the all-reduce.
  bool accumulation = false;
};

/// The best configuration found by GoodputFunction::optimize.
struct GoodputChoice {
  double goodput = 0;  ///< samples per second x efficiency; 0 when no candidate is valid
  int atomic_bsz = 0;
  int accum_steps = 0;
};

/// Number of total batch sizes optimize() tries (the artifact's geomspace default).
inline constexpr int kGoodputBatchCandidates = 50;

/// Goodput of one job: throughput from its PerfParams, statistical efficiency from its
/// GradParams relative to `init_batch_size`, the batch the job was tuned for.
class GoodputFunction {
 public:
  /// std::invalid_argument unless init_batch_size > 0.
  GoodputFunction(const PerfParams& perf, const GradParams& grad, double init_batch_size);

  /// Samples per second: replicas x atomic_bsz x (accum_steps + 1) / predict_step_time.
  double throughput(int nodes, int replicas, double atomic_bsz, int accum_steps) const;
  /// Statistical efficiency of total batch `batch_size`: gain / scale with scale = batch_size /
  /// init_batch_size and gain = (var + sqr) / (var / scale + sqr) (1 when var / scale + sqr is
  /// not positive); this equals (PGNS + init) / (PGNS + batch), PGNS = init x var / sqr.
  double efficiency(double batch_size) const;
  /// throughput x efficiency(replicas x atomic_bsz x (accum_steps + 1)). std::invalid_argument
  /// when that batch is below the initial batch size (the artifact's assertion).
  double evaluate(int nodes, int replicas, double atomic_bsz, int accum_steps) const;

  /// The best of kGoodputBatchCandidates total batches spaced geometrically (numpy's geomspace,
  /// exact endpoints) from max(init, min_atomic x replicas) to max_batch_size, each split as
  /// local = batch / replicas; with accumulation accum = ceil(local / max_atomic - 1e-8) - 1, at
  /// least 1 for one replica with local > init + 1e-8, else 0; atomic = ceil(local / (accum + 1)
  /// - 1e-8). A candidate whose atomic batch lies outside [min_atomic, max_atomic] has goodput
  /// 0; the first of the best wins. std::invalid_argument unless 1 <= nodes <= replicas,
  /// init <= max_batch_size and 1 <= min_atomic, with max_atomic (when set) >= min_atomic.
  GoodputChoice optimize(int nodes, int replicas, const BatchSearch& search) const;

  const PerfParams& perf() const { return perf_; }
  const GradParams& grad() const { return grad_; }
  double init_batch_size() const { return init_batch_size_; }

 private:
  PerfParams perf_;
  GradParams grad_;
  double init_batch_size_;
};

}  // namespace tidesim::workloads
