#include "tidesim/sim/admission/gavel_rounds.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <tuple>

namespace tidesim::gavel {

Rounds::Rounds(std::vector<std::string> types, std::vector<std::vector<std::vector<int>>> servers,
               RoundsConfig config)
    : types_(std::move(types)),
      servers_(std::move(servers)),
      config_(config),
      rng_(config.seed, "gavel-rounds"),
      worker_time_(types_.size(), 0.0) {
  if (servers_.size() != types_.size()) {
    throw std::invalid_argument("gavel rounds: one list of servers per GPU type expected");
  }
}

void Rounds::add_job(const RoundJob& job) {
  if (jobs_.count(job.id) != 0 || job.throughput.size() != types_.size() || job.scale_factor < 1) {
    throw std::invalid_argument("gavel rounds: job " + std::to_string(job.id) +
                                " is already here or has a bad scale factor or throughput row");
  }
  pairs_.arrive(job.id);
  add_entry(JobState{.job = job,
                     .a = job.id,
                     .b = -1,
                     .time = {},
                     .priority = {},
                     .deficit = {},
                     .position = {pairs_.arrival(job.id), -1}});
  need_update_ = true;
}

void Rounds::add_entry(JobState state) {
  const std::size_t n = types_.size();
  if (state.time.empty()) {
    state.time.assign(n, config_.round_s / 2.0);
  }
  if (state.deficit.empty()) {
    state.deficit.assign(n, 0.0);
  }
  state.priority.assign(n, 0.0);
  const auto at = std::lower_bound(order_.begin(), order_.end(), state.position,
                                   [this](int id, const std::pair<long, long>& position) {
                                     return jobs_.at(id).position < position;
                                   });
  order_.insert(at, state.job.id);
  jobs_[state.job.id] = std::move(state);
}

void Rounds::erase_entry(int key) {
  const auto it = jobs_.find(key);
  if (it == jobs_.end()) {
    return;
  }
  if (it->second.b >= 0) {
    pairs_.erase_key(it->second.a, it->second.b);
  }
  jobs_.erase(it);
  std::erase(order_, key);
  allocation_.erase(key);
  previous_.erase(key);
}

void Rounds::remove_job(int id) {
  if (jobs_.count(id) == 0) {
    return;
  }
  std::vector<int> gone = {id};
  for (const auto& [key, s] : jobs_) {
    if (s.b >= 0 && (s.a == id || s.b == id)) {
      gone.push_back(key);
    }
  }
  for (const int key : gone) {
    erase_entry(key);
  }
  pairs_.leave(id);
  need_update_ = true;
}

int Rounds::pair_key(int a, int b) const {
  return pairs_.key(a, b);
}

// The new allocation: the jobs' rows, and the pairs', each pair an entry (new ones from half a
// round received, as Gavel's time_so_far after its reset); pairs it no longer holds leave.
void Rounds::set_allocation(RoundAllocation x) {
  allocation_ = std::move(x.single);
  std::erase_if(allocation_,
                [&](const auto& e) { return e.first < 0 || jobs_.count(e.first) == 0; });
  std::set<int> kept;
  for (RoundPair& p : x.pairs) {
    if (p.a == p.b || jobs_.count(p.a) == 0 || jobs_.count(p.b) == 0 || p.a < 0 || p.b < 0 ||
        p.share.size() != types_.size() || p.throughput.size() != types_.size()) {
      continue;
    }
    int key = pair_key(p.a, p.b);
    if (key == 0 && pairs_.all_pairs()) {
      key = make_pair_entry(p.a, p.b);
    } else if (key == 0) {
      key = pairs_.new_key(p.a, p.b);
      const long first = std::min(pairs_.arrival(p.a), pairs_.arrival(p.b));
      const long second = std::max(pairs_.arrival(p.a), pairs_.arrival(p.b));
      add_entry(JobState{.job = RoundJob{.id = key,
                                         .scale_factor = jobs_.at(p.a).job.scale_factor,
                                         .throughput = std::move(p.throughput)},
                         .a = p.a,
                         .b = p.b,
                         .time = {},
                         .priority = {},
                         .deficit = {},
                         .position = {second, first}});
      for (std::size_t t = 0; t < types_.size(); ++t) {
        worker_time_[t] += config_.round_s / 2.0;
      }
    }
    allocation_[key] = std::move(p.share);
    kept.insert(key);
  }
  std::vector<int> dropped;
  for (const auto& [key, s] : jobs_) {
    if (s.b >= 0 && kept.count(key) == 0 && !pairs_.all_pairs()) {  // all pairs stay entries
      dropped.push_back(key);
    }
  }
  for (const int key : dropped) {
    for (std::size_t t = 0; t < types_.size(); ++t) {
      worker_time_[t] -= jobs_.at(key).time[t];
    }
    erase_entry(key);
  }
}

void Rounds::record(int id, std::size_t type, double seconds) {
  const auto it = jobs_.find(id);
  if (it != jobs_.end() && type < types_.size()) {
    it->second.time[type] += seconds;
    worker_time_[type] += seconds;
  }
}

double Rounds::priority(int id, std::size_t type) const {
  const auto it = jobs_.find(id);
  return it == jobs_.end() ? 0.0 : it->second.priority.at(type);
}

double Rounds::deficit(int id, std::size_t type) const {
  const auto it = jobs_.find(id);
  return it == jobs_.end() ? 0.0 : it->second.deficit.at(type);
}

void Rounds::reset(double now) {
  const double elapsed = now - last_reset_;
  for (std::size_t t = 0; t < types_.size(); ++t) {
    worker_time_[t] = 0.0;
    for (const int id : order_) {
      JobState& s = jobs_.at(id);
      const double received = s.time[t] - config_.round_s / 2.0;
      const auto a = allocation_.find(id);
      const double should = a == allocation_.end() ? 0.0 : a->second[t] * elapsed;
      s.deficit[t] += should - received;
      s.time[t] = config_.round_s / 2.0;
      worker_time_[t] += s.time[t];
    }
  }
  last_reset_ = now;
  pairs_.reset();
}

void Rounds::update_priorities() {
  for (std::size_t t = 0; t < types_.size(); ++t) {
    for (const int id : order_) {
      JobState& s = jobs_.at(id);
      const double fraction = worker_time_[t] == 0.0 ? 0.0 : s.time[t] / worker_time_[t];
      const auto a = allocation_.find(id);
      const double x = a == allocation_.end() ? 0.0 : a->second[t];
      double p = x * 1e9;
      if (x == 0.0 || s.job.throughput[t] == 0.0) {
        p = 0.0;
      } else if (fraction > 0.0) {
        p = x / fraction;
      }
      s.priority[t] = p;
    }
  }
}

std::vector<std::size_t> Rounds::type_order() {
  std::vector<std::size_t> order(types_.size());
  for (std::size_t t = 0; t < order.size(); ++t) {
    order[t] = t;
  }
  if (config_.shuffle_types) {  // Fisher-Yates from the end, as Python's random.shuffle walks
    for (std::size_t i = order.size(); i-- > 1;) {
      std::swap(order[i], order[rng_.uniform_int(i + 1)]);
    }
  }
  return order;
}

std::vector<std::vector<int>> Rounds::select(const std::vector<std::size_t>& order) {
  std::vector<std::vector<int>> chosen(types_.size());
  std::vector<long long> left(types_.size(), 0);
  for (std::size_t t = 0; t < types_.size(); ++t) {
    for (const auto& server : servers_[t]) {
      left[t] += static_cast<long long>(server.size());
    }
  }
  // Pairs that are not entries have priority 0, X 0 and a deficit of 0 or half a round: they
  // join the candidates where those keys begin.
  const std::tuple<double, double, double> latent_from{0.0, config_.round_s / 2.0, 0.0};
  const auto by_key = [](const RoundCandidate& x, const RoundCandidate& y) {
    return x.key > y.key || (x.key == y.key && x.position < y.position);
  };
  std::set<int> taken;
  for (const std::size_t t : order) {
    std::vector<RoundCandidate> queue = candidates(t);
    // Whether the latent pairs are merged in (or have none to merge: FIFO runs no entry of
    // priority 0).
    bool merged = !pairs_.all_pairs() || config_.fifo;
    for (std::size_t i = 0; i <= queue.size(); ++i) {
      if (!merged && (i == queue.size() || queue[i].key <= latent_from)) {
        merged = true;
        std::vector<RoundCandidate> more = latent_pairs(t, taken, left[t]);
        if (!more.empty()) {
          more.insert(more.end(), queue.begin() + static_cast<std::ptrdiff_t>(i), queue.end());
          std::stable_sort(more.begin(), more.end(), by_key);
          queue.resize(i);
          queue.insert(queue.end(), more.begin(), more.end());
        }
      }
      if (i == queue.size()) {
        break;
      }
      const RoundCandidate& c = queue[i];
      const JobState* s = c.latent ? nullptr : &jobs_.at(c.id);
      const int a = s != nullptr ? s->a : c.a;
      const int b = s != nullptr ? s->b : c.b;
      const int sf = jobs_.at(a).job.scale_factor;
      const double tput =
          s != nullptr ? s->job.throughput[t] : pairs_.throughput(a, b, types_.size())[t];
      if (left[t] == 0 || taken.count(a) != 0 || taken.count(b) != 0 || tput <= 0.0 ||
          (config_.fifo && std::get<0>(c.key) <= 0.0) || sf > left[t]) {
        continue;
      }
      left[t] -= sf;
      taken.insert(a);
      if (b >= 0) {
        taken.insert(b);
      }
      chosen[t].push_back(c.latent ? make_pair_entry(a, b) : c.id);
    }
  }
  return chosen;
}

std::vector<Placement> Rounds::place(const std::vector<std::vector<int>>& chosen) {
  // Gavel places only what the last allocation holds; a packing policy's holds every pair of the
  // jobs it was computed for.
  const auto in_allocation = [this](int id) {
    const JobState& s = jobs_.at(id);
    return allocation_.count(id) != 0 ||
           (pairs_.all_pairs() && s.b >= 0 && allocation_.count(s.a) != 0 &&
            allocation_.count(s.b) != 0);
  };
  std::vector<Placement> out;
  for (std::size_t t = 0; t < types_.size(); ++t) {
    std::vector<int> jobs = chosen[t];
    std::stable_sort(jobs.begin(), jobs.end(), [&](int a, int b) {
      return jobs_.at(a).job.scale_factor > jobs_.at(b).job.scale_factor;
    });
    auto servers = servers_[t];
    std::size_t server = 0;
    std::set<int> used;
    std::map<int, Placement> placed;
    std::size_t begin = 0;
    while (begin < jobs.size()) {  // one scale factor at a time, largest first
      const int sf = jobs_.at(jobs[begin]).job.scale_factor;
      std::size_t end = begin;
      while (end < jobs.size() && jobs_.at(jobs[end]).job.scale_factor == sf) {
        ++end;
      }
      for (std::size_t i = begin; i < end; ++i) {  // lease extensions first
        const auto prev = previous_.find(jobs[i]);
        if (prev == previous_.end() || prev->second.type != t ||
            std::any_of(prev->second.gpus.begin(), prev->second.gpus.end(),
                        [&](int g) { return used.count(g) != 0; })) {
          continue;
        }
        placed[jobs[i]] =
            Placement{.job = jobs[i], .type = t, .gpus = prev->second.gpus, .extended = true};
        used.insert(prev->second.gpus.begin(), prev->second.gpus.end());
      }
      for (std::size_t i = begin; i < end; ++i) {  // then server by server
        if (placed.count(jobs[i]) != 0 || !in_allocation(jobs[i])) {
          continue;
        }
        Placement p{.job = jobs[i], .type = t, .gpus = {}, .extended = false};
        while (static_cast<int>(p.gpus.size()) < sf && server < servers.size()) {
          if (servers[server].empty()) {
            ++server;
            continue;
          }
          const int gpu = servers[server].front();
          if (used.insert(gpu).second) {
            p.gpus.push_back(gpu);
          }
          servers[server].erase(servers[server].begin());
        }
        if (static_cast<int>(p.gpus.size()) != sf) {
          throw std::logic_error("gavel rounds: could not place job " + std::to_string(jobs[i]));
        }
        placed[jobs[i]] = std::move(p);
      }
      begin = end;
    }
    for (const int id : jobs) {
      if (placed.count(id) != 0) {
        out.push_back(placed.at(id));
      }
    }
  }
  return out;
}

std::vector<Placement> Rounds::schedule(double now, const AllocateFn& allocate) {
  const bool interval = now - last_reset_ >= config_.min_reset_interval_s || last_reset_ == 0.0;
  if (need_update_ && interval) {
    reset(now);
    set_allocation(allocate());
    need_update_ = false;
  }
  update_priorities();
  const std::vector<std::size_t> order = type_order();
  return members(extend(place(select(order))));
}

std::vector<Placement> Rounds::schedule_chosen(const std::vector<std::vector<int>>& chosen) {
  if (chosen.size() != types_.size()) {
    throw std::invalid_argument("gavel rounds: a choice per GPU type expected");
  }
  allocation_.clear();
  for (std::size_t t = 0; t < types_.size(); ++t) {
    std::size_t gpus = 0;
    for (const auto& server : servers_[t]) {
      gpus += server.size();
    }
    std::size_t asked = 0;
    for (const int id : chosen[t]) {
      const auto it = jobs_.find(id);
      if (it == jobs_.end() || allocation_.count(id) != 0) {
        throw std::invalid_argument("gavel rounds: chosen job " + std::to_string(id) +
                                    " is not here or chosen twice");
      }
      asked += static_cast<std::size_t>(it->second.job.scale_factor);
      allocation_[id] = std::vector<double>(types_.size(), 0.0);
      allocation_[id][t] = 1.0;
    }
    if (asked > gpus) {
      throw std::invalid_argument("gavel rounds: the chosen jobs need more GPUs of " + types_[t] +
                                  " than it has");
    }
  }
  return members(extend(place(chosen)));
}

std::vector<Placement> Rounds::members(std::vector<Placement> placements) const {
  std::vector<Placement> out;
  for (Placement& p : placements) {
    const JobState& s = jobs_.at(p.job);
    p.entry = p.job;
    if (s.b < 0) {
      out.push_back(std::move(p));
      continue;
    }
    Placement second = p;
    p.job = s.a;
    p.partner = s.b;
    second.job = s.b;
    second.partner = s.a;
    out.push_back(std::move(p));
    out.push_back(std::move(second));
  }
  return out;
}

std::vector<Placement> Rounds::extend(std::vector<Placement> placements) {
  for (const auto& [id, p] : previous_) {
    opportunities_ += jobs_.count(id) != 0 ? 1 : 0;
  }
  // A lease is extended when the job has exactly the GPUs of its last round (Gavel compares the
  // sets, however the placement came to them).
  for (Placement& p : placements) {
    const auto prev = previous_.find(p.job);
    p.extended = prev != previous_.end() &&
                 std::set<int>(prev->second.gpus.begin(), prev->second.gpus.end()) ==
                     std::set<int>(p.gpus.begin(), p.gpus.end());
    extensions_ += p.extended ? 1 : 0;
  }
  previous_.clear();
  for (const Placement& p : placements) {
    previous_[p.job] = p;
  }
  return placements;
}

}  // namespace tidesim::gavel
