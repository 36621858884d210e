#include "tidesim/sim/admission/pollux_search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

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

/// The scratch of the repair (per node), kept across calls.
struct RepairScratch {
  std::vector<char> taken;  // a distributed job holds the node
  std::vector<int> left;    // GPUs not yet given
  std::vector<int> order;   // the shuffled nodes of one job
};

/// The repair of pollux_repair. Its three rules each go over the jobs in job order and read only
/// the rows before (the nodes a distributed job holds, the GPUs given) and the row itself, so
/// they are applied row by row, all three to one row before the next: the same result, and the
/// same draws (only the caps draw, in job order). `row_done(j, row)` is called on each final row.
template <typename RowDone>
void repair_rows(const PolluxProblem& p, int* x, RandomStream& rng, RepairScratch& w,
                 RowDone&& row_done) {
  const int nodes = p.nodes;
  w.taken.assign(static_cast<std::size_t>(nodes), 0);
  w.left.assign(p.node_gpus.begin(), p.node_gpus.end());
  w.order.resize(static_cast<std::size_t>(nodes));
  char* taken = w.taken.data();
  int* left = w.left.data();
  for (int j = 0; j < p.jobs; ++j) {
    int* row = x + static_cast<std::ptrdiff_t>(j) * nodes;
    // At most one distributed job per node: the first in job order keeps it.
    int used = 0;
    for (int n = 0; n < nodes; ++n) {
      used += row[n] > 0;
    }
    if (used > 1) {
      for (int n = 0; n < nodes; ++n) {
        const bool on = row[n] > 0;
        row[n] = on && taken[n] != 0 ? 0 : row[n];
        taken[n] = static_cast<char>(taken[n] | static_cast<char>(on));
      }
    }
    // Its replicas capped at its maximum and at max_job_nodes nodes, its nodes walked in a
    // random order (pollux.py shuffles them).
    int replicas = 0;
    int spans = 0;
    for (int n = 0; n < nodes; ++n) {
      replicas += row[n];
      spans += row[n] > 0;
    }
    const int most = p.max_replicas[static_cast<std::size_t>(j)];
    if (replicas > most || spans > p.max_job_nodes) {
      int* order = w.order.data();
      std::iota(order, order + nodes, 0);
      for (int i = nodes - 1; i > 0; --i) {  // Fisher-Yates
        const auto k = static_cast<int>(rng.uniform_int(static_cast<std::uint64_t>(i + 1)));
        std::swap(order[i], order[k]);
      }
      int cut = most;
      spans = 0;
      for (int i = 0; i < nodes; ++i) {
        int& v = row[order[i]];
        v = std::min(v, cut);
        if (v > 0 && ++spans > p.max_job_nodes) {
          v = 0;
        }
        cut -= v;
      }
    }
    // Each node's GPUs to the jobs in job order.
    for (int n = 0; n < nodes; ++n) {
      const int v = std::min(row[n], left[n]);
      row[n] = v;
      left[n] -= v;
    }
    row_done(j, row);
  }
}

/// The search's state: its population and children in flat buffers, each job's terms of the
/// power mean memoised (a repaired row spans at most min(nodes, max_job_nodes) nodes with at most
/// max_replicas GPUs).
class Search {
 public:
  Search(const PolluxProblem& p, RandomStream& rng)
      : p_(p),
        rng_(rng),
        size_(static_cast<std::size_t>(p.jobs) * p.nodes),
        scale_(speedup_scale(p)),
        most_nodes_(std::min(p.nodes, p.max_job_nodes)) {
    terms_.resize(static_cast<std::size_t>(p.jobs));
    free_.resize(static_cast<std::size_t>(p.nodes));
  }

  std::size_t size() const { return size_; }

  /// Repairs `x` in place and returns its value.
  double repair_and_value(int* x) {
    double sum = 0.0;
    repair_rows(p_, x, rng_, scratch_, [&](int j, const int* row) { sum += term(j, row); });
    return p_.jobs == 0 ? 0.0 : mean_of(sum, p_.jobs, p_.p);
  }

