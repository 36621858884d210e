// The scheduling cycle (pkg/scheduler/schedule_one.go) and the framework's other runs of a
// profile's plugins: PostFilter, Permit and the dry runs of fits(). The profile's plugins are built
// by ProfilePlugins (profile_plugins.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "tidesim/policies/plugins/noderesources.hpp"
#include "tidesim/policies/scheduler.hpp"
#include "tidesim/sim/input/error.hpp"

namespace tidesim::policies {
namespace {

// A cycle context with every field set (a scheduling cycle, the dry runs of PostFilter and the
// Permit call).
CycleContext bare_context(const ClusterView& view, TimePoint now, std::uint64_t cycle,
                          const PodGroupStatus* group = nullptr) {
  return CycleContext{.cluster = view,
                      .metrics = nullptr,
                      .now = now,
                      .cycle = cycle,
                      .latency = {},
                      .fallback_stage = 0,
                      .fallback_decided = false,
                      .node_selector_pin = {},
                      .alerts = {},
                      .shared = {},
                      .pod_group = group,
                      .record_reasons = true};
}

// The index of the first Filter plugin not skipped that rejects `node`, with its status in `failed`
// (its reasons only when kept: for an error or when the cycle records them, so a bare code costs
// no move of the status per rejected node), or filters.size() when every one passes. Not inlined
// into find_nodes_that_pass_filters: in a small function the compiler inlines the destruction of
// the status each filter call returns, which it does not in a larger body.
[[gnu::noinline]] std::size_t first_rejecting_filter(std::span<FilterPlugin* const> filters,
                                                     std::span<const char> skip, CycleContext& ctx,
                                                     const PodSpec& pod, int node, Status& failed) {
  for (std::size_t fk = 0; fk < filters.size(); ++fk) {
    if (skip[fk]) {
      continue;
    }
    Status s = filters[fk]->filter(ctx, pod, node);
    if (!s.ok()) {
      if (s.code == Code::kError || ctx.record_reasons) {
        failed = std::move(s);
      } else {
        failed.code = s.code;
      }
      return fk;
    }
  }
  return filters.size();
}

// FitError.Error(): "0/N nodes are available: <count> <reason>, ... ." sorted as strings.
std::string fit_error(int n, const std::map<std::string, int>& histogram) {
  std::vector<std::string> parts;
  for (const auto& [reason, count] : histogram) {
    parts.push_back(fmt::format("{} {}", count, reason));
  }
  std::sort(parts.begin(), parts.end());
  std::string joined;
  for (const auto& p : parts) {
    joined += (joined.empty() ? "" : ", ") + p;
  }
  return fmt::format("0/{} nodes are available: {}.", n, joined);
}

}  // namespace

Scheduler::Scheduler(const SchedulerConfig& config, const ProfileConfig& profile,
                     std::uint64_t seed, const Registry& registry)
    : plugins_(config, profile, registry), random_(seed, "scheduler/" + profile.scheduler_name) {
  const std::vector<const Plugin*> all = plugins_.all();
  if (std::set<const Plugin*>(all.begin(), all.end()).size() > QueueingHintMap::kMaxPlugins) {
    // The queue records a pod's rejecting plugins as bits of one 64-bit word.
    throw InputError(
        profile.where, profile.label + ".plugins",
        fmt::format("a profile runs at most {} plugins", QueueingHintMap::kMaxPlugins));
  }
  hints_.map = QueueingHintMap(all);
  for (const FilterPlugin* f : plugins_.filter()) {
    hints_.filter_bits.push_back(hints_.map.bit(f));
  }
}

ScheduleResult Scheduler::schedule_one(const PodSpec& pod, const ClusterView& cluster,
                                       const MetricsSource* metrics, TimePoint now,
                                       const PodGroupStatus* group, std::optional<int> nominated) {
  // One return: the result is constructed in place (no copy of it per cycle).
  ScheduleResult result;
  CycleContext ctx = bare_context(cluster, now, ++cycle_, group);
  ctx.metrics = metrics;
  if (record_.details) {
    result.details.resize(cluster.nodes.size());
    for (std::size_t i = 0; i < cluster.nodes.size(); ++i) {
      result.details[i].node = cluster.nodes[i].node.name;
    }
  }
  schedule_pod(ctx, pod, group, nominated, result);
  finish_cycle(ctx, pod, result);
  return result;
}

void Scheduler::schedule_pod(CycleContext& ctx, const PodSpec& pod, const PodGroupStatus* group,
                             std::optional<int> nominated, ScheduleResult& result) {
  const int n = static_cast<int>(ctx.cluster.nodes.size());
  if (n == 0) {
    result.reason = "0/0 nodes are available: no nodes in the cluster.";
    return;
  }
  // The Filter reasons counted over the rejected nodes (the FitError's Diagnosis).
  std::map<std::string, int> histogram;
  if (!find_nodes_that_fit_pod(ctx, pod, group, nominated, histogram, result)) {
    return;
  }
  if (feasible_.empty()) {
    if (record_.reasons) {
      result.reason = fit_error(n, histogram);
    }
    return;
  }
  if (plugins_.first_feasible() || feasible_.size() == 1) {
    result.node = feasible_.front();
    return;
  }
  if (prioritize_nodes(ctx, pod, result)) {
    result.node = feasible_[select_host()];
  }
}

void Scheduler::finish_cycle(CycleContext& ctx, const PodSpec& pod, ScheduleResult& result) {
  if (result.node && plugins_.card_chooser() != nullptr) {
    result.cards = plugins_.card_chooser()->choose_cards(ctx, pod, *result.node);
  }
  result.latency = ctx.latency;
  result.fallback_stage = ctx.fallback_stage;
  result.node_selector_pin = std::move(ctx.node_selector_pin);
  result.alerts = std::move(ctx.alerts);
}

bool Scheduler::run_pre_filter_plugins(CycleContext& ctx, const PodSpec& pod,
                                       ScheduleResult* result) {
  skip_.filter.assign(plugins_.filter().size(), 0);
  for (PreFilterPlugin* p : plugins_.pre_filter()) {
    Status s = p->pre_filter(ctx, pod);
    if (s.code == Code::kSkip) {
      for (std::size_t k = 0; k < plugins_.filter().size(); ++k) {
        if (static_cast<Plugin*>(plugins_.filter()[k]) == static_cast<Plugin*>(p)) {
          skip_.filter[k] = 1;
        }
      }
      continue;
    }
    if (s.ok()) {
      continue;
    }
    if (result == nullptr) {
      return false;
    }
    if (s.code == Code::kError) {
      result->error = true;
      result->reason = fmt::format("running PreFilter plugin \"{}\": {}", p->name(), s.message());
    } else {
      result->unresolvable = s.code == Code::kUnschedulableAndUnresolvable;
      result->rejectors |= hints_.map.bit(p);
      result->reason =
          fmt::format("0/{} nodes are available: {}.", ctx.cluster.nodes.size(), s.message());
    }
    return false;
  }
  return true;
}

bool Scheduler::find_nodes_that_fit_pod(CycleContext& ctx, const PodSpec& pod,
                                        const PodGroupStatus* group, std::optional<int> nominated,
                                        std::map<std::string, int>& histogram,
                                        ScheduleResult& result) {
  const int n = static_cast<int>(ctx.cluster.nodes.size());
  if (!run_pre_filter_plugins(ctx, pod, &result)) {
    return false;
  }
  if (plugins_.gang_pre_filter() != nullptr && group != nullptr) {
    if (Status s = plugins_.gang_pre_filter()->pre_filter(ctx, pod); !s.ok()) {
      result.unresolvable = s.code == Code::kUnschedulableAndUnresolvable;
      result.reason = fmt::format("0/{} nodes are available: {}.", n, s.message());
      return false;
    }
  }
  // evaluateNominatedNode: a pod nominated by an earlier preemption tries that node first and
  // takes it when it passes the filters.
  if (nominated && *nominated >= 0 && *nominated < n && passes_filters(ctx, pod, *nominated)) {
    result.node = *nominated;
    result.evaluated_nodes = 1;
    result.feasible_nodes = 1;
    return false;
  }
  return find_nodes_that_pass_filters(ctx, pod, histogram, result);
}

bool Scheduler::find_nodes_that_pass_filters(CycleContext& ctx, const PodSpec& pod,
                                             std::map<std::string, int>& histogram,
                                             ScheduleResult& result) {
  // Filter plugins build their reasons only when something reads them (FitError text, explain's
  // details).
  ctx.record_reasons = record_.reasons || record_.details;
  const int n = static_cast<int>(ctx.cluster.nodes.size());
  const int to_find =
      plugins_.first_feasible() ? 1 : num_feasible_nodes_to_find(n, plugins_.percentage());
  const int start = plugins_.first_feasible() ? 0 : selection_.next_start;
  feasible_.clear();
  Rejectors screened_by = 0;
  const FitScreen screen = ctx.record_reasons ? FitScreen{} : fit_screen(pod, screened_by);
  Status failed;  // the status of the filter that rejected the node, reused from node to node
  int processed = 0;
  if (screen.names != nullptr) {
    // Only the named nodes can pass: visit them alone, in the order the loop below would, and
    // count as processed every node that loop would have passed over.
    const std::vector<int>& named = named_nodes_.find(ctx.cluster, *screen.names, start);
    processed = n;
    if (static_cast<int>(named.size()) < n) {
      result.rejectors |= screened_by;  // the nodes passed over
    }
    for (const int i : named) {
      if (static_cast<int>(feasible_.size()) >= to_find) {
        break;
      }
      processed = (i - start + n) % n + 1;
      if (screen.rejects(ctx.cluster.nodes[i])) {
        result.rejectors |= screened_by;
      } else if (!filter_node(ctx, pod, i, failed, histogram, result)) {
        return false;
      }
    }
    if (static_cast<int>(feasible_.size()) < to_find) {
      processed = n;
    }
  } else {
    for (int k = 0; k < n && static_cast<int>(feasible_.size()) < to_find; ++k) {
      const int i = (start + k) % n;
      ++processed;
      if (screen.rejects(ctx.cluster.nodes[i])) {
        // rejected by a filter that reads no metrics, without a reason to record
        result.rejectors |= screened_by;
        continue;
      }
      if (!filter_node(ctx, pod, i, failed, histogram, result)) {
        return false;
      }
    }
  }
  if (!plugins_.first_feasible()) {
    selection_.next_start = (start + processed) % n;
  }
  result.evaluated_nodes = processed;
  result.feasible_nodes = static_cast<int>(feasible_.size());
  return true;
}

bool Scheduler::filter_node(CycleContext& ctx, const PodSpec& pod, int i, Status& failed,
                            std::map<std::string, int>& histogram, ScheduleResult& result) {
  const std::size_t fk =
      first_rejecting_filter(plugins_.filter(), skip_.filter, ctx, pod, i, failed);
  const bool rejected = fk < plugins_.filter().size();
  if (record_.details) {
    NodeDetail& d = result.details[i];
    d.evaluated = true;
    for (FilterPlugin* f : plugins_.filter()) {
      if (auto note = f->explain_node(i); !note.empty()) {
        d.notes.push_back(std::string(f->name()) + ": " + note);
      }
    }
  }
  if (!rejected) {
    feasible_.push_back(i);
    if (record_.details) {
      result.details[i].feasible = true;
    }
    return true;
  }
  if (failed.code == Code::kError) {
    result.error = true;
    result.reason = fmt::format("running \"{}\" filter plugin: {}", plugins_.filter()[fk]->name(),
                                failed.message());
    return false;
  }
  result.rejectors |= hints_.filter_bits[fk];
  if (record_.reasons) {
    for (const auto& r : failed.reasons) {
      ++histogram[r];
    }
  }
  if (record_.details) {
    result.details[i].failed_plugin = std::string(plugins_.filter()[fk]->name());
    result.details[i].reasons = failed.reasons;
  }
  return true;
}

FitScreen Scheduler::fit_screen(const PodSpec& pod, Rejectors& rejectors) const {
  // The screens of the plain filters up to the first that is not: the first amounts screen and
  // the first names screen (a node either rejects is rejected by one of those filters).
  FitScreen out;
  for (std::size_t fk = 0; fk < plugins_.filter().size(); ++fk) {
    if (skip_.filter[fk]) {
      continue;
    }
    const FilterPlugin& f = *plugins_.filter()[fk];
    if (!f.plain_filter() || f.reads_metrics()) {
      break;
    }
    const FitScreen s = f.fit_screen(pod);
    if (s.active && !out.active) {
      rejectors |= hints_.filter_bits[fk];
      out.active = true;
      out.cpu_milli = s.cpu_milli;
      out.memory_bytes = s.memory_bytes;
      out.gpus = s.gpus;
    }
    if (s.names != nullptr && out.names == nullptr) {
      rejectors |= hints_.filter_bits[fk];
      out.names = s.names;
    }
  }
  return out;
}

bool Scheduler::prioritize_nodes(CycleContext& ctx, const PodSpec& pod, ScheduleResult& result) {
  // PreScore (RunPreScorePlugins): Skip leaves out that plugin's Score.
  skip_.score.assign(plugins_.score().size(), 0);
  for (PreScorePlugin* p : plugins_.pre_score()) {
    Status s = p->pre_score(ctx, pod, feasible_);
    if (s.code == Code::kSkip) {
      for (std::size_t k = 0; k < plugins_.score().size(); ++k) {
        if (static_cast<Plugin*>(plugins_.score()[k].plugin) == static_cast<Plugin*>(p)) {
          skip_.score[k] = 1;
        }
      }
      continue;
    }
    if (!s.ok()) {
      result.error = true;
      result.reason = fmt::format("running PreScore plugin \"{}\": {}", p->name(), s.message());
      return false;
    }
  }
  // Score, NormalizeScore, weights (RunScorePlugins), summed per node.
  const std::size_t m = feasible_.size();
  totals_.assign(m, 0);
  for (std::size_t k = 0; k < plugins_.score().size(); ++k) {
    if (skip_.score[k]) {
      continue;
    }
    ScorePlugin* sp = plugins_.score()[k].plugin;
    scores_.resize(m);
    for (std::size_t j = 0; j < m; ++j) {
      scores_[j] = sp->score(ctx, pod, feasible_[j]);
    }
    std::vector<std::int64_t> raw;
    if (record_.details) {
      raw = scores_;
    }
    if (sp->has_normalize()) {
      sp->normalize(ctx, pod, feasible_, scores_);
    }
    for (std::size_t j = 0; j < m; ++j) {
      if (scores_[j] < kMinNodeScore || scores_[j] > kMaxNodeScore) {
        result.error = true;
        result.reason = fmt::format(
            "plugin \"{}\" returns an invalid score {} for node \"{}\", it should in the range of "
            "[{}, {}] after normalizing",
            sp->name(), scores_[j], ctx.cluster.nodes[feasible_[j]].node.name, kMinNodeScore,
            kMaxNodeScore);
        return false;
      }
      totals_[j] += scores_[j] * plugins_.score()[k].weight;
      if (record_.details) {
        NodeDetail& d = result.details[feasible_[j]];
        d.scored = true;
        d.scores.push_back(
            PluginScore{std::string(sp->name()), raw[j], scores_[j], plugins_.score()[k].weight,
                        scores_[j] * plugins_.score()[k].weight, sp->explain_node(feasible_[j])});
      }
    }
  }
  if (record_.details) {
    for (std::size_t j = 0; j < m; ++j) {
      result.details[feasible_[j]].total = totals_[j];
      result.details[feasible_[j]].scored = true;
    }
  }
  return true;
}

std::size_t Scheduler::select_host() {
  // The highest total; ties by reservoir sampling from the scheduler's own stream.
  std::size_t selected = 0;
  std::uint64_t count_max = 1;
  for (std::size_t j = 1; j < totals_.size(); ++j) {
    if (totals_[j] > totals_[selected]) {
      selected = j;
      count_max = 1;
    } else if (totals_[j] == totals_[selected]) {
      ++count_max;
      ++selection_.tie_breaks;
      if (random_.uniform_int(count_max) == 0) {
        selected = j;
      }
    }
  }
  return selected;
}

bool Scheduler::passes_filters(CycleContext& ctx, const PodSpec& pod, int node) {
  // Only the verdict counts: no plugin needs to build its reasons.
  const bool record = ctx.record_reasons;
  ctx.record_reasons = false;
  bool passes = true;
  for (std::size_t fk = 0; fk < plugins_.filter().size() && passes; ++fk) {
    passes = skip_.filter[fk] || plugins_.filter()[fk]->filter(ctx, pod, node).ok();
  }
  ctx.record_reasons = record;
  return passes;
}

bool Scheduler::fits(const PodSpec& pod, const ClusterView& view, int node) {
  CycleContext ctx = bare_context(view, dry_run_now_, ++cycle_);
  return run_pre_filter_plugins(ctx, pod, nullptr) && passes_filters(ctx, pod, node);
}

PostFilterResult Scheduler::post_filter(const PodSpec& pod, const ClusterView& cluster,
                                        TimePoint now) {
  CycleContext ctx = bare_context(cluster, now, ++cycle_);
  dry_run_now_ = now;
  for (PostFilterPlugin* p : plugins_.post_filter()) {
    PostFilterResult r = p->post_filter(ctx, pod, *this);
    if (r.nominated_node) {
      return r;
    }
  }
  return {};
}

PostFilterResult Scheduler::group_post_filter(const PodSpec& pod, const ClusterView& cluster,
                                              const PodGroupStatus& group, TimePoint now) {
  CycleContext ctx = bare_context(cluster, now, cycle_, &group);
  return plugins_.gang_post_filter()->post_filter(ctx, pod, *this);
}

Status Scheduler::permit(const PodSpec& pod, int node, const ClusterView& cluster,
                         const PodGroupStatus* group, TimePoint now, Duration& timeout) {
  CycleContext ctx = bare_context(cluster, now, cycle_, group);
  // RunPermitPlugins: the first rejection wins; otherwise Wait with the shortest timeout.
  Status out;
  timeout = Duration::max();
  for (PermitPlugin* p : plugins_.permit()) {
    Duration t = Duration::max();
    Status s = p->permit(ctx, pod, node, t);
    if (s.code == Code::kWait) {
      timeout = std::min(timeout, t);
      out = std::move(s);
      out.plugin = p->name();
    } else if (!s.ok()) {
      s.plugin = p->name();
      return s;
    }
  }
  return out;
}

}  // namespace tidesim::policies
