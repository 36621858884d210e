// The scheduling cycle (pkg/scheduler/schedule_one.go) and the framework's other runs of a
// profile's plugins: PostFilter, Permit and the dry runs of fits(). The profile is built by
// scheduler_profile.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "tidesim/policies/plugins/noderesources.hpp"
#include "tidesim/policies/scheduler.hpp"

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

ScheduleResult Scheduler::schedule_one(const PodSpec& pod, const ClusterView& cluster,
                                       const MetricsSource* metrics, TimePoint now,
                                       const PodGroupStatus* group, std::optional<int> nominated) {
  // One return: the result is constructed in place (no copy of it per cycle).
  ScheduleResult result;
  CycleContext ctx = bare_context(cluster, now, ++cycle_, group);
  ctx.metrics = metrics;
  if (record_details_) {
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
    if (record_reasons_) {
      result.reason = fit_error(n, histogram);
    }
    return;
  }
  if (first_feasible_ || feasible_.size() == 1) {
    result.node = feasible_.front();
    return;
  }
  if (prioritize_nodes(ctx, pod, result)) {
    result.node = feasible_[select_host()];
  }
}

void Scheduler::finish_cycle(CycleContext& ctx, const PodSpec& pod, ScheduleResult& result) {
  if (result.node && card_chooser_ != nullptr) {
    result.cards = card_chooser_->choose_cards(ctx, pod, *result.node);
  }
  result.latency = ctx.latency;
  result.fallback_stage = ctx.fallback_stage;
  result.node_selector_pin = std::move(ctx.node_selector_pin);
  result.alerts = std::move(ctx.alerts);
}

bool Scheduler::run_pre_filter_plugins(CycleContext& ctx, const PodSpec& pod,
                                       ScheduleResult* result) {
  skip_filter_.assign(filter_.size(), 0);
  for (PreFilterPlugin* p : pre_filter_) {
    Status s = p->pre_filter(ctx, pod);
    if (s.code == Code::kSkip) {
      for (std::size_t k = 0; k < filter_.size(); ++k) {
        if (static_cast<Plugin*>(filter_[k]) == static_cast<Plugin*>(p)) {
          skip_filter_[k] = 1;
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
      result->rejected_by_metrics = (p->events_to_register() & kMetricsChanged) != 0;
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
  if (gang_pre_filter_ != nullptr && group != nullptr) {
    if (Status s = gang_pre_filter_->pre_filter(ctx, pod); !s.ok()) {
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
  ctx.record_reasons = record_reasons_ || record_details_;
  const int n = static_cast<int>(ctx.cluster.nodes.size());
  const int to_find = first_feasible_ ? 1 : num_feasible_nodes_to_find(n, percentage_);
  const int start = first_feasible_ ? 0 : next_start_node_index_;
  feasible_.clear();
  const FitScreen screen = ctx.record_reasons ? FitScreen{} : fit_screen(pod);
  Status failed;  // the status of the filter that rejected the node, reused from node to node
  int processed = 0;
  for (int k = 0; k < n && static_cast<int>(feasible_.size()) < to_find; ++k) {
    const int i = (start + k) % n;
    ++processed;
    if (screen.active && screen.rejects(ctx.cluster.nodes[i])) {
      continue;  // rejected by a filter that reads no metrics, without a reason to record
    }
    const std::size_t fk = first_rejecting_filter(filter_, skip_filter_, ctx, pod, i, failed);
    const bool rejected = fk < filter_.size();
    if (record_details_) {
      NodeDetail& d = result.details[i];
      d.evaluated = true;
      for (FilterPlugin* f : filter_) {
        if (auto note = f->explain_node(i); !note.empty()) {
          d.notes.push_back(std::string(f->name()) + ": " + note);
        }
      }
    }
    if (!rejected) {
      feasible_.push_back(i);
      if (record_details_) {
        result.details[i].feasible = true;
      }
      continue;
    }
    if (failed.code == Code::kError) {
      result.error = true;
      result.reason =
          fmt::format("running \"{}\" filter plugin: {}", filter_[fk]->name(), failed.message());
      return false;
    }
    result.rejected_by_metrics =
        result.rejected_by_metrics || (filter_[fk]->events_to_register() & kMetricsChanged) != 0;
    if (record_reasons_) {
      for (const auto& r : failed.reasons) {
        ++histogram[r];
      }
    }
    if (record_details_) {
      result.details[i].failed_plugin = std::string(filter_[fk]->name());
      result.details[i].reasons = failed.reasons;
    }
  }
  if (!first_feasible_) {
    next_start_node_index_ = (start + processed) % n;
  }
  result.evaluated_nodes = processed;
  result.feasible_nodes = static_cast<int>(feasible_.size());
  return true;
}

FitScreen Scheduler::fit_screen(const PodSpec& pod) const {
  for (std::size_t fk = 0; fk < filter_.size(); ++fk) {
    if (skip_filter_[fk]) {
      continue;
    }
    const FilterPlugin& f = *filter_[fk];
    if (!f.plain_filter() || f.reads_metrics()) {
      break;
    }
    if (FitScreen s = f.fit_screen(pod); s.active) {
      return s;
    }
  }
  return {};
}

bool Scheduler::prioritize_nodes(CycleContext& ctx, const PodSpec& pod, ScheduleResult& result) {
  // PreScore (RunPreScorePlugins): Skip leaves out that plugin's Score.
  skip_score_.assign(score_.size(), 0);
  for (PreScorePlugin* p : pre_score_) {
    Status s = p->pre_score(ctx, pod, feasible_);
    if (s.code == Code::kSkip) {
      for (std::size_t k = 0; k < score_.size(); ++k) {
        if (static_cast<Plugin*>(score_[k].plugin) == static_cast<Plugin*>(p)) {
          skip_score_[k] = 1;
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
  for (std::size_t k = 0; k < score_.size(); ++k) {
    if (skip_score_[k]) {
      continue;
    }
    ScorePlugin* sp = score_[k].plugin;
    scores_.resize(m);
    for (std::size_t j = 0; j < m; ++j) {
      scores_[j] = sp->score(ctx, pod, feasible_[j]);
    }
    std::vector<std::int64_t> raw;
    if (record_details_) {
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
      totals_[j] += scores_[j] * score_[k].weight;
      if (record_details_) {
        NodeDetail& d = result.details[feasible_[j]];
        d.scored = true;
        d.scores.push_back(PluginScore{std::string(sp->name()), raw[j], scores_[j],
                                       score_[k].weight, scores_[j] * score_[k].weight,
                                       sp->explain_node(feasible_[j])});
      }
    }
  }
  if (record_details_) {
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
      ++tie_breaks_;
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
  for (std::size_t fk = 0; fk < filter_.size() && passes; ++fk) {
    passes = skip_filter_[fk] || filter_[fk]->filter(ctx, pod, node).ok();
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
  for (PostFilterPlugin* p : post_filter_) {
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
  return gang_post_filter_->post_filter(ctx, pod, *this);
}

Status Scheduler::permit(const PodSpec& pod, int node, const ClusterView& cluster,
                         const PodGroupStatus* group, TimePoint now, Duration& timeout) {
  CycleContext ctx = bare_context(cluster, now, cycle_, group);
  // RunPermitPlugins: the first rejection wins; otherwise Wait with the shortest timeout.
  Status out;
  timeout = Duration::max();
  for (PermitPlugin* p : permit_) {
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
