#include "tidesim/workloads/goodput.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tidesim::workloads {
namespace {

/// The artifact's tolerance for its floor and ceiling of batch sizes, and its stand-in for zero.
constexpr double kEps = 1e-8;

/// numpy.geomspace(start, stop, count) as numpy 1.x computes it: 10 ** (log10(start) + i x step),
/// step = (log10(stop) - log10(start)) / (count - 1), with the endpoints replaced by start and
/// stop exactly. `count` >= 2.
double geomspace_point(double start, double stop, int count, int i) {
  if (i == 0) {
    return start;
  }
  if (i == count - 1) {
    return stop;
  }
  const double log_start = std::log10(start);
  const double step = (std::log10(stop) - log_start) / (count - 1);
  return std::pow(10.0, i * step + log_start);
}

}  // namespace

double predict_accum_time(const PerfParams& p, double atomic_bsz) {
  return p.alpha_c + p.beta_c * atomic_bsz;
}

double predict_network_time(const PerfParams& p, int nodes, int replicas) {
  // The slowest link the ring all-reduce crosses sets the constant term; beta the retrogression
  // with each replica beyond 2.
  double alpha = kEps;
  double beta = kEps;
  if (nodes > 1) {
    alpha = p.alpha_n;
    beta = p.beta_n;
  } else if (replicas > 1) {
    alpha = p.alpha_r;
    beta = p.beta_r;
  }
  return alpha + beta * std::max(replicas - 2.0, kEps);
}

double predict_log_optim_time(const PerfParams& p, double accum_time, double network_time) {
  const double m = std::max(accum_time, network_time);
  const double sum = std::pow(accum_time / m, p.gamma) + std::pow(network_time / m, p.gamma);
  return std::log(m) + std::log(sum) / p.gamma;
}

double predict_optim_time(const PerfParams& p, double accum_time, double network_time) {
  return std::exp(predict_log_optim_time(p, accum_time, network_time));
}

double predict_step_time(const PerfParams& p, int nodes, int replicas, double atomic_bsz,
                         int accum_steps) {
  const double accum = predict_accum_time(p, atomic_bsz);
  const double network = predict_network_time(p, nodes, replicas);
  return accum_steps * accum + predict_optim_time(p, accum, network);
}

GoodputFunction::GoodputFunction(const PerfParams& perf, const GradParams& grad,
                                 double init_batch_size)
    : perf_(perf), grad_(grad), init_batch_size_(init_batch_size) {
  if (!(init_batch_size > 0)) {
    throw std::invalid_argument("GoodputFunction: init_batch_size must be positive, got " +
                                std::to_string(init_batch_size));
  }
}

double GoodputFunction::throughput(int nodes, int replicas, double atomic_bsz,
                                   int accum_steps) const {
  const double batch = replicas * atomic_bsz * (accum_steps + 1);
  return batch / predict_step_time(perf_, nodes, replicas, atomic_bsz, accum_steps);
}

double GoodputFunction::efficiency(double batch_size) const {
  const double scale = batch_size / init_batch_size_;
  const double denom = grad_.var / scale + grad_.sqr;
  const double gain = denom > 0 ? (grad_.var + grad_.sqr) / denom : 1.0;
  return gain / scale;
}

double GoodputFunction::evaluate(int nodes, int replicas, double atomic_bsz,
                                 int accum_steps) const {
  const double batch = replicas * atomic_bsz * (accum_steps + 1);
  if (batch < init_batch_size_) {
    throw std::invalid_argument("GoodputFunction::evaluate: batch " + std::to_string(batch) +
                                " is below the initial batch size " +
                                std::to_string(init_batch_size_));
  }
  return throughput(nodes, replicas, atomic_bsz, accum_steps) * efficiency(batch);
}

GoodputChoice GoodputFunction::optimize(int nodes, int replicas, const BatchSearch& search) const {
  if (nodes < 1 || nodes > replicas) {
    throw std::invalid_argument("GoodputFunction::optimize: need 1 <= nodes <= replicas, got " +
                                std::to_string(nodes) + " nodes, " + std::to_string(replicas) +
                                " replicas");
  }
  const double max_batch = search.max_batch_size > 0 ? search.max_batch_size : init_batch_size_;
  if (max_batch < init_batch_size_) {
    throw std::invalid_argument("GoodputFunction::optimize: max_batch_size " +
                                std::to_string(max_batch) + " is below the initial batch size " +
                                std::to_string(init_batch_size_));
  }
  const double min_atomic = search.min_atomic_bsz;
  const double max_atomic = search.max_atomic_bsz > 0 ? search.max_atomic_bsz : max_batch;
  if (min_atomic < 1 || max_atomic < min_atomic) {
    throw std::invalid_argument(
        "GoodputFunction::optimize: need 1 <= min_atomic_bsz <= "
        "max_atomic_bsz, got " +
        std::to_string(search.min_atomic_bsz) + " and " + std::to_string(search.max_atomic_bsz));
  }
  const double min_batch = std::max(init_batch_size_, min_atomic * replicas);
  GoodputChoice best;
  bool first = true;
  for (int i = 0; i < kGoodputBatchCandidates; ++i) {
    const double batch = geomspace_point(min_batch, max_batch, kGoodputBatchCandidates, i);
    const double local = batch / replicas;
    int accum = 0;
    if (search.accumulation) {
      accum = static_cast<int>(std::ceil(local / max_atomic - kEps)) - 1;
      // One atomic batch gives too poor an estimate of the gradient statistics that scale the
      // learning rate: a single replica above the initial batch accumulates at least once.
      if (replicas == 1 && local > init_batch_size_ + kEps) {
        accum = std::max(accum, 1);
      }
    }
    const int atomic = static_cast<int>(std::ceil(local / (accum + 1) - kEps));
    double goodput = evaluate(nodes, replicas, atomic, accum);
    if (atomic < min_atomic || atomic > max_atomic) {
      goodput = 0;
    }
    if (first || goodput > best.goodput) {
      best = {.goodput = goodput, .atomic_bsz = atomic, .accum_steps = accum};
      first = false;
    }
  }
  return best;
}

}  // namespace tidesim::workloads
