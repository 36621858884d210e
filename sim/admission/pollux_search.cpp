#include "tidesim/sim/admission/pollux_search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

// The search's generations are compiled twice where the compiler can (GCC and Clang on x86-64
// Linux, whose loader resolves the clones):
// for AVX2 and for the baseline, chosen when the program loads. Their hot loops are over rows of
// 8-node blocks of ints, which AVX2 does in fewer instructions (the baseline, SSE2, has no vector
// min of ints). Both give the same results: the loops are integer, and floating-point expressions
// are neither contracted (ISO C++ mode) nor reassociated, and AVX2 brings no FMA.
#if defined(__x86_64__) && defined(__linux__) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define TIDESIM_SEARCH_CLONES __attribute__((target_clones("avx2", "default")))
#define TIDESIM_HOT_INLINE [[gnu::always_inline]]
#else
#define TIDESIM_SEARCH_CLONES
#define TIDESIM_HOT_INLINE
#endif

namespace tidesim {
namespace {

constexpr double kMutateReset = 0.1;    // pollux.py _mutation (1)
constexpr double kMutateZeroJob = 0.1;  // (2): the share of jobs whose entries may be zeroed
constexpr double kMutateZero = 0.1;     // (2): each such entry
constexpr double kMeanFloor = 1e-3;     // pollux.py _evaluate: the power mean of (s + 1e-3)

/// A job's term of the power mean from its scaled speedup s.
double mean_term(double s, double p) {
  return p == 0.0    ? std::log(std::max(s, kMeanFloor))
         : p == -1.0 ? 1.0 / (s + kMeanFloor)
                     : std::pow(s + kMeanFloor, p);
}

/// The power mean from the sum of the jobs' terms.
double mean_of(double sum, int jobs, double p) {
  return p == 0.0 ? std::exp(sum / jobs) : std::pow(sum / jobs, 1.0 / p);
}

double speedup_scale(const PolluxProblem& p) {
  return static_cast<double>(p.nodes) /
         std::max(1, std::accumulate(p.node_gpus.begin(), p.node_gpus.end(), 0));
}

/// Job j's term for a row that spans `used` nodes with `replicas` GPUs, `restart` when it differs
/// from the base row.
double job_term(const PolluxProblem& p, double scale, int j, int used, int replicas, bool restart) {
  double s = replicas > 0 ? p.speedup(j, used, replicas) * scale : 0.0;
  if (restart) {
    s *= p.restart_factor[static_cast<std::size_t>(j)];
  }
  return mean_term(s, p.p);
}

/// Rows are stored padded to whole blocks of kBlock nodes (the pads hold 0 and have no GPUs), so
/// that the loops over a row's nodes have a fixed inner trip count the compiler vectorises.
constexpr int kBlock = 8;

int padded(int nodes) {
  return (nodes + kBlock - 1) / kBlock * kBlock;
}

/// `rows` rows of `nodes` entries copied into rows of `stride` entries, zero-padded.
void pad_rows(const int* from, int rows, int nodes, int stride, int* to) {
  for (int j = 0; j < rows; ++j) {
    std::fill(std::copy_n(from + static_cast<std::ptrdiff_t>(j) * nodes, nodes,
                          to + static_cast<std::ptrdiff_t>(j) * stride),
              to + static_cast<std::ptrdiff_t>(j + 1) * stride, 0);
  }
}

void unpad_rows(const int* from, int rows, int nodes, int stride, int* to) {
  for (int j = 0; j < rows; ++j) {
    std::copy_n(from + static_cast<std::ptrdiff_t>(j) * stride, nodes,
                to + static_cast<std::ptrdiff_t>(j) * nodes);
  }
}

/// A row's nodes used and replicas.
struct RowSum {
  int used = 0;
  int replicas = 0;
};

// The row rules below take their arrays as `__restrict` (a row, the scratch of the repair and the
// base never overlap), so that their loops vectorise.

/// The repair's first rule on a distributed job's row: its entries on nodes that a distributed
/// job before it holds zeroed, and its nodes marked held (`taken`).
TIDESIM_HOT_INLINE inline RowSum keep_untaken(int* __restrict row, int* __restrict taken,
                                              int stride) {
  RowSum sum;
  for (int b = 0; b < stride; b += kBlock) {
    for (int k = b; k < b + kBlock; ++k) {
      const int on = row[k] > 0;
      const int v = (on & taken[k]) != 0 ? 0 : row[k];
      row[k] = v;
      taken[k] |= on;
      sum.used += v > 0;
      sum.replicas += v;
    }
  }
  return sum;
}

/// The repair's third rule on a row: each entry cut to the GPUs its node has left (`left`), which
/// it takes; `differ` nonzero where the row differs from `from` (its base row).
TIDESIM_HOT_INLINE inline RowSum take_gpus(int* __restrict row, int* __restrict left,
                                           const int* __restrict from, int stride, int& differ) {
  RowSum sum;
  int changed = 0;
  for (int b = 0; b < stride; b += kBlock) {
    for (int k = b; k < b + kBlock; ++k) {
      const int v = std::min(row[k], left[k]);
      row[k] = v;
      left[k] -= v;
      sum.used += v > 0;
      sum.replicas += v;
      changed |= v ^ from[k];
    }
  }
  differ = changed;
  return sum;
}

/// take_gpus for a job whose replicas take `per` GPUs each (more than one): each entry cut to the
/// replicas its node's GPUs left hold, which take `per` GPUs each.
inline RowSum take_gpus_of(int per, int* __restrict row, int* __restrict left,
                           const int* __restrict from, int stride, int& differ) {
  RowSum sum;
  int changed = 0;
  for (int k = 0; k < stride; ++k) {
    const int v = std::min(row[k], left[k] / per);
    row[k] = v;
    left[k] -= v * per;
    sum.used += v > 0;
    sum.replicas += v;
    changed |= v ^ from[k];
  }
  differ = changed;
  return sum;
}

/// A row's replicas taken from its nodes' free GPUs (`free`), and its nodes counted (`on`).
TIDESIM_HOT_INLINE inline void count_row(const int* __restrict row, int* __restrict free,
                                         int* __restrict on, int stride, int per) {
  for (int b = 0; b < stride; b += kBlock) {
    for (int k = b; k < b + kBlock; ++k) {
      free[k] -= row[k] * per;
      on[k] += row[k] > 0;
    }
  }
}

/// The repair of pollux_repair on padded rows (`base`: the padded base, `gpus`: the padded GPUs
/// of the nodes). Its three rules each go over the jobs in job order and read only the rows
/// before (the nodes a distributed job holds, the GPUs given) and the row itself, so they are
/// applied row by row, all three to one row before the next: the same result, and the same draws
/// (only the caps draw, in job order). `row_done(j, used, replicas, restart)` is called on each
/// final row: the nodes it spans, its GPUs, whether it differs from the base.
struct Repair {
  const PolluxProblem& p;
  int stride;
  const int* base;
  const int* gpus;
  std::vector<int> taken;  // a distributed job holds the node
  std::vector<int> left;   // GPUs not yet given
  std::vector<int> order;  // the shuffled nodes of one job

