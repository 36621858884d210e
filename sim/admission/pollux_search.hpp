#pragma once
/// The allocation search of Pollux' scheduler (Qiao et al., OSDI'21, section 4.2, "PolluxSched";
/// petuum/adaptdl branch osdi21-artifact, simulator/pollux.py `Problem` and its genetic
/// operators; docs/artifact-policies.md, "Pollux"). An allocation is a jobs x nodes matrix of
/// replica counts; a replica of job j takes replica_gpus[j] of its node's GPUs (the artifact's
/// replicas take one each). Its value is the power mean (exponent p, -1: the paper's fairness knob)
/// over the jobs of
///   s_j = speedup_j(nodes_j, replicas_j) x N / G x (restart_j if row j differs from the base)
/// (+ 1e-3 inside the mean), N nodes, G GPUs, restart_j = max(age - restarts x delay, 0) /
/// (age + delay). The search is a genetic algorithm with the artifact's operators:
///  - crossover: one point over the jobs, two children swapping the rows before it;
///  - mutation: a job's row reset to the base with probability 0.1; a job's entries each zeroed
///    with probability 0.1 for one job in ten; on a node with a free GPU each entry raised,
///    uniformly up to the node's GPUs, with probability p1 + p2 - p1 p2, p1 = 1 / jobs, p2 = 1 /
///    (jobs on the node) where the job is on it (pollux.py sums its masks over the jobs);
///  - repair: at most one distributed (multi-node) job per node (the first in job order keeps
///    it); a job's replicas capped at its maximum and at 16 nodes, walking its nodes in a random
///    order; each node's GPUs given to the jobs in job order, a replica taking its pod's GPUs;
/// and (mu + lambda) survival on the value (the artifact's NSGA-II ranks on a second objective,
/// the cluster's utility, which only decides autoscaling: a fixed cluster takes the best value,
/// as the artifact does). Deterministic for a given stream.
#include <cstdint>
#include <functional>
#include <vector>

#include "tidesim/sim/engine/random.hpp"

namespace tidesim {

/// A jobs x nodes allocation, row-major.
using PolluxState = std::vector<int>;

struct PolluxProblem {
  int jobs = 0;
  int nodes = 0;
  /// GPUs of each node.
  std::vector<int> node_gpus;
  /// Each job's most replicas, and least when given any (0: it may get none).
  std::vector<int> max_replicas;
  /// The GPUs each replica (pod) of job j takes (empty, or an entry below 2: one). Entries of an
  /// allocation count replicas; a node's GPUs hold replicas x this of each job on it.
  std::vector<int> replica_gpus;
  /// The allocation now (the search's base: rows that differ pay the restart factor).
  PolluxState base;
  /// Job j's speedup on `nodes` nodes and `replicas` GPUs (0 for none).
  std::function<double(int j, int nodes, int replicas)> speedup;
  /// Each job's restart factor, in [0, 1).
  std::vector<double> restart_factor;
  /// The power mean's exponent (0: geometric).
  double p = -1.0;
  /// Most nodes one job spans.
  int max_job_nodes = 16;

  /// GPUs one replica of job j takes (at least 1).
  int gpus_per_replica(int j) const {
    const auto i = static_cast<std::size_t>(j);
    return i < replica_gpus.size() && replica_gpus[i] > 1 ? replica_gpus[i] : 1;
  }

  /// The value of `x` (larger is better).
  double value(const PolluxState& x) const;
};

struct PolluxSearchConfig {
  int population = 100;
  int generations = 100;
};

/// Entries of allocation rows one event's work stands for: a search evaluates about
/// generations x population x jobs x nodes entries (mutation and repair walk each child's rows),
/// a few nanoseconds each (tools/bench/pollux_search_bench.cpp: 2.6 million entries in about
/// 8 ms), and an event of a run costs a few microseconds.
inline constexpr double kSearchEntriesPerEvent = 1000.0;

/// The work of one search of `jobs` jobs on `nodes` nodes, in events (kSearchEntriesPerEvent).
double pollux_search_events(const PolluxSearchConfig& config, double jobs, double nodes);

/// One search: from `initial` (earlier populations adapted to this problem; empty: the base
/// alone), returns the final population, best first.
std::vector<PolluxState> pollux_search(const PolluxProblem& problem,
                                       std::vector<PolluxState> initial,
                                       const PolluxSearchConfig& config, RandomStream& rng);

/// The repair above, in place.
void pollux_repair(const PolluxProblem& problem, PolluxState& x, RandomStream& rng);

}  // namespace tidesim
