#include "policies/scheduler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "policies/plugins/coscheduling.hpp"
#include "policies/plugins/noderesources.hpp"

namespace tidesim::policies {
namespace {

bool implements_point(Plugin* p, const std::string& point) {
  if (point == "preEnqueue")
    return dynamic_cast<PreEnqueuePlugin*>(p) != nullptr;
  if (point == "queueSort")
    return dynamic_cast<QueueSortPlugin*>(p) != nullptr;
  if (point == "preFilter")
    return dynamic_cast<PreFilterPlugin*>(p) != nullptr;
  if (point == "filter")
    return dynamic_cast<FilterPlugin*>(p) != nullptr;
  if (point == "postFilter")
    return dynamic_cast<PostFilterPlugin*>(p) != nullptr;
  if (point == "preScore")
    return dynamic_cast<PreScorePlugin*>(p) != nullptr;
  if (point == "score")
    return dynamic_cast<ScorePlugin*>(p) != nullptr;
  if (point == "permit")
    return dynamic_cast<PermitPlugin*>(p) != nullptr;
  if (point == "bind")
    return dynamic_cast<BindPlugin*>(p) != nullptr;
  return false;  // reserve, preBind, postBind: no tidesim plugin implements them
}

// The args `name` is built from: its own pluginConfig args, plus, when its registry entry names an
// args group, every key set for another plugin of that group and not for it (RegistryEntry).
PluginArgs args_for(const ProfileConfig& profile, const Registry& registry,
                    const std::string& name) {
  PluginArgs args{YAML::Node(), profile.where.file,
                  profile.label + ".pluginConfig(" + name + ").args"};
  const auto own = profile.plugin_args.find(name);
  if (own != profile.plugin_args.end()) {
    args = own->second;
  }
  const std::string& group = registry.find(name)->second.args_group;
  if (group.empty()) {
    return args;
  }
  for (const auto& [other, other_args] : profile.plugin_args) {
    const auto entry = registry.find(other);
    if (other == name || entry == registry.end() || entry->second.args_group != group ||
        !other_args.node.IsMap()) {
      continue;
    }
    YAML::Node merged =
        args.node.IsMap() ? YAML::Clone(args.node) : YAML::Node(YAML::NodeType::Map);
    for (const auto& kv : other_args.node) {
      const std::string key = kv.first.as<std::string>();
      if (!merged[key]) {
        merged[key] = kv.second;
      }
    }
    args.node = merged;
  }
  return args;
}

std::string known_names(const Registry& r) {
  std::string out;
  for (const auto& [name, f] : r) {
    out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

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
// into schedule_one: in a small function the compiler inlines the destruction of the status each
// filter call returns, which it does not in schedule_one's body.
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

}  // namespace

Scheduler::~Scheduler() = default;

Scheduler::Scheduler(const SchedulerConfig& config, const ProfileConfig& profile,
                     std::uint64_t seed, const Registry& registry)
    : name_(profile.scheduler_name), random_(seed, "scheduler/" + profile.scheduler_name) {
  const std::string& label = profile.label;
  percentage_ = profile.percentage_of_nodes_to_score.value_or(config.percentage_of_nodes_to_score);
  first_feasible_ = profile.first_feasible;
  queue_options_.initial_backoff = config.pod_initial_backoff;
  queue_options_.max_backoff = config.pod_max_backoff;

  // 1. Merge the custom plugin sets into the defaults (default_plugins.go mergePlugins).
  std::map<std::string, PluginSet> merged;
  for (const auto& point : extension_point_names()) {
    PluginSet defaults;
    if (point == "multiPoint") {
      defaults.enabled = default_multi_point_plugins();
    }
    const auto it = profile.plugins.find(point);
    merged[point] = it == profile.plugins.end() ? defaults : merge_plugin_set(defaults, it->second);
  }

  // 2. Instantiate every enabled plugin once (framework.go NewFramework: pluginsNeeded).
  std::map<std::string, Plugin*> instances;
  for (const auto& point : extension_point_names()) {
    for (const auto& e : merged[point].enabled) {
      if (instances.count(e.name) != 0) {
        continue;
      }
      const auto f = registry.find(e.name);
      if (f == registry.end()) {
        throw InputError(e.where, e.path + ".name",
                         fmt::format("plugin \"{}\" does not exist (known plugins: {})", e.name,
                                     known_names(registry)));
      }
      owned_.push_back(f->second.factory(args_for(profile, registry, e.name)));
      instances[e.name] = owned_.back().get();
    }
  }
  for (const auto& [name, args] : profile.plugin_args) {
    if (registry.find(name) == registry.end()) {
      throw InputError(location_of(args.node, args.file), args.path,
                       fmt::format("pluginConfig for unknown plugin \"{}\"", name));
    }
  }

  // 3. Plugins per extension point, then the multiPoint expansion (expandMultiPointPlugins).
  std::map<std::string, std::vector<std::string>> lists;
  for (const auto& point : extension_point_names()) {
    if (point == "multiPoint") {
      continue;
    }
    std::vector<std::string> enabled;
    for (const auto& e : merged[point].enabled) {
      if (!implements_point(instances[e.name], point)) {
        throw InputError(e.where, e.path + ".name",
                         fmt::format("plugin \"{}\" does not extend {} plugin", e.name, point));
      }
      if (std::find(enabled.begin(), enabled.end(), e.name) != enabled.end()) {
        throw InputError(e.where, e.path + ".name",
                         fmt::format("plugin \"{}\" already registered as {}", e.name, point));
      }
      enabled.push_back(e.name);
    }
    std::set<std::string> disabled;
    for (const auto& d : merged[point].disabled) {
      disabled.insert(d.name);
    }
    if (disabled.count("*") != 0) {
      lists[point] = enabled;
      continue;
    }
    std::vector<std::string> multi;
    std::set<std::string> overrides;
    for (const auto& e : merged["multiPoint"].enabled) {
      if (!implements_point(instances[e.name], point) || disabled.count(e.name) != 0) {
        continue;
      }
      if (std::find(enabled.begin(), enabled.end(), e.name) != enabled.end()) {
        overrides.insert(e.name);
        continue;
      }
      if (std::find(multi.begin(), multi.end(), e.name) != multi.end()) {
        throw InputError(e.where, e.path + ".name",
                         fmt::format("plugin \"{}\" already registered as {}", e.name, point));
      }
      multi.push_back(e.name);
    }
    std::vector<std::string> ordered;
    for (const auto& n : enabled) {
      if (overrides.count(n) != 0) {
        ordered.push_back(n);
      }
    }
    ordered.insert(ordered.end(), multi.begin(), multi.end());
    for (const auto& n : enabled) {
      if (overrides.count(n) == 0) {
        ordered.push_back(n);
      }
    }
    lists[point] = ordered;
  }

  const auto profile_error = [&](const std::string& msg) {
    return InputError(profile.where, label + ".plugins", msg);
  };
  if (lists["queueSort"].size() != 1) {
    throw profile_error(fmt::format(
        "only one queue sort plugin required for profile with scheduler name \"{}\", but got {}",
        name_, lists["queueSort"].size()));
  }
  if (lists["bind"].empty()) {
    throw profile_error(fmt::format(
        "at least one bind plugin is needed for profile with scheduler name \"{}\"", name_));
  }
  queue_options_.order = dynamic_cast<QueueSortPlugin*>(instances[lists["queueSort"][0]])->order();

  // 4. Score weights (getScoreWeights): the score entry wins over the multiPoint one.
  std::map<std::string, const PluginEntry*> weight_entry;
  for (const auto* set : {&merged["score"], &merged["multiPoint"]}) {
    for (const auto& e : set->enabled) {
      weight_entry.emplace(e.name, &e);
    }
  }
  for (const auto& n : lists["score"]) {
    const PluginEntry* e = weight_entry.at(n);
    if (!e->weight) {
      throw InputError(e->where, e->path + ".weight",
                       fmt::format("score plugin \"{}\" is not configured with weight (tidesim "
                                   "requires one; kube-scheduler would use 1)",
                                   n));
    }
    if (!instances[n]->no_op()) {  // a no-op scores 0 everywhere: it adds nothing
      score_.push_back(ScoreEntry{dynamic_cast<ScorePlugin*>(instances[n]), *e->weight});
    }
  }
  for (const auto& n : lists["score"]) {
    if (card_chooser_ == nullptr) {
      card_chooser_ = dynamic_cast<CardChooserPlugin*>(instances[n]);
    }
  }
  for (const auto& n : lists["preFilter"]) {
    pre_filter_.push_back(dynamic_cast<PreFilterPlugin*>(instances[n]));
  }
  for (const auto& n : lists["filter"]) {
    if (!instances[n]->no_op()) {
      filter_.push_back(dynamic_cast<FilterPlugin*>(instances[n]));
    }
  }
  for (const auto& n : lists["preScore"]) {
    pre_score_.push_back(dynamic_cast<PreScorePlugin*>(instances[n]));
  }
  for (const auto& n : lists["postFilter"]) {
    if (!instances[n]->no_op()) {
      post_filter_.push_back(dynamic_cast<PostFilterPlugin*>(instances[n]));
    }
  }
  for (const auto& n : lists["permit"]) {
    permit_.push_back(dynamic_cast<PermitPlugin*>(instances[n]));
  }
  // Gangs work under every profile: one that does not list Coscheduling gets it at PreFilter
  // and Permit for the pods of a PodGroup (docs/job-scheduling.md).
  if (instances.count("Coscheduling") == 0) {
    owned_.push_back(make_coscheduling(PluginArgs{}));
    gang_pre_filter_ = dynamic_cast<PreFilterPlugin*>(owned_.back().get());
    permit_.push_back(dynamic_cast<PermitPlugin*>(owned_.back().get()));
  }
  // Plugins keep cycle state from PreFilter/PreScore: a Filter (Score) without its PreFilter
  // (PreScore) would read another pod's state, so such a profile is rejected up front.
  const auto require = [&](const std::string& point, const std::string& pre) {
    for (const auto& n : lists[point]) {
      const bool has_pre = implements_point(instances[n], pre);
      const auto& l = lists[pre];
      if (has_pre && std::find(l.begin(), l.end(), n) == l.end()) {
        throw profile_error(
            fmt::format("plugin \"{}\" is enabled at {} but disabled at {}, which its {} needs", n,
                        point, pre, point));
      }
    }
  };
  require("filter", "preFilter");
  require("score", "preScore");
  for (const auto& [point, names] : lists) {
    auto& out = listing_[point];
    for (const auto& n : names) {
      std::int64_t w = 0;
      if (point == "score") {
        w = *weight_entry.at(n)->weight;
      }
      out.emplace_back(n, w);
    }
  }
}

std::vector<std::pair<std::string, std::int64_t>> Scheduler::plugins_at(
    const std::string& point) const {
  const auto it = listing_.find(point);
  return it == listing_.end() ? std::vector<std::pair<std::string, std::int64_t>>{} : it->second;
}

ScheduleResult Scheduler::schedule_one(const PodSpec& pod, const ClusterView& cluster,
                                       const MetricsSource* metrics, TimePoint now,
                                       const PodGroupStatus* group, std::optional<int> nominated) {
  ScheduleResult result;
  CycleContext ctx = bare_context(cluster, now, ++cycle_, group);
  ctx.metrics = metrics;
  const int n = static_cast<int>(cluster.nodes.size());
  hint_ = CardHint{};
  // Fills in what the cycle left in ctx; every return is `finish(); return result;`, so that the
  // result is constructed in place (no copy of it per cycle).
  const auto finish = [&] {
    if (result.node && card_chooser_ != nullptr) {
      result.cards = card_chooser_->choose_cards(ctx, pod, *result.node);
      hint_ = CardHint{pod.name, *result.node, result.cards};
    }
    result.latency = ctx.latency;
    result.fallback_stage = ctx.fallback_stage;
    result.node_selector_pin = std::move(ctx.node_selector_pin);
    result.alerts = std::move(ctx.alerts);
  };
  if (record_details_) {
    result.details.resize(cluster.nodes.size());
    for (int i = 0; i < n; ++i) {
      result.details[i].node = cluster.nodes[i].node.name;
    }
  }
  if (n == 0) {
    result.reason = "0/0 nodes are available: no nodes in the cluster.";
    finish();
    return result;
  }

  // PreFilter
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
    if (s.code == Code::kError) {
      result.error = true;
      result.reason = fmt::format("running PreFilter plugin \"{}\": {}", p->name(), s.message());
      finish();
      return result;
    }
    if (!s.ok()) {
      result.unresolvable = s.code == Code::kUnschedulableAndUnresolvable;
      result.reason = fmt::format("0/{} nodes are available: {}.", n, s.message());
      finish();
      return result;
    }
  }
  if (gang_pre_filter_ != nullptr && group != nullptr) {
    if (Status s = gang_pre_filter_->pre_filter(ctx, pod); !s.ok()) {
      result.unresolvable = s.code == Code::kUnschedulableAndUnresolvable;
      result.reason = fmt::format("0/{} nodes are available: {}.", n, s.message());
      finish();
      return result;
    }
  }
  // evaluateNominatedNode: a pod nominated by an earlier preemption tries that node first and
  // takes it when it passes the filters.
  if (nominated && *nominated >= 0 && *nominated < n && passes_filters(ctx, pod, *nominated)) {
    result.node = *nominated;
    result.evaluated_nodes = 1;
    result.feasible_nodes = 1;
    finish();
    return result;
  }

  // Filter, with node sampling from the round-robin start (findNodesThatPassFilters). Filter
  // plugins build their reasons only when something reads them (FitError text, explain's details).
  ctx.record_reasons = record_reasons_ || record_details_;
  const int to_find = first_feasible_ ? 1 : num_feasible_nodes_to_find(n, percentage_);
  const int start = first_feasible_ ? 0 : next_start_node_index_;
  feasible_.clear();
  std::map<std::string, int> histogram;
  Status failed;  // the status of the filter that rejected the node, reused from node to node
  int processed = 0;
  for (int k = 0; k < n && static_cast<int>(feasible_.size()) < to_find; ++k) {
    const int i = (start + k) % n;
    ++processed;
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
      finish();
      return result;
    }
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

  if (feasible_.empty() && !record_reasons_) {
    finish();
    return result;
  }
  if (feasible_.empty()) {
    // FitError.Error(): "0/N nodes are available: <count> <reason>, ... ." sorted as strings.
    std::vector<std::string> parts;
    for (const auto& [reason, count] : histogram) {
      parts.push_back(fmt::format("{} {}", count, reason));
    }
    std::sort(parts.begin(), parts.end());
    std::string joined;
    for (const auto& p : parts) {
      joined += (joined.empty() ? "" : ", ") + p;
    }
    result.reason = fmt::format("0/{} nodes are available: {}.", n, joined);
    finish();
    return result;
  }
  if (first_feasible_ || feasible_.size() == 1) {
    result.node = feasible_.front();
    finish();
    return result;
  }

  // PreScore, Score, NormalizeScore, weights (RunScorePlugins).
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
      finish();
      return result;
    }
  }
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
            sp->name(), scores_[j], cluster.nodes[feasible_[j]].node.name, kMinNodeScore,
            kMaxNodeScore);
        finish();
        return result;
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

  // selectHost: the highest total; ties by reservoir sampling from the scheduler's own stream.
  std::size_t selected = 0;
  std::uint64_t count_max = 1;
  for (std::size_t j = 1; j < m; ++j) {
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
  result.node = feasible_[selected];
  finish();
  return result;
}

