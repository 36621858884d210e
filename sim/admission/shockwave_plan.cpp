#include "tidesim/sim/admission/shockwave_plan.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>

#include "tidesim/sim/admission/gavel_allocation.hpp"
#include "tidesim/sim/admission/lp_solver.hpp"

namespace tidesim::shockwave {
namespace {

// JobMetaData.epoch_progress is whole epochs, at most the job's.
std::int64_t done_epochs(const Job& j, std::int64_t progress) {
  return std::clamp<std::int64_t>(progress, 0, j.epochs());
}

// interpolate_epoch_duration: the mean of the epochs' seconds up to and including the one in
// progress.
double mean_epoch_seconds(const Job& j) {
  const auto n = static_cast<std::size_t>(std::min(done_epochs(j, j.progress) + 1, j.epochs()));
  if (n == 0) {
    return 1.0;
  }
  return std::accumulate(j.epoch_s.begin(), j.epoch_s.begin() + static_cast<std::ptrdiff_t>(n),
                         0.0) /
         static_cast<double>(n);
}

struct Inputs {
  std::vector<double> remaining;  // remaining_runtime now
  std::vector<double> epoch_s;    // mean epoch seconds so far
  std::vector<double> log_values;
  double share = 1.0;
  double next_s = 0.0;  // the plan's end
};

struct Solved {
  std::vector<int> rounds;  // whole rounds per job
};

// The program of plan_counts with weights `w` and its columns; with `ftf`, the finish-time
// constraints.
struct Program {
  lp::Program p;
  int makespan = 0;
  std::vector<int> count;    // whole rounds
  std::vector<int> planned;  // epochs
  std::vector<int> utility;  // the log's approximation
  std::vector<int> left;     // run time left after the plan
};

// nullopt when a finish-time constraint cannot hold whatever the plan (its target is before the
// plan's end).
std::optional<Program> program(const std::vector<Job>& jobs, const std::vector<double>& targets,
                               const std::vector<double>& w, bool ftf, int gpus, const Inputs& in,
                               const Config& c) {
  const auto n = static_cast<double>(jobs.size());
  const auto rounds = static_cast<double>(c.future_rounds);
  Program out;
  lp::Program& p = out.p;
  out.makespan = p.add_column(-c.k, 0.0, lp::kInfinity);
  lp::Row capacity{.terms = {}, .lower = -lp::kInfinity, .upper = gpus * rounds};
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const Job& job = jobs[j];
    const auto epochs = static_cast<double>(job.epochs());
    const auto done = static_cast<double>(done_epochs(job, job.progress));
    double left_bound = lp::kInfinity;
    if (ftf) {
      left_bound = in.share * (c.rhomax * targets[j] - in.next_s);
      if (left_bound < 0.0) {
        return std::nullopt;
      }
    }
    const int count = p.add_integer_column(0.0, 0.0, rounds);
    const int pe = p.add_column(0.0, 0.0, epochs - done);
    const int u = p.add_column(w[j] / (n * rounds), -lp::kInfinity, lp::kInfinity);
    const int left = p.add_column(0.0, 0.0, left_bound);
    out.count.push_back(count);
    out.planned.push_back(pe);
    out.utility.push_back(u);
    out.left.push_back(left);
    capacity.terms.emplace_back(count, job.workers);
    // planned run time p x d within the rounds given: p d - n round <= 0
    p.rows.push_back({.terms = {{pe, in.epoch_s[j]}, {count, -c.round_s}}, .upper = 0.0});
    // max(0, remaining - p d) <= left, and left <= the makespan term
    p.rows.push_back({.terms = {{left, 1.0}, {pe, in.epoch_s[j]}}, .lower = in.remaining[j]});
    p.rows.push_back({.terms = {{out.makespan, 1.0}, {left, -1.0}}, .lower = 0.0});
    // u <= each chord of the log at (done + p) / epochs
    for (std::size_t i = 0; i + 1 < c.log_bases.size(); ++i) {
      const double slope =
          (in.log_values[i + 1] - in.log_values[i]) / (c.log_bases[i + 1] - c.log_bases[i]);
      p.rows.push_back({.terms = {{u, 1.0}, {pe, -slope / epochs}},
                        .upper = in.log_values[i] + slope * (done / epochs - c.log_bases[i])});
    }
  }
  p.rows.push_back(std::move(capacity));
  return out;
}

// The chord approximation of the log at normalised progress `x`.
double log_chords(double x, const Inputs& in, const Config& c) {
  double u = lp::kInfinity;
  for (std::size_t i = 0; i + 1 < c.log_bases.size(); ++i) {
    const double slope =
        (in.log_values[i + 1] - in.log_values[i]) / (c.log_bases[i + 1] - c.log_bases[i]);
    u = std::min(u, in.log_values[i] + slope * (x - c.log_bases[i]));
  }
  return u;
}

// Whole rounds from the linear relaxation's solution `x`: each job's rounds of planned run time
// rounded down, then the GPU-rounds left to the jobs that lose the most objective per GPU by
// the rounding down (weighted utility, and the makespan term where the job's run time left
// would exceed the relaxation's), each getting back its epochs.
std::vector<int> rounded_counts(const Program& prog, const std::vector<double>& x,
                                const std::vector<Job>& jobs, const std::vector<double>& w,
                                const Inputs& in, const Config& c, int gpus) {
  auto at = [&](int col) { return x[static_cast<std::size_t>(col)]; };
  const double rounds = static_cast<double>(c.future_rounds);
  const double scale = 1.0 / (static_cast<double>(jobs.size()) * rounds);
  std::vector<int> n;
  std::vector<double> loss;
  double capacity = gpus * rounds;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const double used =
        std::min(at(prog.count[j]), at(prog.planned[j]) * in.epoch_s[j] / c.round_s);
    n.push_back(static_cast<int>(std::floor(used + 1e-9)));
    capacity -= n.back() * jobs[j].workers;
    const double pe = std::min(at(prog.planned[j]), n.back() * c.round_s / in.epoch_s[j]);
    const double epochs = static_cast<double>(jobs[j].epochs());
    const double done = static_cast<double>(done_epochs(jobs[j], jobs[j].progress));
    const double utility = log_chords((done + at(prog.planned[j])) / epochs, in, c) -
                           log_chords((done + pe) / epochs, in, c);
    const double left = in.remaining[j] - pe * in.epoch_s[j];
    const double makespan = std::max(0.0, left - at(prog.makespan));
    const bool short_of = used - n.back() > 1e-6;
    loss.push_back(short_of ? (w[j] * scale * utility + c.k * makespan) / jobs[j].workers : -1.0);
  }
  std::vector<std::size_t> order(jobs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return loss[a] > loss[b]; });
  for (const std::size_t j : order) {
    if (loss[j] >= 0.0 && jobs[j].workers <= capacity + 1e-9 && n[j] < c.future_rounds) {
      ++n[j];
      capacity -= jobs[j].workers;
    }
  }
  return n;
}

