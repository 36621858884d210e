#include "tidesim/sim/admission/gavel_water_filling.hpp"

#include <cmath>
#include <map>
#include <optional>
#include <string>

namespace tidesim::gavel {

namespace {

// _get_bottleneck_jobs: a job is no bottleneck when it can reach kBottleneckSlack x its level
// plus kBottleneckEpsilon while every job keeps its bound.
constexpr double kBottleneckSlack = 1.0001;
constexpr double kBottleneckEpsilon = 1e-5;
// Relative slack on a level carried from one program to the next (it is met again only to the
// solver's tolerance), as in gavel_lp_policies.cpp.
constexpr double kSlack = 1e-9;
// The bottleneck search to optimality, as GLPK_MI solves it, within a node limit (the same
// answer on every machine).
constexpr lp::MipLimits kBottleneckLimits{.rel_gap = 0.0, .max_nodes = 100'000};

struct State {
  std::vector<double> prop;  // proportional throughputs: a job's level is its throughput / prop
  std::vector<PairColumns> pairs;  // the packed layout's (none unless packed)
  std::vector<double> sf;
  double big_m = 0.0;
  std::vector<std::optional<double>> frozen;
  std::vector<double> reached;
};

State make_state(const AllocationProblem& p, const std::string& policy, bool packed) {
  State s;
  s.prop = positive_proportional_throughputs(p, policy);
  if (packed) {
    s.pairs = packed_pairs(p);
  }
  lp::Program scratch;
  const AllocationColumns cols = add_base_constraints(scratch, p, s.pairs);
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    for (const ThroughputTerm& term : throughput_terms(p, cols, j)) {
      s.big_m = std::max(s.big_m, term.throughput / s.prop[j] * p.jobs[j].scale_factor);
    }
    s.sf.push_back(p.jobs[j].scale_factor);
  }
  s.frozen.assign(p.jobs.size(), std::nullopt);
  s.reached.assign(p.jobs.size(), 0.0);
  return s;
}

void check_entities(const AllocationProblem& p, const WaterFillingEntities& e,
                    const std::string& policy) {
  if (e.entity_of_job.size() != p.jobs.size() || e.rule.size() != e.weight.size()) {
    throw AllocationError(policy + ": one entity per job and one rule per entity weight expected");
  }
  for (const double w : e.weight) {
    if (!(w > 0.0) || !std::isfinite(w)) {
      throw AllocationError(policy + ": an entity's weight must be a finite number above 0");
    }
  }
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    if (e.entity_of_job[j] >= e.weight.size()) {
      throw AllocationError(policy + ": job " + std::to_string(p.jobs[j].id) +
                            " names an entity that has no weight");
    }
  }
}

// _compute_priority_weights: each job's weight this round.
std::vector<double> round_weights(const AllocationProblem& p, const WaterFillingEntities* e,
                                  const State& s) {
  std::vector<double> w(p.jobs.size(), 0.0);
  if (e == nullptr) {
    for (std::size_t j = 0; j < w.size(); ++j) {
      w[j] = p.jobs[j].priority_weight;
    }
    return w;
  }
  std::map<std::size_t, double> open_weight;      // entity -> weights of its unfrozen jobs
  std::map<std::size_t, std::size_t> first_open;  // entity -> its unfrozen job of least id
  for (std::size_t j = 0; j < w.size(); ++j) {
    const std::size_t entity = e->entity_of_job[j];
    if (s.frozen[j]) {
      continue;
    }
    open_weight[entity] += p.jobs[j].priority_weight;
    const auto it = first_open.find(entity);
    if (it == first_open.end() || p.jobs[j].id < p.jobs[it->second].id) {
      first_open[entity] = j;
    }
  }
  for (std::size_t j = 0; j < w.size(); ++j) {
    const std::size_t entity = e->entity_of_job[j];
    if (s.frozen[j]) {
      continue;
    }
    w[j] = e->rule[entity] == WaterFillingEntities::Rule::kFairness
               ? e->weight[entity] * p.jobs[j].priority_weight / open_weight[entity]
               : (first_open[entity] == j ? e->weight[entity] : 0.0);
  }
  return w;
}

bool active(const State& s, const std::vector<double>& w, std::size_t j) {
  return !s.frozen[j] && w[j] > 0.0;
}

double bound(const State& s, std::size_t j) {
  return s.frozen[j] ? *s.frozen[j] : s.reached[j];
}

// The row sum over job j's throughput terms of scale x throughput / prop x X in [lower, upper].
lp::Row level_row(const AllocationProblem& p, const State& s, const AllocationColumns& cols,
                  std::size_t j, double scale, double lower, double upper) {
  lp::Row row{.terms = {}, .lower = lower, .upper = upper};
  for (const ThroughputTerm& term : throughput_terms(p, cols, j)) {
    row.terms.emplace_back(term.column, scale * (term.throughput / s.prop[j]));
  }
  return row;
}

struct Level {
  lp::Solution solution;
  AllocationColumns cols;
  double c = 0.0;
};

// _get_allocation: the round's max-min program.
std::optional<Level> solve_level(const AllocationProblem& p, const State& s,
                                 const std::vector<double>& w) {
  lp::Program prog;
  const AllocationColumns cols = add_base_constraints(prog, p, s.pairs);
  const int c = prog.add_column(1.0, 0.0, s.big_m);
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    prog.rows.push_back(level_row(p, s, cols, j, 1.0, bound(s, j) * (1.0 - kSlack), lp::kInfinity));
    if (active(s, w, j)) {
      const double scale = s.sf[j] / w[j];
      lp::Row row = level_row(p, s, cols, j, scale, s.reached[j] * scale, lp::kInfinity);
      row.terms.emplace_back(c, -1.0);
      prog.rows.push_back(std::move(row));
    }
  }
  lp::Solution solution = lp::solve(prog, p.lp_method);
  if (solution.status != lp::Status::optimal) {
    return std::nullopt;
  }
  const double level = solution.x[static_cast<std::size_t>(c)];
  return Level{.solution = std::move(solution), .cols = cols, .c = level};
}

