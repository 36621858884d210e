// The job and sub-job levels of Volcano's allocate action (allocate.go allocateForJob,
// allocateForSubJob, selectBestHyperNodeForJob / ForSubJob; network_topology_aware.go
// HyperNodeOrderFn, hyperNodeGradientFn, getSearchRoot) and the gang's unschedulable message
// (pkg/scheduler/plugins/gang/gang.go, api.JobInfo.FitError).
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "tidesim/sim/admission/volcano_allocate.hpp"

namespace tidesim::volcano {
namespace {

constexpr double kMaxNodeScore = 100.0;
constexpr double kNone = -std::numeric_limits<double>::infinity();

}  // namespace

std::vector<double> Allocator::hypernode_scores(const JobRequest& job,
                                                const std::vector<int>& hs) const {
  Amounts request;  // every task of the sub-job, running ones included
  for (const Task& t : job.tasks) {
    for (const auto& [k, v] : t.request) {
      request[k] += v;
    }
  }
  std::vector<double> s;
  for (const int h : hs) {
    s.push_back(binpack(request, h, {}));
  }
  const double best = *std::max_element(s.begin(), s.end());
  if (std::count(s.begin(), s.end(), best) > 1) {
    for (std::size_t i = 0; i < hs.size(); ++i) {
      if (s[i] != best) {
        continue;
      }
      int in = 0;  // the job's running tasks in the HyperNode
      for (const Task& t : job.tasks) {
        in += t.node >= 0 && tree_.contains(hs[i], t.node) ? 1 : 0;
      }
      s[i] += job.tasks.empty() ? 1.0 : static_cast<double>(in) / job.tasks.size();
    }
  }
  for (double& v : s) {
    v *= kMaxNodeScore * args_.weight;
  }
  return s;
}

Allocator::Plan Allocator::place_sub_job(const JobRequest& job, int h, int highest,
                                         double& score) const {
  score = kNone;
  std::vector<std::vector<int>> grads{{h}};
  if (highest >= 0) {
    int root = h;
    const int allocated = tree_.find(job.allocated_hypernode);
    if (allocated >= 0) {
      // getSearchRoot: the intersection of `h` with the highest allowed ancestor of the
      // allocated HyperNode.
      int ha = -1;
      for (const int a : tree_.ancestors(allocated)) {
        if (tree_.tier(a) > highest) {
          break;
        }
        ha = a;
      }
      const int l = ha < 0 ? -1 : tree_.lca(h, ha);
      if (l == ha) {
        root = h;
      } else if (l == h) {
        root = ha;
      } else {
        return {};
      }
    }
    Amounts min;
    int counted = 0;
    for (const Task& t : job.tasks) {
      if (counted++ < job.min_available) {
        for (const auto& [k, v] : t.request) {
          min[k] += v;
        }
      }
    }
    grads = gradients(root, highest, allocated, min);
  }
  for (const std::vector<int>& g : grads) {
    std::vector<int> ok;
    std::vector<Plan> plans;
    for (const int c : g) {
      Plan p = place_tasks(job, c);
      if (p.ready) {
        ok.push_back(c);
        plans.push_back(std::move(p));
      }
    }
    if (ok.empty()) {
      continue;
    }
    const std::vector<double> s = hypernode_scores(job, ok);
    const auto best = static_cast<std::size_t>(std::max_element(s.begin(), s.end()) - s.begin());
    score = s[best];
    // The sub-job's allocated HyperNode becomes the LCA of the old one and the chosen one.
    const int before = tree_.find(job.allocated_hypernode);
    plans[best].allocated = before < 0 ? ok[best] : tree_.lca(before, ok[best]);
    return plans[best];
  }
  return {};
}

int Allocator::highest_tier(const JobRequest& job) const {
  if (!job.topology) {
    return -1;
  }
  if (!job.topology->hard) {
    return tree_.top_tier();  // soft: hard up to the cluster top
  }
  if (!job.topology->highest_tier_name.empty()) {
    const auto it = tier_names_.find(job.topology->highest_tier_name);
    return it == tier_names_.end() ? -1 : it->second;
  }
  return job.topology->highest_tier;
}

Allocation Allocator::allocate_gang(const JobRequest& job) const {
  Allocation out;
  const int highest = highest_tier(job);
  std::vector<std::vector<int>> grads{{0}};
  if (highest >= 0) {
    Amounts min;
    int counted = 0;
    for (const Task& t : job.tasks) {
      if (counted++ < job.min_available) {
        for (const auto& [k, v] : t.request) {
          min[k] += v;
        }
      }
    }
    const int allocated = tree_.find(job.allocated_hypernode);
    int root = 0;
    if (allocated >= 0) {
      root = -1;
      for (const int a : tree_.ancestors(allocated)) {
        if (tree_.tier(a) > highest) {
          break;
        }
        root = a;
      }
    }
    grads = root < 0 ? std::vector<std::vector<int>>{} : gradients(root, highest, allocated, min);
  }
  for (const std::vector<int>& g : grads) {
    double best = kNone;
    Plan chosen;
    int chosen_h = -1;
    for (const int h : g) {
      double s = kNone;
      Plan p = place_sub_job(job, h, highest, s);
      if (p.ready && s > best) {
        best = s;
        chosen = std::move(p);
        chosen_h = h;
      }
    }
    if (chosen_h >= 0) {
      out.ready = true;
      out.hypernode = chosen_h;
      out.allocated_hypernode = chosen.allocated;
      out.nodes = std::move(chosen.nodes);
      return out;
    }
  }
  out.nodes.assign(job.tasks.size(), -1);
  for (std::size_t t = 0; t < job.tasks.size(); ++t) {
    out.nodes[t] = job.tasks[t].node;
  }
  out.reason = unready_reason(job);
  return out;
}

std::map<std::string, int> tier_names(const std::vector<HyperNodeSpec>& specs) {
  std::map<std::string, int> out;
  for (const HyperNodeSpec& s : specs) {
    if (!s.tier_name.empty()) {
      out.emplace(s.tier_name, s.tier);
    }
  }
  return out;
}

void Allocator::commit(const JobRequest& job, const Allocation& a) {
  for (std::size_t t = 0; t < job.tasks.size(); ++t) {
    if (job.tasks[t].node < 0 && a.nodes[t] >= 0) {
      for (const auto& [k, v] : job.tasks[t].request) {
        used_[static_cast<std::size_t>(a.nodes[t])][k] += v;
      }
    }
  }
}

std::string Allocator::unready_reason(const JobRequest& job) const {
  // gang.go: "%v/%v tasks in gang unschedulable: %v" with JobInfo.FitError's histogram of task
  // statuses and minAvailable, sorted as strings.
  int running = 0;
  for (const Task& t : job.tasks) {
    running += t.node >= 0 ? 1 : 0;
  }
  const int pending = static_cast<int>(job.tasks.size()) - running;
  std::vector<std::string> parts;
  parts.push_back(fmt::format("{} Pending", pending));
  parts.push_back(fmt::format("{} minAvailable", job.min_available));
  if (running > 0) {
    parts.push_back(fmt::format("{} Running", running));
  }
  std::sort(parts.begin(), parts.end());
  std::string histogram;
  for (const std::string& p : parts) {
    histogram += (histogram.empty() ? "" : ", ") + p;
  }
  return fmt::format("{}/{} tasks in gang unschedulable: pod group is not ready, {}",
                     std::max(0, job.min_available - running), job.tasks.size(), histogram);
}

}  // namespace tidesim::volcano
