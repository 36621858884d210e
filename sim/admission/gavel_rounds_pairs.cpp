// Rounds: the candidates of a round's selection and the pairs of Gavel's packing policies, every
// two jobs of the same scale factor (docs/gavel.md, "Rounds"); RoundPairs (gavel_round_pairs.hpp).
#include <algorithm>

#include "tidesim/sim/admission/gavel_rounds.hpp"

namespace tidesim::gavel {

std::vector<RoundCandidate> Rounds::candidates(std::size_t t) const {
  std::vector<RoundCandidate> out;
  out.reserve(order_.size());
  for (const int id : order_) {  // by position: the sort below keeps it for equal keys
    const JobState& s = jobs_.at(id);
    const auto a = allocation_.find(id);
    out.push_back(
        {.key = {s.priority[t], s.deficit[t], a == allocation_.end() ? 0.0 : a->second[t]},
         .position = s.position,
         .id = id,
         .a = s.a,
         .b = s.b});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const RoundCandidate& x, const RoundCandidate& y) { return x.key > y.key; });
  return out;
}

// Gavel's pair (a, b) from its later job's arrival: time 0 on every type until a reset, which
// gives it half a round of time and a deficit of half a round (X 0 times the elapsed time, less
// the time received, 0 - half a round); later resets leave both, while it does not run.
std::vector<RoundCandidate> Rounds::latent_pairs(std::size_t t, const std::set<int>& taken,
                                                 long long left) {
  std::vector<RoundCandidate> out;
  if (left <= 0) {
    return out;
  }
  std::vector<int> free;  // jobs not taken that fit, by arrival
  for (const int id : order_) {
    const JobState& s = jobs_.at(id);
    if (s.b < 0 && taken.count(id) == 0 && s.job.scale_factor <= left) {
      free.push_back(id);
    }
  }
  const double half = config_.round_s / 2.0;
  for (std::size_t k = 1; k < free.size(); ++k) {
    const JobState& later = jobs_.at(free[k]);
    const double deficit = pairs_.reset_since(free[k]) ? half : 0.0;
    for (std::size_t j = 0; j < k; ++j) {
      const JobState& earlier = jobs_.at(free[j]);
      if (earlier.job.scale_factor != later.job.scale_factor || pair_key(free[j], free[k]) != 0 ||
          pairs_.throughput(free[j], free[k], types_.size())[t] <= 0.0) {
        continue;
      }
      out.push_back({.key = {0.0, deficit, 0.0},
                     .position = {later.position.first, earlier.position.first},
                     .id = 0,
                     .latent = true,
                     .a = free[j],
                     .b = free[k]});
    }
  }
  return out;
}

int Rounds::make_pair_entry(int a, int b) {
  const int first = pairs_.arrival(a) < pairs_.arrival(b) ? a : b;
  const int second = first == a ? b : a;
  const int key = pairs_.new_key(a, b);
  const bool reset_since = pairs_.reset_since(second);
  const double half = config_.round_s / 2.0;
  JobState s{.job = RoundJob{.id = key,
                             .scale_factor = jobs_.at(first).job.scale_factor,
                             .throughput = pairs_.throughput(first, second, types_.size())},
             .a = first,
             .b = second,
             .time = std::vector<double>(types_.size(), reset_since ? half : 0.0),
             .priority = {},
             .deficit = std::vector<double>(types_.size(), reset_since ? half : 0.0),
             .position = {pairs_.arrival(second), pairs_.arrival(first)}};
  for (std::size_t t = 0; t < types_.size() && reset_since; ++t) {
    worker_time_[t] += half;
  }
  add_entry(std::move(s));
  return key;
}

void RoundPairs::arrive(int id) {
  arrival_[id] = arrivals_++;
  resets_at_arrival_[id] = resets_;
}

void RoundPairs::leave(int id) {
  arrival_.erase(id);
  resets_at_arrival_.erase(id);
  std::erase_if(throughputs_,
                [id](const auto& e) { return e.first.first == id || e.first.second == id; });
}

int RoundPairs::key(int a, int b) const {
  const auto it = keys_.find({std::min(a, b), std::max(a, b)});
  return it == keys_.end() ? 0 : it->second;
}

int RoundPairs::new_key(int a, int b) {
  const int key = next_key_--;
  keys_[{std::min(a, b), std::max(a, b)}] = key;
  return key;
}

void RoundPairs::erase_key(int a, int b) {
  keys_.erase({std::min(a, b), std::max(a, b)});
}

const std::vector<double>& RoundPairs::throughput(int a, int b, std::size_t types) {
  const std::pair<int, int> key{std::min(a, b), std::max(a, b)};
  auto it = throughputs_.find(key);
  if (it == throughputs_.end()) {
    std::vector<double> tput = fn_ ? fn_(key.first, key.second) : std::vector<double>{};
    tput.resize(types, 0.0);
    it = throughputs_.emplace(key, std::move(tput)).first;
  }
  return it->second;
}

}  // namespace tidesim::gavel