  /// The artifact's mutation, in place.
  void mutate(int* x);

 private:
  double term(int j, const int* row) {
    const int nodes = p_.nodes;
    const int* base = p_.base.data() + static_cast<std::ptrdiff_t>(j) * nodes;
    int used = 0;
    int replicas = 0;
    int differ = 0;
    for (int n = 0; n < nodes; ++n) {
      used += row[n] > 0;
      replicas += row[n];
      differ |= row[n] ^ base[n];
    }
    const bool restart = differ != 0;
    const int most = p_.max_replicas[static_cast<std::size_t>(j)];
    if (used > most_nodes_ || replicas > most || replicas < 0) {
      return job_term(p_, scale_, j, used, replicas, restart);
    }
    std::vector<double>& memo = terms_[static_cast<std::size_t>(j)];
    if (memo.empty()) {
      memo.assign(static_cast<std::size_t>((most_nodes_ + 1) * (most + 1) * 2),
                  std::numeric_limits<double>::quiet_NaN());
    }
    double& t = memo[static_cast<std::size_t>(((used * (most + 1)) + replicas) * 2 + restart)];
    if (std::isnan(t)) {
      t = job_term(p_, scale_, j, used, replicas, restart);
    }
    return t;
  }

  const PolluxProblem& p_;
  RandomStream& rng_;
  std::size_t size_;
  double scale_;
  int most_nodes_;
  std::vector<std::vector<double>> terms_;
  std::vector<int> free_;
  RepairScratch scratch_;
};

void Search::mutate(int* x) {
  const int nodes = p_.nodes;
  const int jobs = p_.jobs;
  for (int j = 0; j < jobs; ++j) {
    if (rng_.uniform01() < kMutateReset) {
      std::copy_n(p_.base.data() + static_cast<std::ptrdiff_t>(j) * nodes, nodes,
                  x + static_cast<std::ptrdiff_t>(j) * nodes);
    }
  }
  for (int j = 0; j < jobs; ++j) {
    if (rng_.uniform01() >= kMutateZeroJob) {
      continue;
    }
    int* row = x + static_cast<std::ptrdiff_t>(j) * nodes;
    for (int n = 0; n < nodes; ++n) {
      if (rng_.uniform01() < kMutateZero) {
        row[n] = 0;
      }
    }
  }
  int* free = free_.data();
  std::copy(p_.node_gpus.begin(), p_.node_gpus.end(), free);
  for (int j = 0; j < jobs; ++j) {
    const int* row = x + static_cast<std::ptrdiff_t>(j) * nodes;
    for (int n = 0; n < nodes; ++n) {
      free[n] -= row[n];
    }
  }
  // pollux.py sums its masks over the jobs: an entry on a node with a free GPU is raised with
  // probability 1 / jobs, plus 1 / (jobs on that node) where the job is already on it.
  const double p1 = 1.0 / jobs;
  for (int n = 0; n < nodes; ++n) {
    if (free[n] < 1) {
      continue;
    }
    int on = 0;
    for (int j = 0; j < jobs; ++j) {
      on += x[static_cast<std::ptrdiff_t>(j) * nodes + n] > 0;
    }
    const int most = p_.node_gpus[static_cast<std::size_t>(n)];
    const double p2 = 1.0 / std::max(on, 1);
    const double raise_on = p1 + p2 - p1 * p2;
    const double raise_off = p1 + 0.0 - p1 * 0.0;
    for (int j = 0; j < jobs; ++j) {
      int& v = x[static_cast<std::ptrdiff_t>(j) * nodes + n];
      if (rng_.uniform01() < (v > 0 ? raise_on : raise_off)) {
        v += static_cast<int>(
            rng_.uniform_int(static_cast<std::uint64_t>(std::max(0, most - v) + 1)));
      }
    }
  }
}

}  // namespace

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
  RepairScratch scratch;
  repair_rows(p, x.data(), rng, scratch, [](int, const int*) {});
}

