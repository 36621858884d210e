#include "tidesim/sim/admission/gavel_allox.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tidesim::gavel {

namespace {

struct Slot {
  std::size_t job = 0;  // index into the candidates
  std::size_t type = 0;
  std::size_t level = 0;  // 1-based: the cost multiplier
};

// The min-cost assignment of `jobs` (problem rows) to (type, level) positions with `free` GPUs
// per type: each job's chosen position. A job gets no position on a type where its throughput
// is 0 (Gavel's stand-in of 1e-10 steps/s makes one cost ~1e17 s, taken only by a job with no
// other position; leaving it out keeps the program well scaled); a job with no position at all
// is not placed.
std::vector<Slot> assign(const AllocationProblem& p, const std::vector<std::size_t>& jobs,
                         const std::vector<long long>& free) {
  const std::size_t m = jobs.size();
  lp::Program prog;
  prog.maximise = false;
  std::vector<Slot> columns;
  std::vector<lp::Row> per_job(m, lp::Row{.terms = {}, .lower = 1.0, .upper = 1.0});
  for (std::size_t t = 0; t < free.size(); ++t) {
    if (free[t] <= 0) {
      continue;
    }
    for (std::size_t k = 1; k <= m; ++k) {
      lp::Row capacity{.terms = {}, .lower = -lp::kInfinity, .upper = static_cast<double>(free[t])};
      for (std::size_t i = 0; i < m; ++i) {
        const AllocationJob& job = p.jobs[jobs[i]];
        if (!(job.throughput[t] > 0.0)) {
          continue;
        }
        const int c =
            prog.add_column(static_cast<double>(k) * job.steps_remaining / job.throughput[t] +
                                job.time_since_start_s,
                            0.0, 1.0);
        columns.push_back({i, t, k});
        capacity.terms.emplace_back(c, 1.0);
        per_job[i].terms.emplace_back(c, 1.0);
      }
      prog.rows.push_back(std::move(capacity));
    }
  }
  for (lp::Row& row : per_job) {
    if (!row.terms.empty()) {
      prog.rows.push_back(std::move(row));
    }
  }
  std::vector<Slot> out;
  if (columns.empty()) {
    return out;
  }
  const lp::Solution s = solve_or_throw(prog, "allox");
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (s.x[c] > 0.5) {
      out.push_back(columns[c]);
    } else if (s.x[c] > 1e-6) {
      throw AllocationError("allox: the assignment program's solution is not integral");
    }
  }
  return out;
}

// The jobs that run now: per type, level k holds c_k jobs (c_1 >= c_2 >= ... at the optimum
// when every job has steps left) and c_k - max(c_l, l > k) of them are last on their GPU's queue,
// i.e. first to run: the lowest candidate indices (the oldest jobs) among them, a choice the cost
// leaves open. In all, max_k c_k <= the type's free GPUs run.
std::vector<std::pair<std::size_t, std::size_t>> first_to_run(const std::vector<Slot>& slots,
                                                              std::size_t types, std::size_t m) {
  std::vector<std::pair<std::size_t, std::size_t>> out;  // (candidate, type)
  for (std::size_t t = 0; t < types; ++t) {
    std::vector<std::vector<std::size_t>> level(m + 2);
    for (const Slot& s : slots) {
      if (s.type == t) {
        level[s.level].push_back(s.job);
      }
    }
    std::size_t above = 0;  // the most jobs on any level above k
    for (std::size_t k = m; k >= 1; --k) {
      std::sort(level[k].begin(), level[k].end());
      for (std::size_t i = 0; i + above < level[k].size(); ++i) {
        out.emplace_back(level[k][i], t);
      }
      above = std::max(above, level[k].size());
    }
  }
  return out;
}

}  // namespace

Allocation AlloX::allocate(const AllocationProblem& p) {
  check_problem(p, "allox");
  const std::size_t types = p.cluster.gpus.size();
  std::vector<long long> free(p.cluster.gpus.begin(), p.cluster.gpus.end());
  std::vector<std::size_t> waiting;
  Allocation x(p.jobs.size(), std::vector<double>(types, 0.0));
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    if (p.jobs[j].scale_factor != 1 && !multi_gpu_) {
      throw AllocationError("allox: job " + std::to_string(p.jobs[j].id) +
                            " needs more than one GPU; AlloX places single-GPU jobs only");
    }
    const auto it = previous_.find(p.jobs[j].id);
    if (it == previous_.end()) {
      waiting.push_back(j);
      continue;
    }
    x[j] = it->second;
    if (std::accumulate(x[j].begin(), x[j].end(), 0.0) == 1.0) {
      for (std::size_t t = 0; t < types; ++t) {
        free[t] -= x[j][t] == 1.0 ? 1 : 0;
      }
    } else {
      waiting.push_back(j);
    }
  }
  std::stable_sort(waiting.begin(), waiting.end(), [&](std::size_t a, std::size_t b) {
    return p.jobs[a].time_since_start_s > p.jobs[b].time_since_start_s;
  });
  long long gpus = 0;
  for (long long& f : free) {
    f = std::max(0LL, f);
    gpus += f;
  }
  const auto keep = std::max<long long>(
      static_cast<long long>(std::floor(alpha_ * static_cast<double>(waiting.size()))), gpus);
  waiting.resize(std::min<std::size_t>(waiting.size(), static_cast<std::size_t>(keep)));
  if (!waiting.empty() && gpus > 0) {
    const auto slots = assign(p, waiting, free);
    for (const auto& [candidate, type] : first_to_run(slots, types, waiting.size())) {
      x[waiting[candidate]][type] = 1.0 / p.jobs[waiting[candidate]].scale_factor;
    }
  }
  previous_.clear();
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    previous_[p.jobs[j].id] = x[j];
  }
  return x;
}

}  // namespace tidesim::gavel