// A whole-valued start for branch and bound: rounded_counts, each job's epochs cut to fit its
// rounds, the other columns at their best values; empty when that breaks a finish-time bound.
std::vector<double> rounded_start(const Program& prog, std::vector<double> x,
                                  const std::vector<Job>& jobs, const std::vector<double>& w,
                                  const Inputs& in, const Config& c, int gpus) {
  const std::vector<int> n = rounded_counts(prog, x, jobs, w, in, c, gpus);
  double makespan = 0.0;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    auto at = [&](int col) -> double& { return x[static_cast<std::size_t>(col)]; };
    at(prog.count[j]) = n[j];
    double& pe = at(prog.planned[j]);
    pe = std::min(pe, n[j] * c.round_s / in.epoch_s[j]);
    const double left = std::max(0.0, in.remaining[j] - pe * in.epoch_s[j]);
    if (left > prog.p.upper[static_cast<std::size_t>(prog.left[j])]) {
      return {};
    }
    at(prog.left[j]) = left;
    makespan = std::max(makespan, left);
    const auto epochs = static_cast<double>(jobs[j].epochs());
    const double done = static_cast<double>(done_epochs(jobs[j], jobs[j].progress));
    at(prog.utility[j]) = log_chords((done + pe) / epochs, in, c);
  }
  x[static_cast<std::size_t>(prog.makespan)] = makespan;
  return x;
}

