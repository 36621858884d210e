#include "tidesim/sim/admission/builtin_job_policies.hpp"

#include <algorithm>
#include <tuple>

namespace tidesim {

bool FifoPolicy::before(const JobView& a, const JobView& b) const {
  (void)a;
  (void)b;
  return false;  // submission order only
}

bool SjfPolicy::before(const JobView& a, const JobView& b) const {
  return a.estimate_s < b.estimate_s;
}

bool SrtfPolicy::before(const JobView& a, const JobView& b) const {
  return a.remaining_s < b.remaining_s;
}

TiresiasPolicy::TiresiasPolicy(const AdmissionConfig& config)
    : OrderedJobPolicy(true, config.backfill),
      thresholds_(config.thresholds),
      starvation_limit_(config.starvation_limit),
      interval_(config.interval) {}

TiresiasPolicy::Entry& TiresiasPolicy::at(int id) {
  const auto i = static_cast<std::size_t>(id);
  if (i >= entries_.size()) {
    entries_.resize(i + 1);
  }
  return entries_[i];
}

void TiresiasPolicy::set_entry(int id, const Entry& e) {
  at(id) = e;
  at(id).known = true;
  next_seq_ = std::max(next_seq_, e.queue_seq + 1);
}

void TiresiasPolicy::prepare(const JobPolicyState& state) {
  // New jobs join queue 0 at its back, in submission order.
  std::vector<const JobView*> fresh;
  for (const JobView& j : state.jobs) {
    if (!at(j.id).known) {
      fresh.push_back(&j);
    }
  }
  std::sort(fresh.begin(), fresh.end(),
            [](const JobView* a, const JobView* b) { return a->order < b->order; });
  for (const JobView* j : fresh) {
    Entry& e = at(j->id);
    e.known = true;
    e.queue = 0;
    e.queue_seq = next_seq_++;
    e.accounted = state.now;
  }
  // The times since the last decision (the admitted state changes only at decisions).
  for (const JobView& j : state.jobs) {
    Entry& e = at(j.id);
    const double dt = to_seconds(state.now - e.accounted);
    e.accounted = state.now;
    if (j.admitted) {
      e.service_gpu_s += dt * j.gpus;
      e.executed_s += dt;
    } else if (e.executed_s > 0) {
      e.starving_s += dt;
    }
  }
  moved_ = 0;
  const int last = static_cast<int>(thresholds_.size());
  for (const JobView& j : state.jobs) {
    Entry& e = at(j.id);
    // Demotion (simulator/tiresias.py: gputime >= _queue_threshold -> Q1).
    int q = e.queue;
    while (q < last && e.service_gpu_s >= thresholds_[static_cast<std::size_t>(q)]) {
      ++q;
    }
    if (q != e.queue) {
      e.queue = q;
      e.queue_seq = next_seq_++;
      ++moved_;
      continue;
    }
    // Starvation promotion (STARVELIMIT; the artifact's _solve_starvation).
    if (starvation_limit_ > 0 && !j.admitted && e.queue > 0 && e.executed_s > 0 &&
        e.starving_s >= starvation_limit_ * e.executed_s) {
      e.queue = 0;
      e.queue_seq = next_seq_++;
      e.service_gpu_s = 0;
      e.executed_s = 0;
      e.starving_s = 0;
      ++moved_;
    }
  }
}

bool TiresiasPolicy::before(const JobView& a, const JobView& b) const {
  const Entry& x = entry(a.id);
  const Entry& y = entry(b.id);
  return std::tie(x.queue, x.queue_seq, a.order) < std::tie(y.queue, y.queue_seq, b.order);
}

}  // namespace tidesim
