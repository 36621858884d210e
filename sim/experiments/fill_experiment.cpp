#include "tidesim/sim/experiments/fill_experiment.hpp"

#include <fmt/core.h>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <stdexcept>
#include <tuple>

#include "tidesim/policies/plugins/gpu_share_plugins.hpp"
#include "tidesim/policies/registry.hpp"
#include "tidesim/sim/engine/checked.hpp"
#include "tidesim/sim/engine/go_rand.hpp"
#include "tidesim/sim/engine/parallel.hpp"
#include "tidesim/sim/engine/random.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/workloads/workload_spec.hpp"

namespace tidesim {

namespace gs = policies::gpushare;

namespace {

// The draws of one run, from Go's math/rand or tidesim's streams.
class Draws {
 public:
  Draws(FillRandomness mode, std::int64_t seed)
      : mode_(mode),
        go_(seed),
        shuffle_(static_cast<std::uint64_t>(seed), "fill/shuffle"),
        tune_(static_cast<std::uint64_t>(seed), "fill/tune"),
        ranks_(static_cast<std::uint64_t>(seed), "fill/ranks"),
        random_(static_cast<std::uint64_t>(seed), "fill/random") {
    if (mode_ == FillRandomness::kGoMathRand) {
      (void)go_.int_();  // a debug log argument evaluated before the shuffle
    }
  }
  bool go() const { return mode_ == FillRandomness::kGoMathRand; }

  template <class T>
  void shuffle(std::vector<T>& v) {
    const auto n = static_cast<std::int64_t>(v.size());
    if (go()) {
      go_.shuffle(n, [&](std::int64_t i, std::int64_t j) {
        std::swap(v[static_cast<std::size_t>(i)], v[static_cast<std::size_t>(j)]);
      });
      return;
    }
    for (std::int64_t i = n - 1; i > 0; --i) {
      const auto j = shuffle_.uniform_int(static_cast<std::uint64_t>(i + 1));
      std::swap(v[static_cast<std::size_t>(i)], v[j]);
    }
  }
  std::size_t tune_pick(std::size_t n) {
    return go() ? static_cast<std::size_t>(go_.intn(static_cast<std::int64_t>(n)))
                : static_cast<std::size_t>(tune_.uniform_int(n));
  }
  // Node ranks: rank[i] for the node i in name order.
  std::vector<int> ranks(int n) {
    if (go()) {
      for (int k = 0; k < 10; ++k) {
        (void)go_.int63();  // informer jitter in the vendored client-go reflector
      }
      return go_.perm(n);
    }
    std::vector<int> r(static_cast<std::size_t>(n));
    std::iota(r.begin(), r.end(), 0);
    for (int i = n - 1; i > 0; --i) {
      std::swap(r[static_cast<std::size_t>(i)],
                r[ranks_.uniform_int(static_cast<std::uint64_t>(i + 1))]);
    }
    return r;
  }
  std::size_t random_pick(std::size_t n) {
    return go() ? static_cast<std::size_t>(go_.intn(static_cast<std::int64_t>(n)))
                : static_cast<std::size_t>(random_.uniform_int(n));
  }

