#include "tidesim/sim/admission/gavel_gandiva.hpp"

#include <algorithm>
#include <set>

namespace tidesim::gavel {

namespace {

// policies/gandiva.py `_get_normalized_throughput`: over every type and both jobs, co-located /
// isolated throughput; 0 as soon as a co-located throughput is not > 0 (or not measured), or the
// job's isolated throughput there is 0.
double normalized_throughput(const AllocationProblem& p, std::size_t a, std::size_t b) {
  double sum = 0.0;
  for (std::size_t t = 0; t < p.cluster.gpus.size(); ++t) {
    const auto pair = p.colocated ? p.colocated(a, b, t) : std::nullopt;
    if (!pair || !(pair->first > 0.0) || !(pair->second > 0.0) ||
        !(p.jobs[a].throughput[t] > 0.0) || !(p.jobs[b].throughput[t] > 0.0)) {
      return 0.0;
    }
    sum += pair->first / p.jobs[a].throughput[t] + pair->second / p.jobs[b].throughput[t];
  }
  return sum;
}

// The equal split of the GPUs over `count` combinations, for one of scale factor `sf`.
std::vector<double> equal_share(const AllocationCluster& c, std::size_t count, int sf) {
  std::vector<double> row;
  double sum = 0.0;
  for (const int gpus : c.gpus) {
    row.push_back(static_cast<double>(gpus) / static_cast<double>(count) / sf);
    sum += row.back();
  }
  for (double& v : row) {
    v /= std::max(1.0, sum);
  }
  return row;
}

}  // namespace

PackedAllocation Gandiva::allocate(const AllocationProblem& p) {
  check_problem(p, "gandiva");
  std::map<int, std::size_t> row;
  long long requested = 0;
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    row[p.jobs[j].id] = j;
    requested += p.jobs[j].scale_factor;
  }
  // Keep only the pairs whose jobs are both here and that pack well enough.
  std::map<int, std::optional<int>> kept;
  for (const auto& [id, other] : partner_) {
    if (other && row.count(id) != 0 && row.count(*other) != 0 &&
        normalized_throughput(p, row.at(id), row.at(*other)) >= 1.0) {
      kept[id] = other;
    }
  }
  partner_ = std::move(kept);
  PackedAllocation out;
  out.single.assign(p.jobs.size(), std::vector<double>(p.cluster.gpus.size(), 0.0));
  long long available = 0;
  for (const int gpus : p.cluster.gpus) {
    available += gpus;
  }
  if (requested <= available) {
    out.single = isolated(p);
    return out;
  }
  std::vector<int> alone;
  for (const auto& job : p.jobs) {
    if (partner_.count(job.id) == 0) {
      alone.push_back(job.id);
    }
  }
  const std::size_t tries = alone.size();
  for (std::size_t i = 0; alone.size() > 1 && i < tries; ++i) {
    const std::size_t first = rng_.uniform_int(alone.size());
    std::size_t second = rng_.uniform_int(alone.size() - 1);
    second += second >= first ? 1 : 0;
    const int a = alone[first];
    const int b = alone[second];
    if (p.jobs[row.at(a)].scale_factor != p.jobs[row.at(b)].scale_factor) {
      continue;
    }
    partner_[a] = b;
    partner_[b] = a;
    std::erase(alone, a);
    std::erase(alone, b);
  }
  for (const int id : alone) {
    partner_[id] = std::nullopt;
  }
  std::size_t combinations = 0;
  for (const auto& [id, other] : partner_) {
    combinations += (!other || id < *other) ? 1 : 0;
  }
  for (const auto& [id, other] : partner_) {
    const std::size_t j = row.at(id);
    const auto share = equal_share(p.cluster, combinations, p.jobs[j].scale_factor);
    if (!other) {
      out.single[j] = share;
    } else if (id < *other) {
      out.pairs.push_back({.a = j, .b = row.at(*other), .share = share});
    }
  }
  return out;
}

}  // namespace tidesim::gavel
