#include "tidesim/sim/admission/gavel_lp_policies.hpp"

#include <algorithm>

namespace tidesim::gavel {

namespace {

// Relative slack on a bound carried from one program to the next (the first program's optimum
// is met again only to the solver's tolerance).
constexpr double kSlack = 1e-9;

// A job's throughput scaled in a row: throughput x times / over.
struct Scale {
  double times = 1.0;
  double over = 1.0;
};

// Each job's scale in max-min fairness: scale_factor / (weight x proportional throughput).
std::vector<Scale> fairness_scales(const AllocationProblem& p, const std::string& policy) {
  const std::vector<double> prop = positive_proportional_throughputs(p, policy);
  std::vector<Scale> k;
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    k.push_back({.times = static_cast<double>(p.jobs[j].scale_factor),
                 .over = p.jobs[j].priority_weight * prop[j]});
  }
  return k;
}

// The row sum over job j's throughput terms of its scaled throughput x X, at least `lower`.
lp::Row share_row(const AllocationProblem& p, const AllocationColumns& cols, std::size_t j,
                  Scale scale, double lower) {
  lp::Row row{.terms = {}, .lower = lower, .upper = lp::kInfinity};
  for (const ThroughputTerm& term : throughput_terms(p, cols, j)) {
    row.terms.emplace_back(term.column, term.throughput * scale.times / scale.over);
  }
  return row;
}

PackedAllocation max_min_fairness_of(const AllocationProblem& p, bool packed,
                                     const std::string& policy) {
  check_problem(p, policy);
  if (p.jobs.empty()) {
    return {};
  }
  const std::vector<Scale> k = fairness_scales(p, policy);
  const std::vector<PairColumns> pairs = packed ? packed_pairs(p) : std::vector<PairColumns>{};
  // Phase 1: maximise t with sum_t c X - t >= 0 for every job.
  lp::Program first;
  const AllocationColumns cols = add_base_constraints(first, p, pairs);
  // Gavel's cvxpy program takes the level as min's epigraph variable, free; ECOS sees it so.
  const double floor = p.lp_method == lp::Method::ecos ? -lp::kInfinity : 0.0;
  const int level = first.add_column(1.0, floor, lp::kInfinity);
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    lp::Row row = share_row(p, cols, j, k[j], 0.0);
    row.terms.emplace_back(level, -1.0);
    first.rows.push_back(std::move(row));
  }
  const lp::Solution fair = solve_or_throw(first, policy, p.lp_method);
  if (p.lp_method != lp::Method::simplex) {  // Gavel's one program, inside its optimal face
    return read_packed_allocation(fair, cols, p);
  }
  const double best = fair.x[static_cast<std::size_t>(level)];
  // Phase 2: every job at least that level; the largest sum of the shares.
  lp::Program second;
  const AllocationColumns cols2 = add_base_constraints(second, p, pairs);
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    lp::Row row = share_row(p, cols2, j, k[j], best * (1.0 - kSlack));
    for (const auto& [col, coef] : row.terms) {
      second.objective[static_cast<std::size_t>(col)] += coef;
    }
    second.rows.push_back(std::move(row));
  }
  // With hundreds of jobs CLP can find the tie-break's rows (every job at the level phase 1
  // reached, met there only to CLP's tolerance) infeasible: phase 1's X is then the answer, a
  // max-min optimum without the tie-break (docs/gavel.md, "Ties").
  const lp::Solution tied = lp::solve(second);
  if (tied.status != lp::Status::optimal) {
    return read_packed_allocation(fair, cols, p);
  }
  return read_packed_allocation(tied, cols2, p);
}

SumThroughputResult max_sum_throughput_of(const AllocationProblem& p, bool by_cost, bool slos,
                                          bool packed, const std::string& policy) {
  check_problem(p, policy);
  if (by_cost && p.cluster.prices.empty()) {
    throw AllocationError(policy + ": normalised by cost needs a price per GPU type");
  }
  if (p.jobs.empty()) {
    return {};
  }
  const std::vector<PairColumns> pairs = packed ? packed_pairs(p) : std::vector<PairColumns>{};
  const auto program = [&](bool with_slos) {
    lp::Program prog;
    const AllocationColumns cols = add_base_constraints(prog, p, pairs);
    for (std::size_t j = 0; j < p.jobs.size(); ++j) {
      const AllocationJob& job = p.jobs[j];
      for (const ThroughputTerm& term : throughput_terms(p, cols, j)) {
        const double price = by_cost ? p.cluster.prices[term.type] : 1.0;
        prog.objective[static_cast<std::size_t>(term.column)] += term.throughput / price;
      }
      if (with_slos && job.slo_s > 0.0) {
        prog.rows.push_back(share_row(p, cols, j, {}, job.steps_remaining / job.slo_s));
      }
    }
    return std::make_pair(prog, cols);
  };
  SumThroughputResult out;
  const auto read = [&](const lp::Solution& s, const AllocationColumns& cols) {
    PackedAllocation x = read_packed_allocation(s, cols, p);
    out.x = std::move(x.single);
    out.pairs = std::move(x.pairs);
  };
  if (slos) {
    const auto [prog, cols] = program(true);
    const lp::Solution s = lp::solve(prog, p.lp_method);
    if (s.status == lp::Status::optimal) {
      read(s, cols);
      return out;
    }
    if (s.status != lp::Status::infeasible) {
      throw AllocationError(policy + ": the linear program is " + lp::to_string(s.status) +
                            " (CLP); no allocation");
    }
    out.slos_dropped = true;
  }
  const auto [prog, cols] = program(false);
  read(solve_or_throw(prog, policy, p.lp_method), cols);
  return out;
}

