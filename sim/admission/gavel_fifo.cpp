#include "tidesim/sim/admission/gavel_fifo.hpp"

#include <deque>

namespace tidesim::gavel {

namespace {

// The type the head job goes to among `room` (types with enough free GPUs), or none.
std::size_t pick(const AllocationJob& job, const std::vector<std::size_t>& room, bool perf,
                 RandomStream& rng) {
  if (!perf) {
    return room[rng.uniform_int(room.size())];
  }
  std::size_t best = room.front();
  for (const std::size_t t : room) {
    if (job.throughput[t] > job.throughput[best]) {
      best = t;
    }
  }
  return best;
}

}  // namespace

Allocation Fifo::allocate(const AllocationProblem& p) {
  check_problem(p, perf_ ? "fifo_perf" : "fifo");
  if (perf_) {
    placed_.clear();
  }
  std::map<int, std::size_t> index;  // job id -> row
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    index[p.jobs[j].id] = j;
  }
  std::vector<long long> free(p.cluster.gpus.begin(), p.cluster.gpus.end());
  std::deque<std::size_t> queue;
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    if (placed_.count(p.jobs[j].id) == 0) {
      queue.push_back(j);
    }
  }
  // Jobs that keep their type hold its GPUs; an ended job's type goes first to the queue's head.
  // (Over the jobs placed before this call, by id: a job placed in this loop is not visited.)
  const std::map<int, std::size_t> before = placed_;
  for (const auto& [id, type] : before) {
    const auto row = index.find(id);
    if (row != index.end()) {
      free[type] -= p.jobs[row->second].scale_factor;
      continue;
    }
    placed_.erase(id);
    if (!queue.empty()) {
      const AllocationJob& head = p.jobs[queue.front()];
      if (head.scale_factor <= free[type] && head.throughput[type] > 0.0) {
        placed_[head.id] = type;
        free[type] -= head.scale_factor;
        queue.pop_front();
      }
    }
  }
  while (!queue.empty()) {
    const AllocationJob& job = p.jobs[queue.front()];
    std::vector<std::size_t> room;
    for (std::size_t t = 0; t < free.size(); ++t) {
      if (free[t] > 0 && free[t] >= job.scale_factor) {
        room.push_back(t);
      }
    }
    if (room.empty()) {
      break;
    }
    queue.pop_front();
    const std::size_t type = pick(job, room, perf_, rng_);
    if (job.throughput[type] > 0.0) {
      placed_[job.id] = type;
      free[type] -= job.scale_factor;
    }
  }
  Allocation x(p.jobs.size(), std::vector<double>(p.cluster.gpus.size(), 0.0));
  for (const auto& [id, type] : placed_) {
    x[index.at(id)][type] = 1.0;
  }
  return x;
}

}  // namespace tidesim::gavel