// The plan with weights `w`: the counts and epochs of the integer program (nullopt when, with
// `ftf`, it has no solution).
std::optional<Solved> solve(const std::vector<Job>& jobs, const std::vector<double>& targets,
                            const std::vector<double>& w, bool ftf, int gpus, const Inputs& in,
                            const Config& c) {
  const std::optional<Program> prog = program(jobs, targets, w, ftf, gpus, in, c);
  if (!prog) {
    return std::nullopt;
  }
  const lp::Solution relaxation = lp::solve(prog->p);
  if (ftf && relaxation.status == lp::Status::infeasible) {
    return std::nullopt;
  }
  std::vector<double> start;
  if (relaxation.status == lp::Status::optimal) {
    start = rounded_start(*prog, relaxation.x, jobs, w, in, c, gpus);
  }
  const lp::Solution s =
      lp::solve_mip(prog->p, {.rel_gap = c.solver_rel_gap, .max_nodes = c.solver_max_nodes}, start);
  if (ftf && s.status != lp::Status::optimal) {
    return std::nullopt;
  }
  if (s.status != lp::Status::optimal) {
    throw gavel::AllocationError(std::string("shockwave: the plan's integer program is ") +
                                 lp::to_string(s.status));
  }
  Solved out;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const double epochs = std::max(0.0, s.x[static_cast<std::size_t>(prog->planned[j])]);
    // Rounds the plan gives a job beyond its planned run time change nothing in the objective:
    // they are left to the work-conserving fill.
    const double needed = std::ceil(epochs * in.epoch_s[j] / c.round_s - 1e-6);
    out.rounds.push_back(static_cast<int>(
        std::min(s.x[static_cast<std::size_t>(prog->count[j])], std::max(0.0, needed))));
  }
  return out;
}

// relax_finish_time_constraints: rho^lambda for a job behind its target, rho^priority_m when it
// has less than a round left.
std::vector<double> relaxed_priorities(const std::vector<double>& targets, double now_s,
                                       const Inputs& in, const Config& c) {
  std::vector<double> w;
  for (std::size_t j = 0; j < targets.size(); ++j) {
    const double finish = now_s + in.remaining[j] / in.share;
    const double rho = targets[j] > 0.0 ? finish / targets[j] : 1.0;
    double priority = 1.0;
    if (rho > c.rhomax) {
      priority = std::pow(rho, in.remaining[j] < c.round_s ? c.priority_m : c.lambda);
    }
    w.push_back(std::isfinite(priority) ? priority : c.max_priority * 1e3);
  }
  return w;
}

}  // namespace

std::vector<double> profile_seconds(const std::vector<double>& seconds) {
  std::vector<double> out;
  for (const double s : seconds) {
    out.push_back(std::max(1.0, std::round(s)));
  }
  return out;
}

double remaining_runtime(const Job& j, std::int64_t progress) {
  const std::int64_t epochs = j.epochs();
  progress = done_epochs(j, progress);
  const std::int64_t left = epochs - progress;
  if (epochs == 0 || left <= 0) {
    return 1.0;
  }
  std::map<int, double> count;  // the Dirichlet's concentration per batch size
  std::map<int, std::pair<double, int>> seconds;
  for (std::size_t e = 0; e < j.batch.size(); ++e) {
    count[j.batch[e]] = 0.0;
    seconds[j.batch[e]].first += j.epoch_s[e];
    seconds[j.batch[e]].second += 1;
  }
  const double prior = static_cast<double>(epochs) / static_cast<double>(count.size());
  const auto observed = static_cast<std::size_t>(std::min(progress + 1, epochs));
  for (auto& [b, n] : count) {
    n = prior;
  }
  for (std::size_t e = 0; e < observed; ++e) {
    count[j.batch[e]] += 1.0;
  }
  double total = 0.0;
  for (const auto& [b, n] : count) {
    total += n;
  }
  for (auto& [b, n] : count) {
    n = static_cast<double>(epochs) * n / total;
  }
  for (std::size_t e = 0; e < observed; ++e) {
    double& n = count[j.batch[e]];
    n = n >= 1.0 ? n - 1.0 : n;
  }
  double rebased = 0.0;
  double runtime = 0.0;
  for (const auto& [b, n] : count) {
    rebased += n;
    runtime += n * seconds[b].first / seconds[b].second;
  }
  const auto inflated = std::max<std::int64_t>(static_cast<std::int64_t>(rebased + 1.0), left);
  return runtime * static_cast<double>(left) / static_cast<double>(inflated);
}