  Repair(const PolluxProblem& problem, int padded_nodes, const int* padded_base,
         const int* padded_gpus)
      : p(problem),
        stride(padded_nodes),
        base(padded_base),
        gpus(padded_gpus),
        taken(static_cast<std::size_t>(padded_nodes)),
        left(static_cast<std::size_t>(padded_nodes)),
        order(static_cast<std::size_t>(problem.nodes)) {}

  template <typename RowDone>
  TIDESIM_HOT_INLINE void operator()(int* x, RandomStream& rng, RowDone&& row_done) {
    int* taken_at = taken.data();
    int* left_at = left.data();
    std::fill(taken_at, taken_at + stride, 0);
    std::copy_n(gpus, stride, left_at);
    for (int j = 0; j < p.jobs; ++j) {
      int* row = x + static_cast<std::ptrdiff_t>(j) * stride;
      int used = 0;
      int replicas = 0;
      for (int b = 0; b < stride; b += kBlock) {
        for (int k = b; k < b + kBlock; ++k) {
          used += row[k] > 0;
          replicas += row[k];
        }
      }
      // At most one distributed job per node: the first in job order keeps it.
      if (used > 1) {
        const RowSum kept = keep_untaken(row, taken_at, stride);
        used = kept.used;
        replicas = kept.replicas;
      }
      // Its replicas capped at its maximum and at max_job_nodes nodes, its nodes walked in a
      // random order (pollux.py shuffles them).
      const int most = p.max_replicas[static_cast<std::size_t>(j)];
      if (replicas > most || used > p.max_job_nodes) {
        int* walk = order.data();
        std::iota(walk, walk + p.nodes, 0);
        for (int i = p.nodes - 1; i > 0; --i) {  // Fisher-Yates
          const auto k = static_cast<int>(rng.uniform_int(static_cast<std::uint64_t>(i + 1)));
          std::swap(walk[i], walk[k]);
        }
        int cut = most;
        int spans = 0;
        for (int i = 0; i < p.nodes; ++i) {
          int& v = row[walk[i]];
          v = std::min(v, cut);
          if (v > 0 && ++spans > p.max_job_nodes) {
            v = 0;
          }
          cut -= v;
        }
      }
      // Each node's GPUs to the jobs in job order.
      const int* from = base + static_cast<std::ptrdiff_t>(j) * stride;
      int differ = 0;
      const int per = p.gpus_per_replica(j);
      const RowSum given = per == 1 ? take_gpus(row, left_at, from, stride, differ)
                                    : take_gpus_of(per, row, left_at, from, stride, differ);
      row_done(j, given.used, given.replicas, differ != 0);
    }
  }
};

/// The search's state: the padded problem, its scratch, each job's terms of the power mean
/// memoised (a repaired row spans at most min(nodes, max_job_nodes) nodes with at most
/// max_replicas GPUs).
class Search {
 public:
  Search(const PolluxProblem& p, RandomStream& rng)
      : p_(p),
        rng_(rng),
        stride_(padded(p.nodes)),
        size_(static_cast<std::size_t>(p.jobs) * static_cast<std::size_t>(stride_)),
        base_(size_),
        gpus_(static_cast<std::size_t>(stride_)),
        free_(gpus_.size()),
        on_(gpus_.size()),
        scale_(speedup_scale(p)),
        most_nodes_(std::min(p.nodes, p.max_job_nodes)),
        repair_(p, stride_, base_.data(), gpus_.data()) {
    pad_rows(p.base.data(), p.jobs, p.nodes, stride_, base_.data());
    pad_rows(p.node_gpus.data(), 1, p.nodes, stride_, gpus_.data());
    // Each job's terms at [offset, offset + (most_nodes + 1) x (max_replicas + 1) x 2).
    std::size_t at = 0;
    for (int j = 0; j < p.jobs; ++j) {
      offset_.push_back(at);
      const int most = std::max(p.max_replicas[static_cast<std::size_t>(j)], 0);
      at += static_cast<std::size_t>((most_nodes_ + 1) * (most + 1) * 2);
    }
    terms_.assign(at, std::numeric_limits<double>::quiet_NaN());
  }

