#include "tidesim/sim/admission/shockwave_policy.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "tidesim/sim/admission/gavel_allocation.hpp"

namespace tidesim::shockwave {
namespace {

const std::vector<std::string>& arg_names() {
  static const std::vector<std::string> names = {"future_rounds",
                                                 "k",
                                                 "lambda",
                                                 "rhomax",
                                                 "log_approximation_bases",
                                                 "gpu_ram",
                                                 "solver_rel_gap",
                                                 "solver_num_threads",
                                                 "solver_timeout",
                                                 "reopt_rounds",
                                                 "momentum",
                                                 "log_origin",
                                                 "priority_m",
                                                 "max_priority",
                                                 "solver_max_nodes"};
  return names;
}

double number(const std::string& key, const std::string& text, double lo, double hi) {
  double v = 0.0;
  try {
    std::size_t used = 0;
    v = std::stod(text, &used);
    if (used != text.size()) {
      throw std::invalid_argument(text);
    }
  } catch (const std::exception&) {
    throw std::invalid_argument("gavel: shockwave's " + key + " must be a number, not '" + text +
                                "'");
  }
  if (!std::isfinite(v) || v < lo || v > hi) {
    throw std::invalid_argument("gavel: shockwave's " + key + " must be in [" + std::to_string(lo) +
                                ", " + std::to_string(hi) + "], not '" + text + "'");
  }
  return v;
}

int whole(const std::string& key, const std::string& text, int lo, int hi) {
  const double v = number(key, text, lo, hi);
  if (v != std::floor(v)) {
    throw std::invalid_argument("gavel: shockwave's " + key + " must be a whole number, not '" +
                                text + "'");
  }
  return static_cast<int>(v);
}

std::vector<double> bases(const std::string& text) {
  std::vector<double> out;
  std::string item;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == ',') {
      out.push_back(number("log_approximation_bases", item, 0.0, 1.0));
      item.clear();
    } else if (text[i] != ' ' && text[i] != '[' && text[i] != ']') {
      item += text[i];
    }
  }
  bool ascending = out.size() >= 2 && out.front() == 0.0 && out.back() == 1.0;
  for (std::size_t i = 1; i < out.size(); ++i) {
    ascending = ascending && out[i] > out[i - 1];
  }
  if (!ascending) {
    throw std::invalid_argument(
        "gavel: shockwave's log_approximation_bases must ascend strictly "
        "from 0 to 1, not '" +
        text + "'");
  }
  return out;
}

}  // namespace

bool is_arg(const std::string& key) {
  const auto& names = arg_names();
  return std::find(names.begin(), names.end(), key) != names.end();
}

Config parse_config(const std::map<std::string, std::string>& args, double round_s) {
  Config c;
  c.round_s = round_s;
  for (const auto& [key, value] : args) {
    if (key == "future_rounds") {
      c.future_rounds = whole(key, value, 1, 10'000);
    } else if (key == "k") {
      c.k = number(key, value, 1e-300, 1e12);  // the artifact asserts k > 0
    } else if (key == "lambda") {
      c.lambda = number(key, value, 0.0, 1e3);
    } else if (key == "rhomax") {
      c.rhomax = number(key, value, 1e-9, 1e9);
    } else if (key == "log_approximation_bases") {
      c.log_bases = bases(value);
    } else if (key == "reopt_rounds") {
      c.reopt_rounds = whole(key, value, 1, 1'000'000);
    } else if (key == "momentum") {
      c.momentum = number(key, value, 0.0, 1.0);
    } else if (key == "log_origin") {
      c.log_origin = number(key, value, 1e-300, 0.2);
    } else if (key == "priority_m") {
      c.priority_m = number(key, value, 0.0, 1e3);
    } else if (key == "max_priority") {
      c.max_priority = number(key, value, 1.0, 1e12);
    } else if (key == "solver_rel_gap") {
      c.solver_rel_gap = number(key, value, 0.0, 1.0);
    } else if (key == "solver_max_nodes") {
      c.solver_max_nodes = whole(key, value, 0, 100'000'000);
    } else if (key == "solver_num_threads") {
      (void)whole(key, value, 1, 1'000'000);
    } else if (is_arg(key)) {  // gpu_ram, solver_timeout
      (void)number(key, value, 1e-300, 1e9);
    }
  }
  if (c.log_origin >= c.log_bases[1]) {
    throw std::invalid_argument("gavel: shockwave's log_origin must be below the second base");
  }
  return c;
}

std::vector<Job> jobs_of(const JobPolicyState& state, const std::vector<int>& ids) {
  std::vector<Job> out;
  for (const JobView& v : state.jobs) {
    if (!std::binary_search(ids.begin(), ids.end(), v.id)) {
      continue;
    }
    if (v.epochs == nullptr || v.epochs->seconds.empty()) {
      throw gavel::AllocationError("shockwave: job '" + v.name +
                                   "' has no epoch profile (Shockwave plans the epochs of its "
                                   "trace's rows; Gavel's layout has none)");
    }
    Job j;
    j.id = v.id;
    j.workers = std::max(1, v.gpus);
    j.submit_s = to_seconds(v.submitted);
    j.batch = v.epochs->batch;
    j.epoch_s = profile_seconds(v.epochs->seconds);
    j.progress = static_cast<std::int64_t>(
        v.epochs_done >= 0.0 ? v.epochs_done
                             : std::floor(v.progress * static_cast<double>(j.epochs()) + 1e-9));
    out.push_back(std::move(j));
  }
  return out;
}

std::vector<int> Scheduler::round(const std::vector<Job>& active, int gpus, double now_s) {
  if (started_) {  // the end of the last round (scheduler.py _update_shockwave_scheduler)
    ++round_;
    if (++since_solve_ >= c_.reopt_rounds) {
      resolve_ = true;
      since_solve_ = 0;
    }
  }
  started_ = true;
  std::set<int> ids;
  for (const Job& j : active) {
    ids.insert(j.id);
  }
  if (ids != known_) {  // add_metadata / remove_metadata
    resolve_ = true;
    reestimate_ = true;
    std::erase_if(series_, [&](const auto& e) { return ids.count(e.first) == 0; });
    known_ = ids;
  }
  if (active.empty()) {
    return {};
  }
  if (!resolve_ && plan_.count(round_) != 0) {
    return plan_.at(round_);
  }
  if (reestimate_) {  // finish_time_uniform_share
    for (const Job& j : active) {
      series_[j.id].emplace_back(round_,
                                 equal_share_finish(j, gpus, static_cast<int>(active.size())));
    }
    reestimate_ = false;
  }
  std::vector<double> targets;
  for (const Job& j : active) {
    targets.push_back(momentum_average(series_[j.id], round_, c_.momentum));
  }
  const Counts counts = plan_counts(active, targets, gpus, now_s, c_);
  ++solves_;
  relaxed_ += counts.relaxed ? 1 : 0;
  plan_.clear();
  const auto rounds = assign_rounds(active, counts, gpus, c_);
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    plan_[round_ + static_cast<int>(r)] = rounds[r];
  }
  resolve_ = false;
  return plan_.at(round_);
}

}  // namespace tidesim::shockwave
