#include "tidesim/sim/admission/gavel_packed.hpp"

#include <algorithm>

namespace tidesim::gavel {

namespace {

constexpr double kSlack = 1e-9;

// One combination: a job alone (b == a) or a pair, with each job's throughput per type.
struct Combination {
  std::size_t a = 0;
  std::size_t b = 0;
  std::vector<double> tput_a;
  std::vector<double> tput_b;
  int first_column = 0;
};

std::vector<Combination> combinations(const AllocationProblem& p) {
  std::vector<Combination> out;
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    out.push_back({.a = j, .b = j, .tput_a = p.jobs[j].throughput, .tput_b = {}});
  }
  if (!p.colocated) {
    return out;
  }
  for (std::size_t a = 0; a < p.jobs.size(); ++a) {
    for (std::size_t b = a + 1; b < p.jobs.size(); ++b) {
      if (p.jobs[a].scale_factor != p.jobs[b].scale_factor) {
        continue;
      }
      Combination c{.a = a, .b = b, .tput_a = {}, .tput_b = {}};
      bool useful = false;
      for (std::size_t t = 0; t < p.cluster.gpus.size(); ++t) {
        const auto pair = p.colocated(a, b, t);
        c.tput_a.push_back(pair ? std::max(0.0, pair->first) : 0.0);
        c.tput_b.push_back(pair ? std::max(0.0, pair->second) : 0.0);
        useful = useful || c.tput_a.back() > 0.0 || c.tput_b.back() > 0.0;
      }
      if (useful) {
        out.push_back(std::move(c));
      }
    }
  }
  return out;
}

// The program's rows over `combos` (their columns added): capacity per type, share per job, and
// each job's normalised throughput at least `level` (a column, or a constant when level < 0).
struct Built {
  lp::Program prog;
  std::vector<lp::Row> fair;  // per job: sum of its normalised throughput terms
};

Built build(const AllocationProblem& p, std::vector<Combination>& combos,
            const std::vector<double>& scale) {
  Built out;
  const std::size_t types = p.cluster.gpus.size();
  std::vector<lp::Row> capacity(types);
  std::vector<lp::Row> share(p.jobs.size());
  out.fair.resize(p.jobs.size());
  for (std::size_t t = 0; t < types; ++t) {
    capacity[t] = {
        .terms = {}, .lower = -lp::kInfinity, .upper = static_cast<double>(p.cluster.gpus[t])};
  }
  for (Combination& c : combos) {
    c.first_column = static_cast<int>(out.prog.columns());
    for (std::size_t t = 0; t < types; ++t) {
      const bool dead =
          (c.b != c.a && c.tput_a[t] <= 0.0 && c.tput_b[t] <= 0.0) || p.cluster.gpus[t] == 0;
      const int col = out.prog.add_column(0.0, 0.0, dead ? 0.0 : 1.0);
      capacity[t].terms.emplace_back(col, p.jobs[c.a].scale_factor);
      share[c.a].terms.emplace_back(col, 1.0);
      out.fair[c.a].terms.emplace_back(col, c.tput_a[t] * scale[c.a]);
      if (c.b != c.a) {
        share[c.b].terms.emplace_back(col, 1.0);
        out.fair[c.b].terms.emplace_back(col, c.tput_b[t] * scale[c.b]);
      }
    }
  }
  for (lp::Row& row : capacity) {
    out.prog.rows.push_back(std::move(row));
  }
  for (lp::Row& row : share) {
    row.lower = -lp::kInfinity;
    row.upper = 1.0;
    out.prog.rows.push_back(std::move(row));
  }
  return out;
}

PackedAllocation read(const lp::Solution& s, const AllocationProblem& p,
                      const std::vector<Combination>& combos) {
  const std::size_t types = p.cluster.gpus.size();
  PackedAllocation out;
  out.single.assign(p.jobs.size(), std::vector<double>(types, 0.0));
  for (const Combination& c : combos) {
    std::vector<double> x;
    bool any = false;
    for (std::size_t t = 0; t < types; ++t) {
      x.push_back(std::clamp(s.x[static_cast<std::size_t>(c.first_column) + t], 0.0, 1.0));
      any = any || x.back() > 1e-12;
    }
    if (c.a == c.b) {
      out.single[c.a] = std::move(x);
    } else if (any) {
      out.pairs.push_back({.a = c.a, .b = c.b, .share = std::move(x)});
    }
  }
  fit_base_constraints(p, out.single, &out.pairs);
  return out;
}

}  // namespace

PackedAllocation max_min_fairness_packed(const AllocationProblem& p) {
  const std::string policy = "max_min_fairness_packed";
  check_problem(p, policy);
  if (p.jobs.empty()) {
    return {};
  }
  const std::vector<double> prop = positive_proportional_throughputs(p, policy);
  std::vector<double> scale;
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    scale.push_back(p.jobs[j].scale_factor / (p.jobs[j].priority_weight * prop[j]));
  }
  std::vector<Combination> combos = combinations(p);
  // Phase 1: maximise the level every job's normalised throughput reaches.
  Built first = build(p, combos, scale);
  const int level = first.prog.add_column(1.0, 0.0, lp::kInfinity);
  for (lp::Row& row : first.fair) {
    row.terms.emplace_back(level, -1.0);
    row.lower = 0.0;
    first.prog.rows.push_back(std::move(row));
  }
  const lp::Solution fair = solve_or_throw(first.prog, policy, p.lp_method);
  if (p.lp_method == lp::Method::interior) {  // Gavel's one program, inside its optimal face
    return read(fair, p, combos);
  }
  const double best = fair.x[static_cast<std::size_t>(level)];
  // Phase 2: every job at that level; the largest sum of normalised throughputs.
  Built second = build(p, combos, scale);
  for (lp::Row& row : second.fair) {
    for (const auto& [col, coef] : row.terms) {
      second.prog.objective[static_cast<std::size_t>(col)] += coef;
    }
    row.lower = best * (1.0 - kSlack);
    second.prog.rows.push_back(std::move(row));
  }
  return read(solve_or_throw(second.prog, policy), p, combos);
}

}  // namespace tidesim::gavel