  int stride() const { return stride_; }
  /// Entries of one padded state.
  std::size_t size() const { return size_; }

  /// Repairs the padded state `x` in place and returns the sum of its power mean.
  TIDESIM_HOT_INLINE double repair_and_sum(int* x) {
    double sum = 0.0;
    repair_(x, rng_, [&](int j, int used, int replicas, bool restart) {
      sum += term(j, used, replicas, restart);
    });
    return sum;
  }

  /// The artifact's mutation of the padded state `x`, in place.
  TIDESIM_HOT_INLINE void mutate(int* x);

 private:
  TIDESIM_HOT_INLINE double term(int j, int used, int replicas, bool restart) {
    const int most = p_.max_replicas[static_cast<std::size_t>(j)];
    if (used > most_nodes_ || replicas > most || replicas < 0) {
      return job_term(p_, scale_, j, used, replicas, restart);
    }
    double& t = terms_[offset_[static_cast<std::size_t>(j)] +
                       static_cast<std::size_t>(((used * (most + 1)) + replicas) * 2 + restart)];
    if (std::isnan(t)) {
      t = job_term(p_, scale_, j, used, replicas, restart);
    }
    return t;
  }

  const PolluxProblem& p_;
  RandomStream& rng_;
  int stride_;
  std::size_t size_;
  std::vector<int> base_;
  std::vector<int> gpus_;
  std::vector<int> free_;
  std::vector<int> on_;
  double scale_;
  int most_nodes_;
  Repair repair_;
  std::vector<std::size_t> offset_;
  std::vector<double> terms_;
};

TIDESIM_HOT_INLINE inline void Search::mutate(int* x) {
  const int nodes = p_.nodes;
  const int jobs = p_.jobs;
  const int stride = stride_;
  const RandomStream::Chance reset(kMutateReset);
  const RandomStream::Chance zero_job(kMutateZeroJob);
  const RandomStream::Chance zero(kMutateZero);
  for (int j = 0; j < jobs; ++j) {
    if (rng_.draw(reset)) {
      std::copy_n(base_.data() + static_cast<std::ptrdiff_t>(j) * stride, stride,
                  x + static_cast<std::ptrdiff_t>(j) * stride);
    }
  }
  for (int j = 0; j < jobs; ++j) {
    if (!rng_.draw(zero_job)) {
      continue;
    }
    int* row = x + static_cast<std::ptrdiff_t>(j) * stride;
    for (int n = 0; n < nodes; ++n) {
      if (rng_.draw(zero)) {
        row[n] = 0;
      }
    }
  }
  // The GPUs free on each node and the jobs on it, before any raise (a raise on a node changes
  // only that node's column).
  int* free = free_.data();
  int* on = on_.data();
  std::copy_n(gpus_.data(), stride, free);
  std::fill_n(on, stride, 0);
  for (int j = 0; j < jobs; ++j) {
    count_row(x + static_cast<std::ptrdiff_t>(j) * stride, free, on, stride,
              p_.gpus_per_replica(j));
  }
  // pollux.py sums its masks over the jobs: an entry on a node with a free GPU is raised with
  // probability 1 / jobs, plus 1 / (jobs on that node) where the job is already on it.
  const double p1 = 1.0 / jobs;
  for (int n = 0; n < nodes; ++n) {
    if (free[n] < 1) {
      continue;
    }
    const int most = gpus_[static_cast<std::size_t>(n)];
    const double p2 = 1.0 / std::max(on[n], 1);
    const RandomStream::Chance raise_on(p1 + p2 - p1 * p2);
    const RandomStream::Chance raise_off(p1 + 0.0 - p1 * 0.0);
    for (int j = 0; j < jobs; ++j) {
      int& v = x[static_cast<std::ptrdiff_t>(j) * stride + n];
      if (rng_.draw(v > 0 ? raise_on : raise_off)) {
        // Up to the replicas the node's GPUs hold (its GPUs when a replica takes one).
        const int fits = most / p_.gpus_per_replica(j);
        v += static_cast<int>(
            rng_.uniform_int(static_cast<std::uint64_t>(std::max(0, fits - v) + 1)));
      }
    }
  }
}

/// States with their values, held as the sums of their power means: the value itself, a pow, is
/// computed only where a comparison needs it. For p = -1 the value J / sum falls as the sum
/// rises; two sums further apart than 2^-40 of the larger give values in the same order (each
/// off by at most an ulp, 2^-52), and equal sums equal values, so only close sums need the
/// values: every comparison answers as the values' own.
class Scored {
 public:
  explicit Scored(const PolluxProblem& p) : p_(&p) {}

