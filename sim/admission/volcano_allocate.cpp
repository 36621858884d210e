// Volcano's allocate action for one gang with the network-topology-aware plugin
// (volcano_allocate.hpp has the sources). Where Volcano picks at random among equal scores
// (util.SelectBestHyperNodeAndScore, SelectBestNode), this takes the first: HyperNodes in
// breadth-first order with children by name, nodes in the cluster's order.
#include "tidesim/sim/admission/volcano_allocate.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <stdexcept>

namespace tidesim::volcano {
namespace {

constexpr double kMaxNodeScore = 100.0;  // k8s framework.MaxNodeScore

std::int64_t get(const Amounts& a, const std::string& k) {
  const auto it = a.find(k);
  return it == a.end() ? 0 : it->second;
}

void add(Amounts& to, const Amounts& from) {
  for (const auto& [k, v] : from) {
    to[k] += v;
  }
}

int to_int(const std::string& key, const std::string& v) {
  std::size_t used = 0;
  int out = 0;
  try {
    out = std::stoi(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size() || v.empty()) {
    throw std::invalid_argument("argument '" + key + "': expected an integer, not '" + v + "'");
  }
  return out;
}

}  // namespace

PluginArgs plugin_args(const std::map<std::string, std::string>& args) {
  PluginArgs p;
  const auto weight = [&](const std::string& key, int& into) {
    if (const auto it = args.find(key); it != args.end()) {
      const int v = to_int(key, it->second);
      into = v < 0 ? 1 : v;  // Volcano: a negative weight is the default, 1
    }
  };
  weight("weight", p.weight);
  weight("hypernode.binpack.cpu", p.binpack["cpu"]);
  weight("hypernode.binpack.memory", p.binpack["memory"]);
  if (const auto it = args.find("hypernode.binpack.resources"); it != args.end()) {
    std::string list = it->second;
    std::size_t start = 0;
    while (start <= list.size()) {
      std::size_t end = list.find(',', start);
      end = end == std::string::npos ? list.size() : end;
      std::string name = list.substr(start, end - start);
      name.erase(0, name.find_first_not_of(" \t"));
      name.erase(name.find_last_not_of(" \t") + 1);
      if (!name.empty()) {
        p.binpack[name] = 1;
        weight("hypernode.binpack.resources." + name, p.binpack[name]);
      }
      start = end + 1;
    }
  }
  if (const auto it = args.find("hypernode.binpack.normal-pod.enable"); it != args.end()) {
    if (it->second != "true" && it->second != "false") {
      throw std::invalid_argument(
          "argument 'hypernode.binpack.normal-pod.enable': expected true "
          "or false, not '" +
          it->second + "'");
    }
    p.normal_pod_enable = it->second == "true";
  }
  if (const auto it = args.find("hypernode.binpack.normal-pod.fading"); it != args.end()) {
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(it->second, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != it->second.size() || !std::isfinite(v)) {
      throw std::invalid_argument(
          "argument 'hypernode.binpack.normal-pod.fading': expected a "
          "number, not '" +
          it->second + "'");
    }
    p.normal_pod_fading = v < 0 ? 0.8 : v;
  }
  p.node_binpack = binpack_args(args);
  return p;
}

Allocator::Allocator(const HyperNodeTree& tree,
                     std::vector<std::map<std::string, std::string>> labels,
                     std::vector<Amounts> allocatable, std::vector<Amounts> used, PluginArgs args)
    : tree_(tree),
      labels_(std::move(labels)),
      allocatable_(std::move(allocatable)),
      used_(std::move(used)),
      args_(std::move(args)) {}

bool Allocator::fits(const Task& t, int node, const std::map<int, Amounts>& extra) const {
  const auto& labels = labels_[static_cast<std::size_t>(node)];
  for (const auto& [k, v] : t.node_selector) {
    const auto it = labels.find(k);
    if (it == labels.end() || it->second != v) {
      return false;
    }
  }
  const auto x = extra.find(node);
  for (const auto& [k, v] : t.request) {
    const std::int64_t in_use =
        get(used_[static_cast<std::size_t>(node)], k) + (x == extra.end() ? 0 : get(x->second, k));
    if (v > 0 && in_use + v > get(allocatable_[static_cast<std::size_t>(node)], k)) {
      return false;
    }
  }
  return true;
}

std::vector<std::vector<int>> Allocator::gradients(int root, int highest, int allocated,
                                                   const Amounts& min,
                                                   const std::map<int, Amounts>& extra) const {
  std::map<int, std::vector<int>> by_tier;
  std::deque<int> queue{root};
  while (!queue.empty()) {
    const int h = queue.front();
    queue.pop_front();
    bool eligible = tree_.tier(h) <= highest;
    if (eligible && allocated < 0) {
      // Pre-filtering: the gang's minimum resources must fit the HyperNode's idle resources.
      for (const auto& [k, v] : min) {
        std::int64_t idle = 0;
        for (const int n : tree_.nodes(h)) {
          idle += get(allocatable_[static_cast<std::size_t>(n)], k) -
                  get(used_[static_cast<std::size_t>(n)], k);
          if (const auto x = extra.find(n); x != extra.end()) {
            idle -= get(x->second, k);
          }
        }
        eligible = eligible && v <= idle;
      }
    }
    if (eligible) {
      by_tier[tree_.tier(h)].push_back(h);
    }
    for (const int c : tree_.children(h)) {
      queue.push_back(c);
    }
  }
  std::vector<std::vector<int>> out;
  for (auto& [tier, hs] : by_tier) {
    out.push_back(std::move(hs));
  }
  return out;
}

double Allocator::tier_score(int tier) const {
  const std::vector<int>& tiers = tree_.tier_list();
  const int lo = tiers.front();
  const int hi = tiers.back();
  if (lo == hi) {
    return 1.0;
  }
  return tier >= lo && tier <= hi ? static_cast<double>(hi - tier) / (hi - lo) : 0.0;
}

double Allocator::binpack(const Amounts& request, int h,
                          const std::map<int, Amounts>& extra) const {
  double total = 0;
  int weights = 0;
  for (const auto& [k, req] : request) {
    const auto w = args_.binpack.find(k);
    if (w == args_.binpack.end() || req <= 0) {
      continue;
    }
    std::int64_t alloc = 0;
    std::int64_t used = 0;
    for (const int n : tree_.nodes(h)) {
      alloc += get(allocatable_[static_cast<std::size_t>(n)], k);
      used += get(used_[static_cast<std::size_t>(n)], k);
      if (const auto x = extra.find(n); x != extra.end()) {
        used += get(x->second, k);
      }
    }
    if (used + req > alloc) {
      return 0.0;
    }
    total += w->second * static_cast<double>(used + req) / static_cast<double>(alloc);
    weights += w->second;
  }
  return weights > 0 ? total / weights : 0.0;
}

double Allocator::normal_pod_score(const Task& task, int node,
                                   const std::map<int, Amounts>& extra) const {
  const std::vector<int>& tiers = tree_.tier_list();
  double total = 0;
  double weights = 0;
  for (int t = tiers.front(); t <= tiers.back(); ++t) {
    const double w = std::pow(args_.normal_pod_fading, t - 1);
    double s = 1.0;  // no HyperNode of this tier holds the node
    for (int h = 0; h < tree_.size(); ++h) {
      if (tree_.tier(h) == t && tree_.contains(h, node)) {
        s = binpack(task.request, h, extra);
        break;
      }
    }
    total += w * s;
    weights += w;
  }
  return weights > 0 ? total / weights : 0.0;
}

std::vector<double> Allocator::node_scores(const State& st, const SubJob& sj, std::size_t t,
                                           const std::vector<int>& candidates, int allocated,
                                           const JobRequest& job) const {
  std::vector<double> s(candidates.size(), 0.0);
  if (!sj.topology) {
    if (args_.normal_pod_enable) {
      for (std::size_t i = 0; i < candidates.size(); ++i) {
        s[i] = normal_pod_score(job.tasks[t], candidates[i], st.extra);
      }
    }
  } else if (allocated >= 0) {
    // The tier of the LCA of the node's HyperNode and the sub-job's allocated one: lower is
    // better.
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const int h = tree_.hypernode_of(candidates[i]);
      if (h == allocated) {
        s[i] = 1.0;
      } else if (const int l = tree_.lca(h, allocated); l >= 0) {
        s[i] = tier_score(tree_.tier(l));
      }
    }
    const double best = *std::max_element(s.begin(), s.end());
    if (std::count(s.begin(), s.end(), best) > 1) {
      // Ties: the share of the sub-job's tasks already in the node's HyperNode.
      for (std::size_t i = 0; i < candidates.size(); ++i) {
        if (s[i] != best) {
          continue;
        }
        const int h = tree_.hypernode_of(candidates[i]);
        int in = 0;
        for (const std::size_t k : sj.tasks) {
          const int n = st.nodes[k];
          in += n >= 0 && h >= 0 && tree_.contains(h, n) ? 1 : 0;
        }
        s[i] += static_cast<double>(in) / static_cast<double>(sj.tasks.size());
      }
    }
  }
  for (double& v : s) {
    v *= kMaxNodeScore * args_.weight;
  }
  if (args_.node_binpack) {
    // The session sums every plugin's node order (util.PrioritizeNodes).
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const auto n = static_cast<std::size_t>(candidates[i]);
      Amounts used = used_[n];
      if (const auto x = st.extra.find(candidates[i]); x != st.extra.end()) {
        add(used, x->second);
      }
      s[i] += binpack_node_score(*args_.node_binpack, job.tasks[t].request, allocatable_[n], used);
    }
  }
  return s;
}

