#include "tidesim/sim/admission/pollux_search.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace tidesim {
namespace {

constexpr double kMutateReset = 0.1;    // pollux.py _mutation (1)
constexpr double kMutateZeroJob = 0.1;  // (2): the share of jobs whose entries may be zeroed
constexpr double kMutateZero = 0.1;     // (2): each such entry
constexpr double kMeanFloor = 1e-3;     // pollux.py _evaluate: the power mean of (s + 1e-3)

int at(const PolluxProblem& p, int j, int n) {
  return j * p.nodes + n;
}

struct Scored {
  PolluxState x;
  double value = 0;
};

}  // namespace

double PolluxProblem::value(const PolluxState& x) const {
  if (jobs == 0) {
    return 0.0;
  }
  const double scale = static_cast<double>(nodes) /
                       std::max(1, std::accumulate(node_gpus.begin(), node_gpus.end(), 0));
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
    double s = replicas > 0 ? speedup(j, used, replicas) * scale : 0.0;
    if (restart) {
      s *= restart_factor[static_cast<std::size_t>(j)];
    }
    sum += p == 0.0    ? std::log(std::max(s, kMeanFloor))
           : p == -1.0 ? 1.0 / (s + kMeanFloor)
                       : std::pow(s + kMeanFloor, p);
  }
  return p == 0.0 ? std::exp(sum / jobs) : std::pow(sum / jobs, 1.0 / p);
}

void pollux_repair(const PolluxProblem& p, PolluxState& x, RandomStream& rng) {
  // At most one distributed job per node: the first in job order keeps it.
  std::vector<bool> distributed(static_cast<std::size_t>(p.jobs));
  for (int j = 0; j < p.jobs; ++j) {
    int used = 0;
    for (int n = 0; n < p.nodes; ++n) {
      used += x[static_cast<std::size_t>(at(p, j, n))] > 0;
    }
    distributed[static_cast<std::size_t>(j)] = used > 1;
  }
  for (int n = 0; n < p.nodes; ++n) {
    bool taken = false;
    for (int j = 0; j < p.jobs; ++j) {
      int& v = x[static_cast<std::size_t>(at(p, j, n))];
      if (distributed[static_cast<std::size_t>(j)] && v > 0) {
        if (taken) {
          v = 0;
        }
        taken = true;
      }
    }
  }
  // Each job's replicas capped at its maximum and at max_job_nodes nodes, its nodes walked in a
  // random order (pollux.py shuffles them).
  std::vector<int> order(static_cast<std::size_t>(p.nodes));
  for (int j = 0; j < p.jobs; ++j) {
    int replicas = 0;
    int spans = 0;
    for (int n = 0; n < p.nodes; ++n) {
      const int v = x[static_cast<std::size_t>(at(p, j, n))];
      replicas += v;
      spans += v > 0;
    }
    if (replicas <= p.max_replicas[static_cast<std::size_t>(j)] && spans <= p.max_job_nodes) {
      continue;  // within both caps in any order: nothing to cut, no order to draw
    }
    std::iota(order.begin(), order.end(), 0);
    for (int i = p.nodes - 1; i > 0; --i) {  // Fisher-Yates
      const auto k = static_cast<int>(rng.uniform_int(static_cast<std::uint64_t>(i + 1)));
      std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(k)]);
    }
    int left = p.max_replicas[static_cast<std::size_t>(j)];
    spans = 0;
    for (const int n : order) {
      int& v = x[static_cast<std::size_t>(at(p, j, n))];
      v = std::min(v, left);
      if (v > 0 && ++spans > p.max_job_nodes) {
        v = 0;
      }
      left -= v;
    }
  }
  // Each node's GPUs to the jobs in job order.
  for (int n = 0; n < p.nodes; ++n) {
    int left = p.node_gpus[static_cast<std::size_t>(n)];
    for (int j = 0; j < p.jobs; ++j) {
      int& v = x[static_cast<std::size_t>(at(p, j, n))];
      v = std::min(v, left);
      left -= v;
    }
  }
}