  void resize(std::size_t count, std::size_t size) {
    size_ = size;
    states_.resize(count * size);
    sum_.resize(count);
    value_.resize(count);
    known_.resize(count);
  }
  /// Entries of one state.
  std::size_t size() const { return size_; }
  /// States it holds.
  std::size_t slots() const { return sum_.size(); }
  int* state(std::size_t i) { return states_.data() + i * size_; }
  const int* state(std::size_t i) const { return states_.data() + i * size_; }
  void set_sum(std::size_t i, double sum) {
    sum_[i] = sum;
    known_[i] = 0;
  }
  /// Whether state i's value is above state k's.
  bool better(std::size_t i, std::size_t k) {
    const double a = sum_[i];
    const double b = sum_[k];
    if (p_->p == -1.0 && std::isfinite(a) && std::isfinite(b) && a > 0 && b > 0) {
      return better_by_sum(i, k);
    }
    return value(i) > value(k);
  }
  /// better() where p = -1 and both sums are finite and positive (`by_sum`).
  bool better_by_sum(std::size_t i, std::size_t k) {
    const double a = sum_[i];
    const double b = sum_[k];
    if (a == b) {
      return false;
    }
    if (std::abs(a - b) > 0x1.0p-40 * std::max(a, b)) {
      return a < b;
    }
    return value(i) > value(k);
  }
  /// Whether better_by_sum() answers for every pair of the states `ids`.
  bool by_sum(const std::vector<std::size_t>& ids) const {
    return p_->p == -1.0 && std::all_of(ids.begin(), ids.end(), [this](std::size_t i) {
             return std::isfinite(sum_[i]) && sum_[i] > 0;
           });
  }
  /// Whether every comparison of the values of the states `ids` is an order (no NaN).
  bool ordered(const std::vector<std::size_t>& ids) const {
    return p_->p == -1.0 && std::none_of(ids.begin(), ids.end(),
                                         [this](std::size_t i) { return std::isnan(sum_[i]); });
  }

