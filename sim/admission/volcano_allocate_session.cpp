// The session's view of a job for Volcano's allocate action: its sub-jobs
// (pkg/scheduler/api/job_info.go getOrCreateSubJob, sub_job_info.go NewSubJobInfo,
// getSubJobMatchValues), the network topology as the session adjusts it
// (framework/session.go adjustNetworkTopologySpec, translateHighestTierNameToAllowed,
// convertSoftToHardTopology), the allocated HyperNodes it removes and recovers
// (removeInvalidAllocatedHyperNode, recoverAllocatedHyperNode), the worksheet's order
// (allocate.go organizeJobWorksheet, the gang plugin's SubJobOrderFn), the gang's readiness
// (gang.go JobReadyFn, SubJobReadyFn; JobInfo.CheckSubJobValid, checkSubJobCondition) and its
// unschedulable message (gang.go, api.JobInfo.FitError).
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "tidesim/sim/admission/volcano_allocate.hpp"

namespace tidesim::volcano {
namespace {

// getSubJobMatchValues: the values of the policy's matchLabelKeys on the task, when the task
// matches the policy's labelSelector and carries each key with a non-empty value; empty when
// it does not match (a policy without matchLabelKeys matches no task).
std::vector<std::string> match_values(const SubGroupPolicy& p, const Task& t) {
  for (const auto& [k, v] : p.match_labels) {
    const auto it = t.labels.find(k);
    if (it == t.labels.end() || it->second != v) {
      return {};
    }
  }
  std::vector<std::string> out;
  for (const std::string& k : p.match_label_keys) {
    const auto it = t.labels.find(k);
    if (it == t.labels.end() || it->second.empty()) {
      return {};
    }
    out.push_back(it->second);
  }
  return out;
}

}  // namespace

int Allocator::hard_tier(const std::optional<NetworkTopology>& t, int soft_limit) const {
  if (!t) {
    return -1;
  }
  if (!t->hard) {
    return soft_limit;  // soft: hard up to the limit
  }
  if (!t->highest_tier_name.empty()) {
    const auto it = tier_names_.find(t->highest_tier_name);
    return it == tier_names_.end() ? -1 : it->second;  // an unknown name: no hard tier
  }
  return t->highest_tier;
}

Allocator::State Allocator::open_session(const JobRequest& job) const {
  State st;
  st.highest = hard_tier(job.topology, tree_.top_tier());
  // Sub-jobs whose topology is soft are bounded by the job's tier (the cluster top without one).
  const int sub_limit = st.highest >= 0 ? st.highest : tree_.top_tier();
  std::map<std::pair<int, std::vector<std::string>>, std::size_t> index;
  for (std::size_t t = 0; t < job.tasks.size(); ++t) {
    st.nodes.push_back(job.tasks[t].node);
    std::pair<int, std::vector<std::string>> key{-1, {}};
    for (std::size_t p = 0; p < job.sub_groups.size() && key.first < 0; ++p) {
      std::vector<std::string> v = match_values(job.sub_groups[p], job.tasks[t]);
      if (!v.empty()) {
        key = {static_cast<int>(p), std::move(v)};
      }
    }
    auto [it, fresh] = index.emplace(key, st.subs.size());
    if (fresh) {
      SubJob sj;
      sj.policy = key.first;
      const std::optional<NetworkTopology>& topo =
          key.first < 0 ? job.topology
                        : job.sub_groups[static_cast<std::size_t>(key.first)].topology;
      if (key.first >= 0) {
        sj.min_available = job.sub_groups[static_cast<std::size_t>(key.first)].sub_group_size;
      } else if (job.sub_groups.empty()) {
        sj.min_available = job.min_available;
      }
      sj.topology = topo.has_value();
      sj.highest = hard_tier(topo, sub_limit);
      st.subs.push_back(sj);
    }
    SubJob& sj = st.subs[it->second];
    sj.tasks.push_back(t);
    if (job.tasks[t].node < 0) {
      sj.queue.push_back(t);
    }
  }
  // CheckSubJobValid and the required sub-jobs (organizeJobWorksheet): for each policy with
  // minSubGroups, the first sub-jobs not yet ready until the ready ones would be enough.
  for (std::size_t p = 0; p < job.sub_groups.size(); ++p) {
    int count = 0;
    int ready = 0;
    for (const SubJob& sj : st.subs) {
      count += sj.policy == static_cast<int>(p) ? 1 : 0;
      ready += sj.policy == static_cast<int>(p) && sub_ready(st, sj) ? 1 : 0;
    }
    st.valid = st.valid && count >= job.sub_groups[p].min_sub_groups;
    for (SubJob& sj : st.subs) {
      if (sj.policy == static_cast<int>(p) && !sub_ready(st, sj) &&
          ready < job.sub_groups[p].min_sub_groups) {
        sj.required = true;
        ++ready;
      }
    }
  }
  for (SubJob& sj : st.subs) {
    sj.listed = !sj.queue.empty();
  }
  st.allocated = tree_.find(job.allocated_hypernode);
  recover_allocated(st, job.topology.has_value());
  return st;
}

void Allocator::recover_allocated(State& st, bool topology) const {
  bool running = false;
  for (const SubJob& sj : st.subs) {
    topology = topology || sj.topology;
    for (const std::size_t t : sj.tasks) {
      running = running || st.nodes[t] >= 0;
    }
  }
  if (!running) {
    st.allocated = -1;  // no allocated task in the job
  }
  if (!topology) {
    return;
  }
  bool updated = false;
  for (SubJob& sj : st.subs) {
    std::vector<int> placed;
    for (const std::size_t t : sj.tasks) {
      if (st.nodes[t] >= 0) {
        placed.push_back(st.nodes[t]);
      }
    }
    if (!sj.topology || placed.empty()) {
      continue;
    }
    // The lowest-tier HyperNode whose real nodes hold every running task of the sub-job.
    int lowest = -1;
    for (int h = 0; h < tree_.size(); ++h) {
      const bool all =
          std::all_of(placed.begin(), placed.end(), [&](int n) { return tree_.contains(h, n); });
      if (all && (lowest < 0 || tree_.tier(h) < tree_.tier(lowest))) {
        lowest = h;
      }
    }
    if (lowest != sj.allocated) {
      updated = true;
      sj.allocated = lowest;
    }
  }
  if (st.allocated < 0 || updated) {
    int l = -1;
    for (const SubJob& sj : st.subs) {
      if (sj.allocated >= 0) {
        l = l < 0 ? sj.allocated : tree_.lca(l, sj.allocated);
      }
    }
    st.allocated = l;
  }
}

bool Allocator::sub_ready(const State& st, const SubJob& sj) const {
  int ready = 0;
  for (const std::size_t t : sj.tasks) {
    ready += st.nodes[t] >= 0 ? 1 : 0;
  }
  return ready >= sj.min_available;
}

bool Allocator::job_ready(const JobRequest& job, const State& st) const {
  int ready = 0;
  for (const int n : st.nodes) {
    ready += n >= 0 ? 1 : 0;
  }
  if (ready < job.min_available) {
    return false;
  }
  for (std::size_t p = 0; p < job.sub_groups.size(); ++p) {
    int subs = 0;
    for (const SubJob& sj : st.subs) {
      subs += sj.policy == static_cast<int>(p) && sub_ready(st, sj) ? 1 : 0;
    }
    if (subs < job.sub_groups[p].min_sub_groups) {
      return false;
    }
  }
  return true;
}

std::size_t Allocator::pop_sub_job(std::vector<std::size_t>& waiting, const State& st) const {
  // Required sub-jobs first, then those not ready (the gang plugin's SubJobOrderFn); equal ones
  // in the order of their first task (Volcano's priority queue leaves them to the heap).
  const auto before = [&](std::size_t a, std::size_t b) {
    const SubJob& x = st.subs[a];
    const SubJob& y = st.subs[b];
    if (x.required != y.required) {
      return x.required;
    }
    const bool rx = sub_ready(st, x);
    const bool ry = sub_ready(st, y);
    if (rx != ry) {
      return !rx;
    }
    return a < b;
  };
  const auto it = std::min_element(waiting.begin(), waiting.end(), before);
  const std::size_t s = *it;
  waiting.erase(it);
  return s;
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
