// The job and sub-job levels of Volcano's allocate action (allocate.go allocateForJob,
// allocateForSubJob, selectBestHyperNodeForJob / ForSubJob; network_topology_aware.go
// HyperNodeOrderFn, hyperNodeGradientFn, getSearchRoot).
#include <algorithm>
#include <limits>

#include "tidesim/sim/admission/volcano_allocate.hpp"

namespace tidesim::volcano {
namespace {

constexpr double kMaxNodeScore = 100.0;
constexpr double kNone = -std::numeric_limits<double>::infinity();

}  // namespace

std::vector<double> Allocator::sub_job_scores(const JobRequest& job, const State& st,
                                              const SubJob& sj, const std::vector<int>& hs) const {
  Amounts request;  // every task of the sub-job, running ones included
  for (const std::size_t t : sj.tasks) {
    for (const auto& [k, v] : job.tasks[t].request) {
      request[k] += v;
    }
  }
  std::vector<double> s;
  for (const int h : hs) {
    s.push_back(binpack(request, h, st.extra));
  }
  const double best = *std::max_element(s.begin(), s.end());
  if (std::count(s.begin(), s.end(), best) > 1) {
    for (std::size_t i = 0; i < hs.size(); ++i) {
      if (s[i] != best) {
        continue;
      }
      int in = 0;  // the sub-job's placed tasks in the HyperNode
      for (const std::size_t t : sj.tasks) {
        in += st.nodes[t] >= 0 && tree_.contains(hs[i], st.nodes[t]) ? 1 : 0;
      }
      s[i] += sj.tasks.empty() ? 1.0 : static_cast<double>(in) / sj.tasks.size();
    }
  }
  for (double& v : s) {
    v *= kMaxNodeScore * args_.weight;
  }
  return s;
}

std::vector<double> Allocator::hypernode_scores(const JobRequest& job,
                                                const std::vector<int>& hs) const {
  JobRequest flat = job;
  flat.sub_groups.clear();
  const State st = open_session(flat);
  return sub_job_scores(flat, st, st.subs.front(), hs);
}

int Allocator::search_root(int available, int highest, int allocated) const {
  if (allocated < 0) {
    return available;
  }
  int ha = -1;  // the highest allowed ancestor of the allocated HyperNode
  for (const int a : tree_.ancestors(allocated)) {
    if (tree_.tier(a) > highest) {
      break;
    }
    ha = a;
  }
  const int l = ha < 0 ? -1 : tree_.lca(available, ha);
  if (l >= 0 && l == ha) {
    return available;
  }
  if (l >= 0 && l == available) {
    return ha;
  }
  return -1;  // no intersection
}

double Allocator::allocate_for_sub_job(const JobRequest& job, State& st, std::size_t s,
                                       int h) const {
  const SubJob& sj = st.subs[s];
  if (sj.queue.empty()) {
    return kNone;
  }
  std::vector<std::vector<int>> grads{{h}};
  if (sj.highest >= 0) {
    const int root = search_root(h, sj.highest, sj.allocated);
    Amounts min;  // SubJobInfo.GetMinResources: every pending task of the sub-job
    for (const std::size_t t : sj.tasks) {
      if (st.nodes[t] < 0) {
        for (const auto& [k, v] : job.tasks[t].request) {
          min[k] += v;
        }
      }
    }
    grads = root < 0 ? std::vector<std::vector<int>>{}
                     : gradients(root, sj.highest, sj.allocated, min, st.extra);
  }
  for (const std::vector<int>& g : grads) {
    std::vector<int> ok;
    std::vector<State> tries;
    for (const int c : g) {
      State u = st;
      if (place_tasks(job, u, s, c)) {
        ok.push_back(c);
        tries.push_back(std::move(u));
      }
    }
    if (ok.empty()) {
      continue;
    }
    const std::vector<double> sc = sub_job_scores(job, st, sj, ok);
    const auto best = static_cast<std::size_t>(std::max_element(sc.begin(), sc.end()) - sc.begin());
    const int before = sj.allocated;
    st = std::move(tries[best]);
    // The sub-job's allocated HyperNode becomes the LCA of the old one and the chosen one.
    st.subs[s].allocated = before < 0 ? ok[best] : tree_.lca(before, ok[best]);
    return sc[best];
  }
  return kNone;
}

bool Allocator::allocate_for_job(const JobRequest& job, State& st) const {
  std::vector<std::vector<int>> grads{{0}};
  if (st.highest >= 0) {
    Amounts min;  // the gang's minimum: its first minAvailable tasks
    int counted = 0;
    for (const Task& t : job.tasks) {
      if (counted++ < job.min_available) {
        for (const auto& [k, v] : t.request) {
          min[k] += v;
        }
      }
    }
    const int root = search_root(0, st.highest, st.allocated);
    grads = root < 0 ? std::vector<std::vector<int>>{}
                     : gradients(root, st.highest, st.allocated, min, st.extra);
  }
  for (const std::vector<int>& g : grads) {
    double best = kNone;
    State chosen;
    int chosen_h = -1;
    for (const int h : g) {
      State t = st;
      std::vector<std::size_t> waiting;
      for (std::size_t s = 0; s < t.subs.size(); ++s) {
        if (t.subs[s].listed) {
          waiting.push_back(s);
        }
      }
      double sum = 0;
      bool any = false;
      while (!waiting.empty()) {
        const std::size_t s = pop_sub_job(waiting, t);
        const double score = allocate_for_sub_job(job, t, s, h);
        if (score == kNone) {
          t.subs[s].listed = false;  // popped, not pushed back
          continue;
        }
        any = true;
        sum += score;
        if (t.subs[s].queue.empty()) {
          t.subs[s].listed = false;
        } else {
          waiting.push_back(s);
        }
        if (job_ready(job, t)) {
          break;
        }
      }
      if (any && job_ready(job, t) && sum > best) {
        best = sum;
        chosen = std::move(t);
        chosen_h = h;
      }
    }
    if (chosen_h >= 0) {
      st = std::move(chosen);
      st.allocated = st.allocated < 0 ? chosen_h : tree_.lca(st.allocated, chosen_h);
      st.chosen = st.chosen < 0 ? chosen_h : st.chosen;
      return true;
    }
  }
  return false;
}

}  // namespace tidesim::volcano