 private:
  FillRandomness mode_;
  GoRand go_;
  RandomStream shuffle_;
  RandomStream tune_;
  RandomStream ranks_;
  RandomStream random_;
};

struct Pod {
  const workloads::TraceRecord* record;
  gs::PodReq req;
  int key = 0;     // index of (cpu, gm, ng, models): the verdict cache's key
  int clone = -1;  // tuning clone number, -1 for a workload pod
};

gs::PodReq req_of(const workloads::TraceRecord& r, policies::GpuModelIds& models) {
  gs::PodReq p;
  p.cpu = r.cpu_milli;
  p.mem = r.memory_bytes;
  if (r.gpu_milli > 0) {
    p.ng = 1;
    p.gm = std::min(r.gpu_milli, gs::kMilli);
  } else if (r.gpus_per_pod > 0) {
    p.ng = r.gpus_per_pod;
    p.gm = gs::kMilli;
  }
  p.models = models.mask(r.gpu_spec);
  return p;
}

bool interrupted(const FillOptions& options) {
  return options.interrupt != nullptr && options.interrupt->load(std::memory_order_relaxed);
}

struct CacheEntry {
  std::uint32_t version = 0;  // node version + 1 when filled
  gs::Verdict verdict;
};

// The policy's plugin, built as a profile would build it, and its GPU-sharing scorer.
struct FillScorer {
  std::unique_ptr<policies::Plugin> plugin;
  policies::GpuShareScorer* scorer = nullptr;
};

FillScorer fill_scorer(gs::Policy policy) {
  const policies::Registry registry = policies::builtin_registry();
  const auto entry = registry.find(policies::gpu_share_plugin_name(policy));
  FillScorer out;
  out.plugin = entry->second.factory(entry->second.decode(policies::PluginArgs{}));
  out.scorer = dynamic_cast<policies::GpuShareScorer*>(out.plugin.get());
  if (out.scorer == nullptr) {
    throw std::logic_error("fill: the policy's plugin is not a GPU-sharing scorer");
  }
  return out;
}

// The nodes in name order, with their state; their GPUs are added to `total_gpus`.
std::vector<gs::NodeState> node_states(const FillInput& input, policies::GpuModelIds& models,
                                       std::int64_t& total_gpus) {
  std::vector<const workloads::OpenbNode*> by_name;
  for (const auto& n : input.nodes) {
    by_name.push_back(&n);
  }
  std::sort(by_name.begin(), by_name.end(),
            [](const auto* a, const auto* b) { return a->name < b->name; });
  std::vector<gs::NodeState> nodes;
  for (const auto* n : by_name) {
    gs::NodeState s;
    s.cpu_left = n->cpu_milli;
    s.mem_left = n->memory_bytes;
    s.model = n->gpus > 0 ? models.id(n->gpu_model) : -1;
    s.left.assign(static_cast<std::size_t>(n->gpus), gs::kMilli);
    total_gpus += n->gpus;
    nodes.push_back(std::move(s));
  }
  return nodes;
}

// W: the workload's pods in name order, each with its verdict cache key (numbered in that order);
// `key_count` is set to the number of keys.
std::vector<Pod> workload_pods(const FillInput& input, policies::GpuModelIds& models,
                               std::size_t& key_count) {
  std::vector<Pod> w;
  std::map<std::tuple<std::int64_t, int, int, std::uint64_t>, int> keys;
  for (const auto& r : input.pods) {
    Pod p{&r, req_of(r, models), 0, -1};
    w.push_back(p);
  }
  std::sort(w.begin(), w.end(),
            [](const Pod& a, const Pod& b) { return a.record->name < b.record->name; });
  for (auto& p : w) {
    p.key = keys.try_emplace({p.req.cpu, p.req.gm, p.req.ng, p.req.models},
                             static_cast<int>(keys.size()))
                .first->second;
  }
  key_count = keys.size();
  return w;
}

// FGD's typical pods, from W.
void set_typical_pods(policies::GpuShareScorer& scorer, const std::vector<Pod>& w,
                      const FillOptions& options) {
  std::vector<gs::PodReq> reqs;
  std::vector<std::string> types;
  for (const auto& p : w) {
    reqs.push_back(p.req);
    types.push_back(p.record->gpu_spec);
  }
  scorer.set_typical_pods(gs::typical_pods(reqs, types, options.typical_threshold));
}

// Below the target: samples W with replacement until the next pod's per-card share would pass
// it, the clones appended to `order`. False when interrupted.
bool tune_up(std::vector<Pod>& order, const std::vector<Pod>& w, Draws& draws,
             const FillOptions& options, double target, std::int64_t sum) {
  if (std::none_of(w.begin(), w.end(), [](const Pod& p) { return p.req.gm > 0; })) {
    // Only a pick with a GPU request can pass the target: none would ever come.
    throw std::invalid_argument("fill: tuning can never reach its target: no pod requests a GPU");
  }
  for (int i = 0;; ++i) {
    const Pod& pick = w[draws.tune_pick(w.size())];
    if (static_cast<double>(sum + pick.req.gm) > target) {
      return true;
    }
    sum += pick.req.req();
    Pod clone = pick;
    clone.clone = i;
    order.push_back(clone);
    if (options.max_pods > 0 && static_cast<std::int64_t>(order.size()) > options.max_pods) {
      throw std::runtime_error(
          fmt::format("fill: tuning made more than {} pods (the run's budget: --max-events over "
                      "the nodes); rerun with --force to lift it",
                      options.max_pods));
    }
    if ((i & 4095) == 0 && interrupted(options)) {
      return false;
    }
  }
}

// Tuning (Simulator.TunePodsByNodeTotalResource) to tune x capacity: below the target, clones of
// W (tune_up); above it, pods of the order removed at random until the sum is within it. False
// when interrupted.
bool tune(std::vector<Pod>& order, const std::vector<Pod>& w, Draws& draws,
          const FillOptions& options, std::int64_t total_gpus) {
  const double target = options.tune * static_cast<double>(total_gpus * gs::kMilli);
  std::int64_t sum = 0;
  for (const auto& p : order) {
    sum += p.req.req();
  }
  if (static_cast<double>(sum) < target) {
    return tune_up(order, w, draws, options, target, sum);
  }
  while (static_cast<double>(sum) > target && !order.empty()) {
    const std::size_t idx = draws.tune_pick(order.size());
    sum -= order[idx].req.req();
    order.erase(order.begin() + static_cast<std::ptrdiff_t>(idx));
  }
  return true;
}

// The arrivals of one run: the nodes' state, the tie-break ranks and the verdict cache.
class Arrivals {
 public:
  Arrivals(std::vector<gs::NodeState> nodes, std::vector<int> rank, std::size_t key_count,
           gs::Policy policy, policies::GpuShareScorer& scorer, Draws& draws, FillRun& out)
      : nodes_(std::move(nodes)),
        rank_(std::move(rank)),
        cache_(key_count * nodes_.size()),
        version_(nodes_.size(), 0),
        policy_(policy),
        scorer_(scorer),
        draws_(draws),
        out_(out) {}