namespace {

void mutate(const PolluxProblem& p, PolluxState& x, RandomStream& rng) {
  for (int j = 0; j < p.jobs; ++j) {
    if (rng.uniform01() < kMutateReset) {
      for (int n = 0; n < p.nodes; ++n) {
        x[static_cast<std::size_t>(at(p, j, n))] = p.base[static_cast<std::size_t>(at(p, j, n))];
      }
    }
  }
  for (int j = 0; j < p.jobs; ++j) {
    if (rng.uniform01() >= kMutateZeroJob) {
      continue;
    }
    for (int n = 0; n < p.nodes; ++n) {
      if (rng.uniform01() < kMutateZero) {
        x[static_cast<std::size_t>(at(p, j, n))] = 0;
      }
    }
  }
  std::vector<int> free(static_cast<std::size_t>(p.nodes));
  for (int n = 0; n < p.nodes; ++n) {
    int used = 0;
    for (int j = 0; j < p.jobs; ++j) {
      used += x[static_cast<std::size_t>(at(p, j, n))];
    }
    free[static_cast<std::size_t>(n)] = p.node_gpus[static_cast<std::size_t>(n)] - used;
  }
  // pollux.py sums its masks over the jobs: an entry on a node with a free GPU is raised with
  // probability 1 / jobs, plus 1 / (jobs on that node) where the job is already on it.
  for (int n = 0; n < p.nodes; ++n) {
    if (free[static_cast<std::size_t>(n)] < 1) {
      continue;
    }
    int on = 0;
    for (int j = 0; j < p.jobs; ++j) {
      on += x[static_cast<std::size_t>(at(p, j, n))] > 0;
    }
    const int most = p.node_gpus[static_cast<std::size_t>(n)];
    const double p1 = 1.0 / p.jobs;
    for (int j = 0; j < p.jobs; ++j) {
      int& v = x[static_cast<std::size_t>(at(p, j, n))];
      const double p2 = v > 0 ? 1.0 / std::max(on, 1) : 0.0;
      if (rng.uniform01() < p1 + p2 - p1 * p2) {
        v += static_cast<int>(
            rng.uniform_int(static_cast<std::uint64_t>(std::max(0, most - v) + 1)));
      }
    }
  }
}

}  // namespace

std::vector<PolluxState> pollux_search(const PolluxProblem& p, std::vector<PolluxState> initial,
                                       const PolluxSearchConfig& config, RandomStream& rng) {
  const auto size = static_cast<std::size_t>(p.jobs * p.nodes);
  if (p.base.size() != size) {
    throw std::invalid_argument("pollux_search: the base allocation is not jobs x nodes");
  }
  if (initial.empty()) {
    initial.push_back(p.base);
  }
  std::vector<Scored> pop;
  for (PolluxState& x : initial) {
    if (x.size() != size) {
      throw std::invalid_argument("pollux_search: an initial allocation is not jobs x nodes");
    }
    pollux_repair(p, x, rng);
    const double v = p.value(x);
    pop.push_back({std::move(x), v});
  }
  const auto by_value = [](const Scored& a, const Scored& b) { return a.value > b.value; };
  std::stable_sort(pop.begin(), pop.end(), by_value);
  const auto pick = [&]() -> const Scored& {  // binary tournament
    const Scored& a = pop[rng.uniform_int(pop.size())];
    const Scored& b = pop[rng.uniform_int(pop.size())];
    return b.value > a.value ? b : a;
  };
  if (p.jobs > 0) {
    for (int g = 0; g < config.generations; ++g) {
      std::vector<Scored> next = pop;
      while (static_cast<int>(next.size()) < static_cast<int>(pop.size()) + config.population) {
        PolluxState a = pick().x;
        PolluxState b = pick().x;
        const auto point = static_cast<int>(rng.uniform_int(static_cast<std::uint64_t>(p.jobs)));
        for (int j = 0; j < point; ++j) {
          for (int n = 0; n < p.nodes; ++n) {
            std::swap(a[static_cast<std::size_t>(at(p, j, n))],
                      b[static_cast<std::size_t>(at(p, j, n))]);
          }
        }
        for (PolluxState* child : {&a, &b}) {
          mutate(p, *child, rng);
          pollux_repair(p, *child, rng);
          const double v = p.value(*child);
          next.push_back({std::move(*child), v});
        }
      }
      std::stable_sort(next.begin(), next.end(), by_value);
      next.resize(std::min(next.size(), static_cast<std::size_t>(config.population)));
      pop = std::move(next);
    }
  }
  std::vector<PolluxState> out;
  for (Scored& s : pop) {
    out.push_back(std::move(s.x));
  }
  return out;
}

}  // namespace tidesim