bool Allocator::place_tasks(const JobRequest& job, State& st, std::size_t s, int h) const {
  SubJob& sj = st.subs[s];
  int allocated = sj.allocated;
  // JobInfo.NeedContinueAllocating: a task that fits nowhere ends the attempt when the job or
  // the sub-job needs all its tasks; otherwise the next task is tried.
  const bool stop = job.min_available >= static_cast<int>(job.tasks.size()) ||
                    sj.min_available >= static_cast<int>(sj.tasks.size());
  int added = 0;
  while (!sj.queue.empty()) {
    const std::size_t t = sj.queue.front();
    sj.queue.erase(sj.queue.begin());
    std::vector<int> candidates;
    for (const int n : tree_.nodes(h)) {
      if (fits(job.tasks[t], n, st.extra)) {
        candidates.push_back(n);
      }
    }
    if (candidates.empty()) {
      if (stop) {
        break;
      }
      continue;
    }
    const std::vector<double> sc = node_scores(st, sj, t, candidates, allocated, job);
    const auto best = static_cast<std::size_t>(std::max_element(sc.begin(), sc.end()) - sc.begin());
    const int node = candidates[best];
    add(st.extra[node], job.tasks[t].request);
    st.nodes[t] = node;
    ++added;
    if (sj.topology) {
      const int nh = tree_.hypernode_of(node);
      allocated = allocated < 0 ? nh : tree_.lca(nh, allocated);
    }
    if (sub_ready(st, sj)) {
      break;  // the sub-job is ready: the rest waits for the next pass
    }
  }
  // A statement with no operation is no solution (allocateForJob / allocateForSubJob).
  return added > 0 && sub_ready(st, sj);
}