 private:
  double value(std::size_t i) {
    if (known_[i] == 0) {
      value_[i] = p_->jobs == 0 ? 0.0 : mean_of(sum_[i], p_->jobs, p_->p);
      known_[i] = 1;
    }
    return value_[i];
  }

  const PolluxProblem* p_;
  std::size_t size_ = 0;
  std::vector<int> states_;
  std::vector<double> sum_;
  std::vector<double> value_;
  std::vector<char> known_;
};

/// (mu + lambda) survival: the states `ids` of `all` (the first `sorted` of them already in
/// order) sorted stably by value, best first, and the first `keep` of them kept in `ids`. With an
/// order (no NaN) the sorted part is merged with the rest sorted: the same result as sorting all.
void survive(Scored& all, std::vector<std::size_t>& ids, std::size_t sorted, std::size_t keep,
             std::vector<std::size_t>& buffer) {
  const auto mid = ids.begin() + static_cast<std::ptrdiff_t>(sorted);
  const auto merge = [&](auto better) {
    std::stable_sort(mid, ids.end(), better);
    buffer.resize(ids.size());
    std::merge(ids.begin(), mid, mid, ids.end(), buffer.begin(), better);
    ids.swap(buffer);
  };
  if (sorted > 0 && all.by_sum(ids)) {
    merge([&all](std::size_t a, std::size_t b) { return all.better_by_sum(a, b); });
  } else if (sorted > 0 && all.ordered(ids)) {
    merge([&all](std::size_t a, std::size_t b) { return all.better(a, b); });
  } else {
    std::stable_sort(ids.begin(), ids.end(),
                     [&all](std::size_t a, std::size_t b) { return all.better(a, b); });
  }
  ids.resize(std::min(keep, ids.size()));
}

/// The generations of pollux_search: `ids`, the sorted population's slots in `pool`, evolved.
TIDESIM_SEARCH_CLONES void evolve(const PolluxProblem& p, const PolluxSearchConfig& config,
                                  RandomStream& rng, Search& search, Scored& pool,
                                  std::vector<std::size_t>& ids, std::vector<std::size_t>& buffer) {
  const std::size_t size = search.size();
  const auto population = static_cast<std::size_t>(config.population);
  std::vector<char> held;
  std::vector<std::size_t> spare;
  for (int g = 0; g < config.generations; ++g) {
    const std::size_t count = ids.size();
    const std::size_t goal = count + population;
    const std::size_t total = goal + (goal - count) % 2;  // children come in pairs
    held.assign(pool.slots(), 0);
    for (const std::size_t i : ids) {
      held[i] = 1;
    }
    spare.clear();
    for (std::size_t i = 0; i < held.size() && count + spare.size() < total; ++i) {
      if (held[i] == 0) {
        spare.push_back(i);
      }
    }
    const auto pick = [&]() -> std::size_t {  // binary tournament
      const std::size_t a = ids[rng.uniform_int(count)];
      const std::size_t b = ids[rng.uniform_int(count)];
      return pool.better(b, a) ? b : a;
    };
    for (std::size_t c = 0; c < total - count; c += 2) {
      const int* a = pool.state(pick());
      const int* b = pool.state(pick());
      const auto point =
          static_cast<std::size_t>(rng.uniform_int(static_cast<std::uint64_t>(p.jobs))) *
          static_cast<std::size_t>(search.stride());
      int* x = pool.state(spare[c]);
      int* y = pool.state(spare[c + 1]);
      // One-point crossover: the rows before `point` swapped.
      std::copy_n(b, point, x);
      std::copy(a + point, a + size, x + point);
      std::copy_n(a, point, y);
      std::copy(b + point, b + size, y + point);
      for (const std::size_t child : {spare[c], spare[c + 1]}) {
        int* z = pool.state(child);
        search.mutate(z);
        pool.set_sum(child, search.repair_and_sum(z));
      }
    }
    ids.insert(ids.end(), spare.begin(), spare.end());
    survive(pool, ids, count, population, buffer);
  }
}

}  // namespace

double pollux_search_events(const PolluxSearchConfig& config, double jobs, double nodes) {
  const double stride = std::ceil(nodes / kBlock) * kBlock;  // rows are padded to whole blocks
  return static_cast<double>(config.generations) * config.population * jobs * stride /
         kSearchEntriesPerEvent;
}

double PolluxProblem::value(const PolluxState& x) const {
  if (jobs == 0) {
    return 0.0;
  }
  const double scale = speedup_scale(*this);
  double sum = 0.0;
  for (int j = 0; j < jobs; ++j) {
    int used = 0;
    int replicas = 0;
    bool restart = false;
    for (int n = 0; n < nodes; ++n) {
      const int v = x[static_cast<std::size_t>(j * nodes + n)];
      used += v > 0;
      replicas += v;
      restart = restart || v != base[static_cast<std::size_t>(j * nodes + n)];
    }
    sum += job_term(*this, scale, j, used, replicas, restart);
  }
  return mean_of(sum, jobs, p);
}

void pollux_repair(const PolluxProblem& p, PolluxState& x, RandomStream& rng) {
  const int stride = padded(p.nodes);
  std::vector<int> base(static_cast<std::size_t>(p.jobs) * static_cast<std::size_t>(stride));
  std::vector<int> gpus(static_cast<std::size_t>(stride));
  std::vector<int> y(base.size());
  pad_rows(p.base.data(), p.jobs, p.nodes, stride, base.data());
  pad_rows(p.node_gpus.data(), 1, p.nodes, stride, gpus.data());
  pad_rows(x.data(), p.jobs, p.nodes, stride, y.data());
  Repair(p, stride, base.data(), gpus.data())(y.data(), rng, [](int, int, int, bool) {});
  unpad_rows(y.data(), p.jobs, p.nodes, stride, x.data());
}

std::vector<PolluxState> pollux_search(const PolluxProblem& p, std::vector<PolluxState> initial,
                                       const PolluxSearchConfig& config, RandomStream& rng) {
  auto size = static_cast<std::size_t>(p.jobs * p.nodes);
  if (p.base.size() != size) {
    throw std::invalid_argument("pollux_search: the base allocation is not jobs x nodes");
  }
  if (initial.empty()) {
    initial.push_back(p.base);
  }
  for (const PolluxState& x : initial) {
    if (x.size() != size) {
      throw std::invalid_argument("pollux_search: an initial allocation is not jobs x nodes");
    }
  }
  Search search(p, rng);
  // The states, padded, in one pool of slots of `size` entries each, with their power means'
  // sums; the population is the list of its slots `ids`, sorted by value, best first; each
  // generation's children go to the slots the population does not hold, so no state is copied
  // but the crossover's.
  size = search.size();
  const auto population = static_cast<std::size_t>(config.population);
  Scored pool(p);
  pool.resize(std::max(initial.size(), population) + population + 1, size);
  std::vector<std::size_t> ids(initial.size());
  for (std::size_t i = 0; i < initial.size(); ++i) {
    ids[i] = i;
    int* x = pool.state(i);
    pad_rows(initial[i].data(), p.jobs, p.nodes, search.stride(), x);
    pool.set_sum(i, search.repair_and_sum(x));
  }
  std::vector<std::size_t> buffer;
  survive(pool, ids, 0, ids.size(), buffer);
  if (p.jobs > 0) {
    evolve(p, config, rng, search, pool, ids, buffer);
  }
  std::vector<PolluxState> out(ids.size(), PolluxState(p.base.size()));
  for (std::size_t i = 0; i < ids.size(); ++i) {
    unpad_rows(pool.state(ids[i]), p.jobs, p.nodes, search.stride(), out[i].data());
  }
  return out;
}

}  // namespace tidesim