bool Scheduler::reads_metrics() const {
  return std::any_of(owned_.begin(), owned_.end(),
                     [](const std::unique_ptr<Plugin>& p) { return p->reads_metrics(); });
}

bool Scheduler::reads_forecasts() const {
  return std::any_of(owned_.begin(), owned_.end(),
                     [](const std::unique_ptr<Plugin>& p) { return p->reads_forecasts(); });
}

bool Scheduler::wants_workload() const {
  return std::any_of(owned_.begin(), owned_.end(),
                     [](const std::unique_ptr<Plugin>& p) { return p->wants_workload(); });
}

void Scheduler::observe_workload(std::span<const PodSpec> pods) {
  for (const auto& p : owned_) {
    if (p->wants_workload()) {
      p->observe_workload(pods);
    }
  }
}

const CardHint* Scheduler::card_hint(const std::string& pod, int node) const {
  return hint_.node == node && hint_.pod == pod && !hint_.cards.empty() ? &hint_ : nullptr;
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
  skip_filter_.assign(filter_.size(), 0);
  for (PreFilterPlugin* p : pre_filter_) {
    const Status s = p->pre_filter(ctx, pod);
    if (s.code == Code::kSkip) {
      for (std::size_t k = 0; k < filter_.size(); ++k) {
        if (static_cast<Plugin*>(filter_[k]) == static_cast<Plugin*>(p)) {
          skip_filter_[k] = 1;
        }
      }
    } else if (!s.ok()) {
      return false;
    }
  }
  return passes_filters(ctx, pod, node);
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