std::vector<PolluxState> pollux_search(const PolluxProblem& p, std::vector<PolluxState> initial,
                                       const PolluxSearchConfig& config, RandomStream& rng) {
  const auto size = static_cast<std::size_t>(p.jobs * p.nodes);
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
  // The population (sorted by value, best first) and the next generation's states: the
  // population's then the children's, in flat buffers of `size` entries each.
  std::size_t count = initial.size();
  std::vector<int> pop(count * size);
  std::vector<double> value(count);
  for (std::size_t i = 0; i < count; ++i) {
    std::copy(initial[i].begin(), initial[i].end(), pop.begin() + i * size);
    value[i] = search.repair_and_value(pop.data() + i * size);
  }
  const auto population = static_cast<std::size_t>(config.population);
  // Survival: (mu + lambda), stable by value (best first), at most `population` kept.
  std::vector<std::size_t> rank;
  std::vector<int> kept;
  std::vector<double> kept_value;
  const auto survive = [&](const std::vector<int>& states, const std::vector<double>& values,
                           std::size_t total, std::size_t keep) {
    rank.resize(total);
    std::iota(rank.begin(), rank.end(), 0);
    std::stable_sort(rank.begin(), rank.end(),
                     [&values](std::size_t a, std::size_t b) { return values[a] > values[b]; });
    keep = std::min(keep, total);
    kept.resize(keep * size);
    kept_value.resize(keep);
    for (std::size_t i = 0; i < keep; ++i) {
      std::copy_n(states.begin() + static_cast<std::ptrdiff_t>(rank[i] * size), size,
                  kept.begin() + static_cast<std::ptrdiff_t>(i * size));
      kept_value[i] = values[rank[i]];
    }
    return keep;
  };
  count = survive(pop, value, count, count);
  pop.swap(kept);
  value.swap(kept_value);
  if (p.jobs > 0) {
    std::vector<int> next;
    std::vector<double> next_value;
    for (int g = 0; g < config.generations; ++g) {
      const std::size_t goal = count + population;
      const std::size_t total = goal + (goal - count) % 2;  // children come in pairs
      next.resize(total * size);
      next_value.resize(total);
      std::copy_n(pop.begin(), count * size, next.begin());
      std::copy_n(value.begin(), count, next_value.begin());
      const auto pick = [&]() -> std::size_t {  // binary tournament
        const std::size_t a = rng.uniform_int(count);
        const std::size_t b = rng.uniform_int(count);
        return value[b] > value[a] ? b : a;
      };
      for (std::size_t c = count; c < goal; c += 2) {
        const int* a = pop.data() + pick() * size;
        const int* b = pop.data() + pick() * size;
        const auto point =
            static_cast<std::size_t>(rng.uniform_int(static_cast<std::uint64_t>(p.jobs))) *
            static_cast<std::size_t>(p.nodes);
        int* x = next.data() + c * size;
        int* y = x + size;
        // One-point crossover: the rows before `point` swapped.
        std::copy_n(b, point, x);
        std::copy(a + point, a + size, x + point);
        std::copy_n(a, point, y);
        std::copy(b + point, b + size, y + point);
        for (const std::size_t child : {c, c + 1}) {
          int* z = next.data() + child * size;
          search.mutate(z);
          next_value[child] = search.repair_and_value(z);
        }
      }
      count = survive(next, next_value, total, population);
      pop.swap(kept);
      value.swap(kept_value);
    }
  }
  std::vector<PolluxState> out(count);
  for (std::size_t i = 0; i < count; ++i) {
    out[i].assign(pop.begin() + static_cast<std::ptrdiff_t>(i * size),
                  pop.begin() + static_cast<std::ptrdiff_t>((i + 1) * size));
  }
  return out;
}

}  // namespace tidesim
