// The columns of Gavel's programs over X and their base constraints (gavel_allocation.hpp):
// X[j][t] for the jobs alone and, in the packed layout, X[pair][t] for the pairs sharing GPUs.
#include <algorithm>

#include "tidesim/sim/admission/gavel_allocation.hpp"

namespace tidesim::gavel {

// PolicyWithPacking.flatten's combinations: every two jobs of the same scale factor, as Gavel's
// scheduler makes them (_populate_job_combination_metadata), those the table gives no co-located
// throughput included (theirs is 0).
std::vector<PairColumns> packed_pairs(const AllocationProblem& p) {
  std::vector<PairColumns> out;
  if (!p.colocated) {
    return out;
  }
  for (std::size_t a = 0; a < p.jobs.size(); ++a) {
    for (std::size_t b = a + 1; b < p.jobs.size(); ++b) {
      if (p.jobs[a].scale_factor != p.jobs[b].scale_factor) {
        continue;
      }
      PairColumns pair{.a = a, .b = b, .first = 0, .throughput_a = {}, .throughput_b = {}};
      for (std::size_t t = 0; t < p.cluster.gpus.size(); ++t) {
        const auto c = p.colocated(a, b, t);
        pair.throughput_a.push_back(c ? std::max(0.0, c->first) : 0.0);
        pair.throughput_b.push_back(c ? std::max(0.0, c->second) : 0.0);
      }
      out.push_back(std::move(pair));
    }
  }
  return out;
}

AllocationColumns add_base_constraints(lp::Program& program, const AllocationProblem& p,
                                       std::vector<PairColumns> pairs) {
  AllocationColumns cols;
  cols.types = p.cluster.gpus.size();
  cols.first = static_cast<int>(program.columns());
  cols.pairs_of_job.resize(p.jobs.size());
  const std::size_t first_row = program.rows.size();
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    lp::Row share{.terms = {}, .lower = -lp::kInfinity, .upper = 1.0};
    for (std::size_t t = 0; t < cols.types; ++t) {
      // A type without GPUs gets nothing, exactly (not to the solver's tolerance on a row). On
      // the central path and by ECOS X has no bound above but its row's, as in Gavel's program.
      const double upper = p.cluster.gpus[t] == 0 ? 0.0
                           : p.lp_method == lp::Method::central || p.lp_method == lp::Method::ecos
                               ? lp::kInfinity
                               : 1.0;
      const int col = program.add_column(0.0, 0.0, upper);
      program.blocks[static_cast<std::size_t>(col)] = static_cast<int>(j);
      share.terms.emplace_back(col, 1.0);
    }
    program.rows.push_back(std::move(share));
  }
  const std::size_t capacity_row = program.rows.size();
  for (std::size_t t = 0; t < cols.types; ++t) {
    lp::Row capacity{
        .terms = {}, .lower = -lp::kInfinity, .upper = static_cast<double>(p.cluster.gpus[t])};
    for (std::size_t j = 0; j < p.jobs.size(); ++j) {
      capacity.terms.emplace_back(cols.column(j, t), p.jobs[j].scale_factor);
    }
    program.rows.push_back(std::move(capacity));
  }
  cols.pairs = std::move(pairs);
  for (std::size_t i = 0; i < cols.pairs.size(); ++i) {
    PairColumns& pair = cols.pairs[i];
    pair.first = static_cast<int>(program.columns());
    cols.pairs_of_job[pair.a].push_back(i);
    cols.pairs_of_job[pair.b].push_back(i);
    for (std::size_t t = 0; t < cols.types; ++t) {
      // As X[j][t]: free wherever the type has GPUs, whatever the pair's throughput there (Gavel's
      // x >= 0), so an interior point may give a pair of throughput 0 a share where GPUs are slack.
      const int col = program.add_column(0.0, 0.0, p.cluster.gpus[t] > 0 ? 1.0 : 0.0);
      program.rows[first_row + pair.a].terms.emplace_back(col, 1.0);
      program.rows[first_row + pair.b].terms.emplace_back(col, 1.0);
      program.rows[capacity_row + t].terms.emplace_back(col, p.jobs[pair.a].scale_factor);
    }
  }
  return cols;
}

std::vector<ThroughputTerm> throughput_terms(const AllocationProblem& p,
                                             const AllocationColumns& cols, std::size_t j) {
  std::vector<ThroughputTerm> out;
  for (std::size_t t = 0; t < cols.types; ++t) {
    out.push_back({.column = cols.column(j, t), .type = t, .throughput = p.jobs[j].throughput[t]});
  }
  for (const std::size_t i : cols.pairs_of_job[j]) {
    const PairColumns& pair = cols.pairs[i];
    const std::vector<double>& tput = pair.a == j ? pair.throughput_a : pair.throughput_b;
    for (std::size_t t = 0; t < cols.types; ++t) {
      out.push_back({.column = pair.first + static_cast<int>(t), .type = t, .throughput = tput[t]});
    }
  }
  return out;
}

Allocation read_allocation(const lp::Solution& s, const AllocationColumns& cols,
                           const AllocationProblem& p) {
  return read_packed_allocation(s, cols, p).single;
}

PackedAllocation read_packed_allocation(const lp::Solution& s, const AllocationColumns& cols,
                                        const AllocationProblem& p) {
  PackedAllocation out;
  out.single.assign(p.jobs.size(), std::vector<double>(cols.types, 0.0));
  const auto value = [&s](int col) {
    return std::clamp(s.x[static_cast<std::size_t>(col)], 0.0, 1.0);
  };
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    for (std::size_t t = 0; t < cols.types; ++t) {
      out.single[j][t] = value(cols.column(j, t));
    }
  }
  for (const PairColumns& pair : cols.pairs) {
    std::vector<double> x;
    bool any = false;
    for (std::size_t t = 0; t < cols.types; ++t) {
      x.push_back(value(pair.first + static_cast<int>(t)));
      any = any || x.back() > 1e-12;
    }
    if (any) {
      out.pairs.push_back({.a = pair.a, .b = pair.b, .share = std::move(x)});
    }
  }
  fit_base_constraints(p, out.single, &out.pairs);
  return out;
}

}  // namespace tidesim::gavel
