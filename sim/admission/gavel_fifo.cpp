#include "tidesim/sim/admission/gavel_fifo.hpp"

#include <algorithm>
#include <deque>
#include <optional>

namespace tidesim::gavel {

namespace {

// The GPU types with free GPUs, sorted by name as Gavel's `available_worker_types.sort()`.
std::vector<std::size_t> available_types(const AllocationProblem& p,
                                         const std::vector<long long>& free) {
  std::vector<std::size_t> types;
  for (std::size_t t = 0; t < free.size(); ++t) {
    if (free[t] > 0) {
      types.push_back(t);
    }
  }
  std::sort(types.begin(), types.end(), [&p](std::size_t a, std::size_t b) {
    return p.cluster.gpu_types[a] < p.cluster.gpu_types[b];
  });
  return types;
}

}  // namespace

// Gavel's `while len(queue) > 0 and len(available_worker_types) > 0` loop of
// FIFOPolicy.get_allocation (policies/fifo.py @c4fa400), statement by statement: `room` is
// `available_worker_types_with_scale_factor`, `index` its `original_..._mapping`. The perf mode
// takes the fastest type of `room` (the first by name on a tie); the base mode draws an index
// into `room` but places the job on `worker_type` as the enumerate loop over the available types
// leaves it, the last available type by name, whether or not it has the job's GPUs free (its
// count can go below 0, and the type then stays in the list), and drops the drawn index's type
// from the list when the placed type's count reaches exactly 0.
void Fifo::walk(const AllocationProblem& p, std::deque<std::size_t>& queue,
                std::vector<long long>& free) {
  std::vector<std::size_t> available = available_types(p, free);
  while (!queue.empty() && !available.empty()) {
    const AllocationJob& job = p.jobs[queue.front()];
    queue.pop_front();
    std::vector<std::size_t> room;
    std::vector<std::size_t> index;
    for (std::size_t i = 0; i < available.size(); ++i) {
      if (free[available[i]] >= job.scale_factor) {
        room.push_back(available[i]);
        index.push_back(i);
      }
    }
    if (room.empty()) {
      break;
    }
    std::size_t drawn = 0;
    std::size_t type = available.back();
    if (!perf_) {
      drawn = rng_.randbelow(static_cast<std::uint32_t>(room.size()));
    } else {
      double best = -1.0;
      for (std::size_t i = 0; i < room.size(); ++i) {
        if (job.throughput[room[i]] > best) {
          best = job.throughput[room[i]];
          type = room[i];
          drawn = i;
        }
      }
    }
    if (job.throughput[type] > 0.0) {
      placed_[job.id] = type;
      free[type] -= job.scale_factor;
      if (free[type] == 0) {
        available.erase(available.begin() + static_cast<std::ptrdiff_t>(index[drawn]));
      }
    }
  }
}

Allocation Fifo::allocate(const AllocationProblem& p) {
  const char* policy = packing_threshold_ > 0.0 ? "fifo_packed" : perf_ ? "fifo_perf" : "fifo";
  check_problem(p, policy);
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
  walk(p, queue, free);
  left_ = std::move(queue);
  Allocation x(p.jobs.size(), std::vector<double>(p.cluster.gpus.size(), 0.0));
  for (const auto& [id, type] : placed_) {
    x[index.at(id)][type] = 1.0;
  }
  return x;
}

Fifo Fifo::packing(double threshold) {
  Fifo f(true, 0);
  f.packing_threshold_ = threshold;
  return f;
}

std::vector<PairShare> Fifo::pack(const AllocationProblem& p, std::deque<std::size_t> queue,
                                  std::vector<std::size_t>& alone) const {
  std::vector<PairShare> pairs;
  const std::size_t types = p.cluster.gpus.size();
  while (!queue.empty()) {
    const std::size_t next = queue.front();
    queue.pop_front();
    double best = packing_threshold_;
    std::optional<std::size_t> partner;  // index into `alone`
    for (std::size_t i = 0; i < alone.size(); ++i) {
      const std::size_t placed = alone[i];
      const std::size_t type = placed_.at(p.jobs[placed].id);
      if (p.jobs[placed].scale_factor != p.jobs[next].scale_factor ||
          !(p.jobs[next].throughput[type] > 0.0)) {
        continue;
      }
      const auto c = p.colocated ? p.colocated(placed, next, type) : std::nullopt;
      if (!c) {
        continue;
      }
      double normalised = 0.0;
      if (c->first > 0.0) {
        normalised += c->first / p.jobs[placed].throughput[type];
      }
      if (c->second > 0.0) {
        normalised += c->second / p.jobs[next].throughput[type];
      }
      if (normalised > best) {
        best = normalised;
        partner = i;
      }
    }
    if (!partner) {
      break;  // no job jumps ahead in the queue
    }
    const std::size_t placed = alone[*partner];
    PairShare pair{.a = placed, .b = next, .share = std::vector<double>(types, 0.0)};
    pair.share[placed_.at(p.jobs[placed].id)] = 1.0;
    pairs.push_back(std::move(pair));
    alone.erase(alone.begin() + static_cast<std::ptrdiff_t>(*partner));
  }
  return pairs;
}

PackedAllocation Fifo::allocate_packed(const AllocationProblem& p) {
  PackedAllocation out{.single = allocate(p), .pairs = {}};
  if (packing_threshold_ <= 0.0) {
    return out;
  }
  // The jobs placed alone, in placement order: the perf mode places them in the problem's order.
  std::vector<std::size_t> alone;
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    if (placed_.count(p.jobs[j].id) != 0) {
      alone.push_back(j);
    }
  }
  out.pairs = pack(p, left_, alone);
  for (const PairShare& pair : out.pairs) {
    std::fill(out.single[pair.a].begin(), out.single[pair.a].end(), 0.0);
  }
  return out;
}

}  // namespace tidesim::gavel