// _get_bottleneck_jobs: whether each job can rise above its level (false for all when the
// search has no answer, as Gavel's caught exception gives zeros).
std::vector<bool> improvable(const AllocationProblem& p, const State& s,
                             const std::vector<double>& w) {
  lp::Program prog;
  const AllocationColumns cols = add_base_constraints(prog, p, s.pairs);
  std::vector<int> z(p.jobs.size());
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    z[j] = prog.add_integer_column(1.0, 0.0, active(s, w, j) ? 1.0 : 0.0);
    const double target = kBottleneckSlack * s.reached[j];
    lp::Row below = level_row(p, s, cols, j, 1.0, -lp::kInfinity, target - kBottleneckEpsilon);
    below.terms.emplace_back(z[j], -s.big_m);  // level - M z <= target - eps
    prog.rows.push_back(std::move(below));
    lp::Row above = level_row(p, s, cols, j, 1.0, target - s.big_m, lp::kInfinity);
    above.terms.emplace_back(z[j], -s.big_m);  // level + M (1 - z) >= target
    prog.rows.push_back(std::move(above));
    prog.rows.push_back(level_row(p, s, cols, j, 1.0, bound(s, j) * (1.0 - kSlack), lp::kInfinity));
  }
  const lp::Solution solution = lp::solve_mip(prog, kBottleneckLimits);
  std::vector<bool> up(p.jobs.size(), false);
  if (solution.status == lp::Status::optimal) {
    for (std::size_t j = 0; j < up.size(); ++j) {
      up[j] = solution.x[static_cast<std::size_t>(z[j])] > 0.5;
    }
  }
  return up;
}

// Each job's level under the answer: its throughput alone and in its pairs over prop.
std::vector<double> levels_of(const AllocationProblem& p, const State& s,
                              const PackedAllocation& x) {
  std::vector<double> levels(x.single.size(), 0.0);
  for (std::size_t j = 0; j < x.single.size(); ++j) {
    for (std::size_t t = 0; t < x.single[j].size(); ++t) {
      levels[j] += p.jobs[j].throughput[t] / s.prop[j] * x.single[j][t];
    }
  }
  for (const PairShare& pair : x.pairs) {
    for (std::size_t t = 0; t < pair.share.size(); ++t) {
      const auto c = p.colocated(pair.a, pair.b, t);
      if (c) {
        levels[pair.a] += std::max(0.0, c->first) / s.prop[pair.a] * pair.share[t];
        levels[pair.b] += std::max(0.0, c->second) / s.prop[pair.b] * pair.share[t];
      }
    }
  }
  return levels;
}

WaterFilling water_filling(const AllocationProblem& p, const WaterFillingEntities* entities,
                           const std::string& policy, bool packed = false) {
  check_problem(p, policy);
  if (entities != nullptr) {
    check_entities(p, *entities, policy);
  }
  if (p.jobs.empty()) {
    return {};
  }
  State s = make_state(p, policy, packed);
  WaterFilling out;
  std::optional<Level> last;
  while (true) {  // each round freezes a job or ends: at most one round per job, and one more
    const std::vector<double> w = round_weights(p, entities, s);
    std::optional<Level> level = solve_level(p, s, w);
    ++out.iterations;
    if (!level) {
      if (!last) {
        throw AllocationError(policy + ": the linear program has no optimum (CLP); no allocation");
      }
      break;  // Gavel keeps the last round's X
    }
    for (std::size_t j = 0; j < p.jobs.size(); ++j) {
      if (active(s, w, j)) {
        s.reached[j] += level->c * w[j] / s.sf[j];
      }
    }
    last = std::move(level);
    const std::vector<bool> up = improvable(p, s, w);
    bool froze = false;
    bool all = true;
    for (std::size_t j = 0; j < p.jobs.size(); ++j) {
      if (active(s, w, j) && !up[j]) {
        s.frozen[j] = s.reached[j];
        froze = true;
      }
      all = all && s.frozen[j].has_value();
    }
    if (!froze || all) {
      break;
    }
  }
  PackedAllocation x = read_packed_allocation(last->solution, last->cols, p);
  out.levels = levels_of(p, s, x);
  out.x = std::move(x.single);
  out.pairs = std::move(x.pairs);
  return out;
}

}  // namespace

WaterFilling max_min_fairness_water_filling_perf(const AllocationProblem& p,
                                                 const WaterFillingEntities* entities) {
  return water_filling(p, entities, "max_min_fairness_water_filling_perf");
}

WaterFilling max_min_fairness_water_filling_packed(const AllocationProblem& p,
                                                   const WaterFillingEntities* entities) {
  return water_filling(p, entities, "max_min_fairness_water_filling_packed", true);
}

WaterFilling max_min_fairness_water_filling(const AllocationProblem& p,
                                            const WaterFillingEntities* entities) {
  check_problem(p, "max_min_fairness_water_filling");
  return water_filling(with_unit_throughputs(p), entities, "max_min_fairness_water_filling");
}

}  // namespace tidesim::gavel
