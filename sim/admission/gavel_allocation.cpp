#include "tidesim/sim/admission/gavel_allocation.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace tidesim::gavel {

namespace {

bool finite_non_negative(double v) {
  return std::isfinite(v) && v >= 0.0;
}

void check_cluster(const AllocationCluster& c, const std::string& policy) {
  if (c.gpu_types.empty()) {
    throw AllocationError(policy + ": the cluster has no GPU type");
  }
  if (c.gpus.size() != c.gpu_types.size()) {
    throw AllocationError(policy + ": one GPU count per GPU type expected");
  }
  if (!c.prices.empty() && c.prices.size() != c.gpu_types.size()) {
    throw AllocationError(policy + ": one price per GPU type expected, or none");
  }
  for (std::size_t t = 0; t < c.gpus.size(); ++t) {
    if (c.gpus[t] < 0) {
      throw AllocationError(policy + ": GPU type '" + c.gpu_types[t] + "' has a negative count");
    }
    if (!c.prices.empty() && !(std::isfinite(c.prices[t]) && c.prices[t] > 0.0)) {
      throw AllocationError(policy + ": GPU type '" + c.gpu_types[t] +
                            "' needs a finite price > 0");
    }
  }
}

}  // namespace

void check_problem(const AllocationProblem& p, const std::string& policy) {
  check_cluster(p.cluster, policy);
  std::set<int> ids;
  for (const AllocationJob& j : p.jobs) {
    const std::string who = policy + ": job " + std::to_string(j.id);
    if (!ids.insert(j.id).second) {
      throw AllocationError(who + " is listed twice");
    }
    if (j.throughput.size() != p.cluster.gpu_types.size()) {
      throw AllocationError(who + " needs one throughput per GPU type");
    }
    if (!std::all_of(j.throughput.begin(), j.throughput.end(), finite_non_negative)) {
      throw AllocationError(who + " has a throughput that is not a finite number >= 0");
    }
    if (std::none_of(j.throughput.begin(), j.throughput.end(), [](double v) { return v > 0; })) {
      throw AllocationError(who + " has a zero throughput on every GPU type: it can run nowhere");
    }
    if (j.scale_factor < 1) {
      throw AllocationError(who + " needs a scale factor >= 1");
    }
    if (!(std::isfinite(j.priority_weight) && j.priority_weight > 0.0)) {
      throw AllocationError(who + " needs a priority weight > 0");
    }
    if (!finite_non_negative(j.time_since_start_s) || !finite_non_negative(j.steps_remaining) ||
        !std::isfinite(j.slo_s)) {
      throw AllocationError(who + " needs finite times and steps >= 0");
    }
  }
}

std::size_t type_index(const AllocationCluster& c, const std::string& name,
                       const std::string& policy) {
  const auto it = std::find(c.gpu_types.begin(), c.gpu_types.end(), name);
  if (it == c.gpu_types.end()) {
    throw AllocationError(policy + ": the cluster has no GPU type '" + name + "'");
  }
  return static_cast<std::size_t>(it - c.gpu_types.begin());
}

AllocationProblem with_unit_throughputs(AllocationProblem p) {
  for (AllocationJob& j : p.jobs) {
    std::fill(j.throughput.begin(), j.throughput.end(), 1.0);
  }
  return p;
}

AllocationProblem with_reference_throughputs(AllocationProblem p, std::size_t reference) {
  for (AllocationJob& j : p.jobs) {
    const double v = j.throughput.at(reference);
    std::fill(j.throughput.begin(), j.throughput.end(), v);
  }
  return p;
}

Allocation isolated(const AllocationProblem& p) {
  check_problem(p, "isolated");
  const auto m = static_cast<double>(p.jobs.size());
  Allocation x;
  for (const AllocationJob& j : p.jobs) {
    std::vector<double> row;
    double sum = 0.0;
    for (const int gpus : p.cluster.gpus) {
      row.push_back(static_cast<double>(gpus) / m / j.scale_factor);
      sum += row.back();
    }
    for (double& v : row) {
      v /= std::max(1.0, sum);
    }
    x.push_back(std::move(row));
  }
  return x;
}

std::vector<double> effective_throughputs(const AllocationProblem& p, const Allocation& x) {
  std::vector<double> out;
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    double sum = 0.0;
    for (std::size_t t = 0; t < p.cluster.gpus.size(); ++t) {
      sum += p.jobs[j].throughput[t] * x[j][t];
    }
    out.push_back(sum);
  }
  return out;
}

std::vector<double> proportional_throughputs(const AllocationProblem& p) {
  double all = 0.0;
  for (const int gpus : p.cluster.gpus) {
    all += gpus;
  }
  Allocation x;
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    std::vector<double> row;
    for (const int gpus : p.cluster.gpus) {
      row.push_back(all > 0.0 ? gpus / all : 0.0);
    }
    x.push_back(std::move(row));
  }
  return effective_throughputs(p, x);
}

std::vector<double> positive_proportional_throughputs(const AllocationProblem& p,
                                                      const std::string& policy) {
  std::vector<double> prop = proportional_throughputs(p);
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    if (!(prop[j] > 0.0)) {
      throw AllocationError(policy + ": job " + std::to_string(p.jobs[j].id) +
                            " can run only on GPU types the cluster has none of");
    }
  }
  return prop;
}

void fit_base_constraints(const AllocationProblem& p, Allocation& x,
                          std::vector<PairShare>* pairs) {
  std::vector<PairShare> none;
  std::vector<PairShare>& shared = pairs != nullptr ? *pairs : none;
  for (std::size_t t = 0; t < p.cluster.gpus.size(); ++t) {
    double used = 0.0;
    for (std::size_t j = 0; j < x.size(); ++j) {
      used += x[j][t] * p.jobs[j].scale_factor;
    }
    for (const PairShare& pair : shared) {
      used += pair.share[t] * p.jobs[pair.a].scale_factor;
    }
    if (used > p.cluster.gpus[t]) {
      const double f = p.cluster.gpus[t] / used;
      for (auto& row : x) {
        row[t] *= f;
      }
      for (PairShare& pair : shared) {
        pair.share[t] *= f;
      }
    }
  }
  std::vector<double> share(x.size(), 0.0);
  for (std::size_t j = 0; j < x.size(); ++j) {
    for (const double v : x[j]) {
      share[j] += v;
    }
  }
  for (const PairShare& pair : shared) {
    for (const double v : pair.share) {
      share[pair.a] += v;
      share[pair.b] += v;
    }
  }
  for (std::size_t j = 0; j < x.size(); ++j) {
    if (share[j] > 1.0) {
      for (double& v : x[j]) {
        v /= share[j];
      }
    }
  }
  for (PairShare& pair : shared) {
    const double over = std::max(share[pair.a], share[pair.b]);
    if (over > 1.0) {
      for (double& v : pair.share) {
        v /= over;
      }
    }
  }
}

lp::Solution solve_or_throw(const lp::Program& program, const std::string& policy,
                            lp::Method method) {
  lp::Solution s = lp::solve(program, method);
  if (s.status != lp::Status::optimal) {
    throw AllocationError(policy + ": the linear program is " + lp::to_string(s.status) +
                          " (CLP); no allocation");
  }
  return s;
}

}  // namespace tidesim::gavel