double equal_share_finish(const Job& j, int gpus, int jobs) {
  const double share = std::min(1.0, static_cast<double>(gpus) / std::max(1, jobs));
  const auto done = static_cast<std::ptrdiff_t>(done_epochs(j, j.progress));
  const double spent = std::accumulate(j.epoch_s.begin(), j.epoch_s.begin() + done, 0.0);
  return j.submit_s + (spent + remaining_runtime(j, j.progress)) / share;
}

double momentum_average(const std::vector<std::pair<int, double>>& series, int round,
                        double momentum) {
  if (series.empty()) {
    return 0.0;
  }
  double average = 0.0;
  double weights = 0.0;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const int until = i + 1 < series.size() ? series[i + 1].first : round;
    const auto held = static_cast<double>(until - series[i].first);
    average += held * series[i].second;
    weights += held;
  }
  average = weights > 0.0 ? average / weights : series.back().second;
  return momentum * average + (1.0 - momentum) * series.back().second;
}

Counts plan_counts(const std::vector<Job>& jobs, const std::vector<double>& targets, int gpus,
                   double now_s, const Config& c) {
  Counts out;
  if (jobs.empty()) {
    return out;
  }
  Inputs in;
  in.share = std::min(1.0, static_cast<double>(gpus) / static_cast<double>(jobs.size()));
  in.next_s = now_s + c.future_rounds * c.round_s;
  for (const double b : c.log_bases) {
    in.log_values.push_back(std::log(b > 0.0 ? b : c.log_origin));
  }
  for (const Job& j : jobs) {
    in.remaining.push_back(remaining_runtime(j, j.progress));
    in.epoch_s.push_back(mean_epoch_seconds(j));
  }
  out.priority.assign(jobs.size(), 1.0);
  std::optional<Solved> s = solve(jobs, targets, out.priority, true, gpus, in, c);
  if (!s) {
    out.relaxed = true;
    out.priority = relaxed_priorities(targets, now_s, in, c);
    std::vector<double> clipped;
    for (const double w : out.priority) {
      clipped.push_back(std::min(w, c.max_priority));
    }
    s = solve(jobs, targets, clipped, false, gpus, in, c);
  }
  out.rounds = s->rounds;
  return out;
}

std::vector<std::vector<int>> assign_rounds(const std::vector<Job>& jobs, const Counts& counts,
                                            int gpus, const Config& c) {
  std::vector<double> remaining;
  for (const Job& j : jobs) {
    remaining.push_back(remaining_runtime(j, j.progress));
  }
  std::vector<std::size_t> by_remaining(jobs.size());
  std::iota(by_remaining.begin(), by_remaining.end(), 0);
  std::stable_sort(by_remaining.begin(), by_remaining.end(),
                   [&](std::size_t a, std::size_t b) { return remaining[a] > remaining[b]; });
  std::vector<int> left;
  for (const int n : counts.rounds) {
    left.push_back(std::clamp(n, 0, c.future_rounds));
  }
  std::vector<std::vector<int>> out;
  for (int r = 0; r < c.future_rounds; ++r) {
    const int rounds_left = c.future_rounds - r;
    std::vector<std::size_t> order;
    std::vector<double> lag(jobs.size(), 0.0);
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      lag[j] = counts.rounds[j] * (r + 1.0) / c.future_rounds - (counts.rounds[j] - left[j]);
      if (left[j] > 0) {
        order.push_back(j);
      }
    }
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      const bool fa = left[a] >= rounds_left;
      const bool fb = left[b] >= rounds_left;
      if (fa != fb) {
        return fa;
      }
      const double ra = counts.priority[a] / counts.rounds[a];
      const double rb = counts.priority[b] / counts.rounds[b];
      if (ra != rb) {
        return ra > rb;
      }
      return lag[a] > lag[b];
    });
    int free = gpus;
    std::vector<bool> taken(jobs.size(), false);
    std::vector<int> round;
    for (const std::size_t j : order) {
      if (jobs[j].workers <= free) {
        free -= jobs[j].workers;
        taken[j] = true;
        --left[j];
        round.push_back(jobs[j].id);
      }
    }
    for (const std::size_t j : by_remaining) {  // work-conserving fill
      if (free <= 0) {
        break;
      }
      if (!taken[j] && jobs[j].workers <= free) {
        free -= jobs[j].workers;
        round.push_back(jobs[j].id);
      }
    }
    out.push_back(std::move(round));
  }
  return out;
}

}  // namespace tidesim::shockwave