  // Places `p` on a node: the milli-GPU it was allocated, or nothing when no node fits it.
  std::optional<std::int64_t> place(const Pod& p) {
    feasible_.clear();
    for (int i = 0; i < node_count(); ++i) {
      if (gs::fits(nodes_[static_cast<std::size_t>(i)], p.req)) {
        feasible_.push_back(i);
      }
    }
    if (feasible_.empty()) {
      return std::nullopt;
    }
    const auto [pick, card] = policy_ == gs::Policy::kRandom ? random_choice(p) : scored_choice(p);
    gs::NodeState& node = nodes_[static_cast<std::size_t>(pick)];
    cards_of_pick_ = gs::cards_for(node, p.req, card);
    gs::allocate(node, p.req, cards_of_pick_);
    ++version_[static_cast<std::size_t>(pick)];
    return p.req.gm * static_cast<std::int64_t>(cards_of_pick_.size());
  }

 private:
  int node_count() const { return static_cast<int>(nodes_.size()); }

  // A feasible node at random and, for a shared card, one of its cards that fit at random
  // (reservoir sampling); card -1: the allocation picks.
  std::pair<int, int> random_choice(const Pod& p) {
    const int pick = feasible_[draws_.random_pick(feasible_.size())];
    int card = -1;
    if (p.req.share()) {
      const auto& left = nodes_[static_cast<std::size_t>(pick)].left;
      std::size_t seen = 0;
      for (int c = 0; c < static_cast<int>(left.size()); ++c) {
        if (left[static_cast<std::size_t>(c)] >= p.req.gm && draws_.random_pick(++seen) == 0) {
          card = c;
        }
      }
    }
    return {pick, card};
  }

  // The best-scored feasible node (ties to the lower rank) and, for a shared card, its verdict's
  // card.
  std::pair<int, int> scored_choice(const Pod& p) {
    const int pick = feasible_.size() == 1 ? feasible_.front() : best_scored(p);
    return {pick, p.req.share() ? verdict_of(p, pick).card : -1};
  }

  int best_scored(const Pod& p) {
    scores_.resize(feasible_.size());
    for (std::size_t j = 0; j < feasible_.size(); ++j) {
      scores_[j] = verdict_of(p, feasible_[j]).score;
    }
    if (scorer_.has_normalize()) {
      gs::min_max_normalize(scores_);
    }
    std::size_t best = 0;
    for (std::size_t j = 1; j < feasible_.size(); ++j) {
      if (scores_[j] > scores_[best] ||
          (scores_[j] == scores_[best] && rank_[static_cast<std::size_t>(feasible_[j])] <
                                              rank_[static_cast<std::size_t>(feasible_[best])])) {
        best = j;
      }
    }
    return feasible_[best];
  }

  // The scorer's verdict for `p` on node `i`, cached until the node changes.
  const gs::Verdict& verdict_of(const Pod& p, int i) {
    CacheEntry& e =
        cache_[static_cast<std::size_t>(p.key) * nodes_.size() + static_cast<std::size_t>(i)];
    if (e.version != version_[static_cast<std::size_t>(i)] + 1) {
      e.verdict = scorer_.verdict(nodes_[static_cast<std::size_t>(i)], p.req);
      e.version = version_[static_cast<std::size_t>(i)] + 1;
      ++out_.verdicts_computed;
    } else {
      ++out_.verdicts_reused;
    }
    return e.verdict;
  }