double least_total_duration_of(const AllocationProblem& p, const std::vector<PairColumns>& pairs) {
  const std::string policy = "min_total_duration";
  // maximise s = 1 / T with sum_t throughput X >= steps_remaining x s; s <= 1 (T >= 1 s, below
  // any T Gavel's search tries) keeps the program bounded when no job has steps left.
  lp::Program prog;
  const AllocationColumns cols = add_base_constraints(prog, p, pairs);
  const int rate = prog.add_column(1.0, 0.0, 1.0);
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    lp::Row row = share_row(p, cols, j, {}, 0.0);
    row.terms.emplace_back(rate, -p.jobs[j].steps_remaining);
    prog.rows.push_back(std::move(row));
  }
  const double s = solve_or_throw(prog, policy).x[static_cast<std::size_t>(rate)];
  if (!(s > 0.0)) {
    throw AllocationError(policy + ": some job can make no progress on the GPUs there are");
  }
  return 1.0 / s;
}

PackedAllocation min_total_duration_of(const AllocationProblem& p, bool packed,
                                       const std::string& policy) {
  check_problem(p, policy);
  if (p.jobs.empty()) {
    return {};
  }
  const std::vector<PairColumns> pairs = packed ? packed_pairs(p) : std::vector<PairColumns>{};
  const double t = gavel_search_duration(least_total_duration_of(p, pairs));
  // Interior: Gavel's program at T (Maximize(1): no objective), a point inside the feasible set.
  const bool tie_break = p.lp_method == lp::Method::simplex;
  lp::Program prog;
  const AllocationColumns cols = add_base_constraints(prog, p, pairs);
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    const AllocationJob& job = p.jobs[j];
    if (job.steps_remaining <= 0.0) {
      continue;
    }
    lp::Row row = share_row(p, cols, j, {}, job.steps_remaining / t * (1.0 - kSlack));
    for (const auto& [col, coef] : row.terms) {
      if (tie_break) {
        prog.objective[static_cast<std::size_t>(col)] += coef * t / job.steps_remaining;
      }
    }
    prog.rows.push_back(std::move(row));
  }
  return read_packed_allocation(solve_or_throw(prog, policy, p.lp_method), cols, p);
}

}  // namespace

Allocation max_min_fairness_perf(const AllocationProblem& p) {
  return max_min_fairness_of(p, false, "max_min_fairness_perf").single;
}

Allocation max_min_fairness(const AllocationProblem& p) {
  check_problem(p, "max_min_fairness");
  return max_min_fairness_perf(with_unit_throughputs(p));
}

PackedAllocation max_min_fairness_packed(const AllocationProblem& p) {
  return max_min_fairness_of(p, true, "max_min_fairness_packed");
}

SumThroughputResult max_sum_throughput_perf(const AllocationProblem& p, bool by_cost, bool slos) {
  return max_sum_throughput_of(p, by_cost, slos, false, "max_sum_throughput_perf");
}

SumThroughputResult max_sum_throughput_packed(const AllocationProblem& p, bool by_cost, bool slos) {
  return max_sum_throughput_of(p, by_cost, slos, true, "max_sum_throughput_packed");
}

double least_total_duration(const AllocationProblem& p) {
  return least_total_duration_of(p, {});
}

double gavel_search_duration(double least) {
  double max_t = 1e6;
  double min_t = 100.0;
  double last_max = max_t;
  double found = -1.0;
  while (found < 0.0) {
    while (1.05 * min_t < max_t) {
      const double t = (min_t + max_t) / 2.0;
      if (t >= least * (1.0 - kSlack)) {
        found = t;
        max_t = t;
      } else {
        min_t = t;
      }
    }
    max_t = last_max * 10.0;
    min_t = last_max;
    last_max *= 10.0;
    if (last_max > 1e300) {
      throw AllocationError("min_total_duration: no makespan below 1e300 s");
    }
  }
  return found;
}

Allocation min_total_duration_perf(const AllocationProblem& p) {
  return min_total_duration_of(p, false, "min_total_duration_perf").single;
}

PackedAllocation min_total_duration_packed(const AllocationProblem& p) {
  return min_total_duration_of(p, true, "min_total_duration_packed");
}

Allocation min_total_duration(const AllocationProblem& p, const std::string& reference) {
  check_problem(p, "min_total_duration");
  const std::size_t ref = type_index(p.cluster, reference, "min_total_duration");
  return min_total_duration_perf(with_reference_throughputs(p, ref));
}

}  // namespace tidesim::gavel
