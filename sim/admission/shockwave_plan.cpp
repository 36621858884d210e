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
  std::vector<double> epochs;  // planned epochs per job
};

// The program of plan_counts with weights `w`; with `ftf`, the finish-time constraints (nullopt
// when they cannot hold whatever the plan).
std::optional<Solved> solve(const std::vector<Job>& jobs, const std::vector<double>& targets,
                            const std::vector<double>& w, bool ftf, int gpus, const Inputs& in,
                            const Config& c) {
  const auto n = static_cast<double>(jobs.size());
  const auto rounds = static_cast<double>(c.future_rounds);
  lp::Program p;
  const int makespan = p.add_column(-c.k, 0.0, lp::kInfinity);
  lp::Row capacity{.terms = {}, .lower = -lp::kInfinity, .upper = gpus * rounds};
  std::vector<int> planned;
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
    const int count = p.add_column(0.0, 0.0, rounds);
    const int pe = p.add_column(0.0, 0.0, epochs - done);
    const int u = p.add_column(w[j] / (n * rounds), -lp::kInfinity, lp::kInfinity);
    const int left = p.add_column(0.0, 0.0, left_bound);
    planned.push_back(pe);
    capacity.terms.emplace_back(count, job.workers);
    // planned run time p x d within the rounds given: p d - n round <= 0
    p.rows.push_back({.terms = {{pe, in.epoch_s[j]}, {count, -c.round_s}}, .upper = 0.0});
    // max(0, remaining - p d) <= left, and left <= the makespan term
    p.rows.push_back({.terms = {{left, 1.0}, {pe, in.epoch_s[j]}}, .lower = in.remaining[j]});
    p.rows.push_back({.terms = {{makespan, 1.0}, {left, -1.0}}, .lower = 0.0});
    // u <= each chord of the log at (done + p) / epochs
    for (std::size_t i = 0; i + 1 < c.log_bases.size(); ++i) {
      const double slope =
          (in.log_values[i + 1] - in.log_values[i]) / (c.log_bases[i + 1] - c.log_bases[i]);
      p.rows.push_back({.terms = {{u, 1.0}, {pe, -slope / epochs}},
                        .upper = in.log_values[i] + slope * (done / epochs - c.log_bases[i])});
    }
  }
  p.rows.push_back(std::move(capacity));
  const lp::Solution s = lp::solve(p);
  if (ftf && s.status == lp::Status::infeasible) {
    return std::nullopt;
  }
  if (s.status != lp::Status::optimal) {
    throw gavel::AllocationError(std::string("shockwave: the plan's linear program is ") +
                                 lp::to_string(s.status));
  }
  Solved out;
  for (const int pe : planned) {
    out.epochs.push_back(std::max(0.0, s.x[static_cast<std::size_t>(pe)]));
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

// Whole rounds: each job's planned run time in rounds rounded down, then the GPU-rounds left by
// largest fraction.
std::vector<int> whole_rounds(const std::vector<Job>& jobs, const Solved& s, const Inputs& in,
                              int gpus, const Config& c) {
  std::vector<int> out;
  std::vector<double> fraction;
  double left = static_cast<double>(gpus) * c.future_rounds;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const double r = std::min<double>(s.epochs[j] * in.epoch_s[j] / c.round_s, c.future_rounds);
    const double whole = std::floor(r + 1e-6);
    out.push_back(static_cast<int>(whole));
    fraction.push_back(r - whole);
    left -= whole * jobs[j].workers;
  }
  std::vector<std::size_t> order(jobs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return fraction[a] > fraction[b]; });
  for (const std::size_t j : order) {
    if (fraction[j] > 1e-6 && jobs[j].workers <= left && out[j] < c.future_rounds) {
      ++out[j];
      left -= jobs[j].workers;
    }
  }
  return out;
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
  out.rounds = whole_rounds(jobs, *s, in, gpus, c);
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
  std::vector<int> given(jobs.size(), 0);
  std::vector<std::vector<int>> out;
  for (int r = 0; r < c.future_rounds; ++r) {
    std::vector<std::size_t> order;
    std::vector<double> lag(jobs.size(), 0.0);
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      lag[j] = counts.rounds[j] * (r + 1.0) / c.future_rounds - given[j];
      if (given[j] < counts.rounds[j]) {
        order.push_back(j);
      }
    }
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      if (counts.priority[a] != counts.priority[b]) {
        return counts.priority[a] > counts.priority[b];
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
        ++given[j];
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