  std::vector<gs::NodeState> nodes_;
  std::vector<int> rank_;
  std::vector<CacheEntry> cache_;
  std::vector<std::uint32_t> version_;
  gs::Policy policy_;
  policies::GpuShareScorer& scorer_;
  Draws& draws_;
  FillRun& out_;
  std::vector<int> feasible_;
  std::vector<std::int64_t> scores_;
  std::vector<int> cards_of_pick_;
};

}  // namespace

FillRun run_fill(const FillInput& input, gs::Policy policy, std::int64_t seed,
                 const FillOptions& options) {
  FillRun out;
  out.policy = policy;
  out.seed = seed;
  const FillScorer scorer = fill_scorer(policy);
  policies::GpuModelIds models;
  std::vector<gs::NodeState> nodes = node_states(input, models, out.total_gpus);
  const int node_count = static_cast<int>(nodes.size());

  // 1. W: the pods in name order; typical pods from W.
  std::size_t key_count = 0;
  const std::vector<Pod> w = workload_pods(input, models, key_count);
  if (policy == gs::Policy::kFgd) {
    set_typical_pods(*scorer.scorer, w, options);
  }
  // 2. Arrival order: a shuffle of W.
  Draws draws(options.randomness, seed);
  std::vector<Pod> order = w;
  draws.shuffle(order);
  // 3. Tuning.
  if (options.tune > 0 && !order.empty() && !tune(order, w, draws, options, out.total_gpus)) {
    out.interrupted = true;
    return out;
  }
  out.pods = static_cast<std::int64_t>(order.size());
  out.clones = std::max<std::int64_t>(0, out.pods - static_cast<std::int64_t>(w.size()));
  // 4. Tie-break ranks.
  Arrivals arrivals(std::move(nodes), draws.ranks(node_count), key_count, policy, *scorer.scorer,
                    draws, out);
  // 5. Arrivals.
  std::int64_t arrived = 0;
  std::int64_t used = 0;
  out.arrived.reserve(order.size());
  out.used.reserve(order.size());
  for (const Pod& p : order) {
    if (interrupted(options)) {
      out.interrupted = true;
      return out;
    }
    if (options.keep_names) {
      out.names.push_back(p.clone < 0 ? p.record->name
                                      : p.record->name + "-tuned-" + std::to_string(p.clone));
    }
    arrived += p.req.req();
    if (const auto allocated = arrivals.place(p)) {
      used += *allocated;
    } else {
      ++out.failed;
    }
    out.arrived.push_back(arrived);
    out.used.push_back(used);
  }
  out.curve = allocation_curve(out.arrived, out.used, out.total_gpus);
  return out;
}

FillScenario fill_scenario(const Scenario& scenario) {
  const SourceLocation where{scenario.path, 0, 0};
  if (!scenario.cluster.nodes_from) {
    throw InputError(where, "run.mode",
                     "fill mode needs cluster.nodes_from (an openb node list): the experiment "
                     "fills the nodes of a node list");
  }
  const workloads::WorkloadSpec& spec = scenario.workload;
  if (!spec.trace) {
    throw InputError(where, "run.mode", "fill mode needs workload.trace (an openb pod list)");
  }
  FillScenario out;
  out.input.nodes = workloads::read_openb_nodes(scenario.cluster.nodes_from->file);
  const workloads::Trace trace = workloads::read_trace(spec.trace->file, spec.trace->format);
  if (trace.format != workloads::TraceFormat::kOpenb) {
    throw InputError(spec.trace->where, "workload.trace.format",
                     "fill mode replays an openb pod list; this trace is " +
                         std::string(workloads::to_string(trace.format)));
  }
  out.input.pods = trace.records;
  out.options.tune = scenario.run.tune;
  out.tune_where = scenario.run.tune_where;
  const bool any_gpu = std::any_of(out.input.pods.begin(), out.input.pods.end(), [](const auto& r) {
    return r.gpu_milli > 0 || r.gpus_per_pod > 0;
  });
  const bool any_card = std::any_of(out.input.nodes.begin(), out.input.nodes.end(),
                                    [](const auto& n) { return n.gpus > 0; });
  if (out.options.tune > 0 && !out.input.pods.empty() && any_card && !any_gpu) {
    throw InputError(out.tune_where, "run.tune",
                     fmt::format("no pod of {} requests a GPU, so tuning to {} x the GPU capacity "
                                 "would append clones without end; set run.tune: 0",
                                 spec.trace->file, out.options.tune));
  }
  out.options.randomness = scenario.run.randomness;
  out.workload = std::filesystem::path(spec.trace->file).stem().string();
  return out;
}

RunEstimate estimate_fill(const FillScenario& fill, std::int64_t runs, std::int64_t concurrent) {
  const FillInput& in = fill.input;
  RunEstimate e;
  e.fill = true;
  e.jobs = static_cast<std::int64_t>(in.pods.size());
  e.nodes = static_cast<std::int64_t>(in.nodes.size());
  policies::GpuModelIds models;
  for (const auto& n : in.nodes) {
    e.cards = saturating_add(e.cards, n.gpus);
    if (n.gpus > 0) {
      (void)models.id(n.gpu_model);
    }
  }
  // The verdict cache's keys, as run_fill numbers them.
  std::set<std::tuple<std::int64_t, int, int, std::uint64_t>> keys;
  std::int64_t requested = 0;  // milli-GPU of the workload
  for (const auto& r : in.pods) {
    const gs::PodReq q = req_of(r, models);
    keys.insert({q.cpu, q.gm, q.ng, q.models});
    requested = saturating_add(requested, q.req());
  }
  e.pods = e.jobs;
  const double target =
      fill.options.tune * static_cast<double>(saturating_mul(e.cards, gs::kMilli));
  if (fill.options.tune > 0 && e.jobs > 0 && static_cast<double>(requested) < target &&
      requested > 0) {
    // Picks are uniform over the workload: each adds the mean request until the target.
    const double mean = static_cast<double>(requested) / static_cast<double>(e.jobs);
    const double clones = std::ceil((target - static_cast<double>(requested)) / mean);
    e.pods = clones >= 9e18 ? kInt64Max : saturating_add(e.jobs, static_cast<std::int64_t>(clones));
  }
  e.events = saturating_mul(e.pods, std::max<std::int64_t>(e.nodes, 1));
  // Memory: the inputs; per finished run, its rows (arrived, used) and curve; per running run,
  // its arrival order, node state and verdict cache.
  const std::int64_t inputs = saturating_add(
      saturating_mul(e.jobs, static_cast<std::int64_t>(sizeof(workloads::TraceRecord)) + 64),
      saturating_mul(e.nodes, static_cast<std::int64_t>(sizeof(workloads::OpenbNode)) + 64));
  const std::int64_t finished = saturating_mul(saturating_mul(runs, e.pods), 32);
  const std::int64_t running_one = saturating_add(
      saturating_add(
          saturating_mul(saturating_add(e.pods, e.jobs), static_cast<std::int64_t>(sizeof(Pod))),
          saturating_mul(saturating_mul(static_cast<std::int64_t>(keys.size()), e.nodes),
                         static_cast<std::int64_t>(sizeof(CacheEntry)))),
      saturating_add(saturating_mul(e.nodes, static_cast<std::int64_t>(sizeof(gs::NodeState)) + 8),
                     saturating_mul(e.cards, 4)));
  e.memory_bytes = saturating_add(saturating_add(inputs, finished),
                                  saturating_mul(std::min(runs, concurrent), running_one));
  return e;
}

gs::Policy fill_policy(const Scenario& scenario, const PolicyConfig& policy) {
  const auto p = policies::gpu_share_policy_of_profile(policy.scheduler);
  if (!p) {
    throw InputError(SourceLocation{scenario.path, 0, 0}, "policies",
                     "fill mode runs the GPU-sharing policies (random, dot-product, "
                     "gpu-clustering, gpu-packing, best-fit, fgd), not '" +
                         policy.scheduler + "'");
  }
  return *p;
}

std::vector<FillRun> run_fill_sweep(const FillInput& input, const std::vector<gs::Policy>& policies,
                                    const std::vector<std::uint64_t>& seeds,
                                    const FillOptions& options, int threads) {
  const std::size_t total = policies.size() * seeds.size();
  std::vector<FillRun> runs(total);
  parallel_for(total, threads, [&](std::size_t k) {
    runs[k] = run_fill(input, policies[k / seeds.size()],
                       static_cast<std::int64_t>(seeds[k % seeds.size()]), options);
  });
  return runs;
}

}  // namespace tidesim