Allocation Allocator::allocate(const JobRequest& job) const {
  // Volcano allocates a ready gang's remaining pending tasks in later passes of the action (the
  // job goes back into its queue while its worksheet is not empty).
  Allocation out;
  State st = open_session(job);
  if (!st.valid || !allocate_for_job(job, st)) {
    out.nodes.assign(job.tasks.size(), -1);
    for (std::size_t t = 0; t < job.tasks.size(); ++t) {
      out.nodes[t] = job.tasks[t].node;
    }
    out.reason = st.valid ? unready_reason(job)
                          : "Not enough valid subGroups of each task for gang-scheduling";
    return out;
  }
  for (;;) {
    bool more = false;
    for (const SubJob& sj : st.subs) {
      more = more || sj.listed;
    }
    State next = st;
    if (!more || !allocate_for_job(job, next)) {
      break;
    }
    st = std::move(next);
  }
  out.ready = true;
  out.nodes = st.nodes;
  out.hypernode = st.chosen;
  for (const SubJob& sj : st.subs) {
    if (sj.allocated >= 0) {
      out.allocated_hypernode = out.allocated_hypernode < 0
                                    ? sj.allocated
                                    : tree_.lca(out.allocated_hypernode, sj.allocated);
    }
  }
  return out;
}

}  // namespace tidesim::volcano
