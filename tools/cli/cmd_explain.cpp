// `tidesim explain`: one scheduling decision, node by node (filter verdicts, per-plugin scores,
// the tie-break): of a pod given as Kubernetes objects, or of a scenario's run at a time.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>

#include "tidesim/policies/kube_objects.hpp"
#include "tidesim/policies/loaded_profile.hpp"
#include "tidesim/policies/scheduler.hpp"
#include "tidesim/sim/experiments/explain_gang.hpp"
#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"
#include "tidesim/tools/cli/commands.hpp"
#include "tidesim/tools/cli/options.hpp"
#include "tidesim/tools/lib/policy_select.hpp"

namespace tidesim::cli {
namespace {

using policies::ScheduleResult;

// Node metrics read from node annotations, answered as a Prometheus query would be.
class AnnotationMetrics : public MetricsSource {
 public:
  std::map<std::string, std::pair<NodeMetrics, Duration>> nodes;
  MetricsAnswer query(const std::string& node, TimePoint) const override {
    MetricsAnswer a;
    const auto it = nodes.find(node);
    if (it != nodes.end()) {
      a.metrics = it->second.first;
      a.latency = it->second.second;
    }
    return a;
  }
};

struct ExplainOptions {
  /// The command line's plugin registry (Context::registry).
  policies::RegistryPtr registry;
  std::string objects;
  std::string pod;
  std::string pod_file;
  std::string scheduler = "default-k8s";
  std::string profile;
  std::string format = "text";
  std::uint64_t seed = 1;
  bool seed_given = false;
  /// Scenario mode: the time and the policy.
  std::string at;
  std::string policy;
};

// The nodes that share the highest total of a scored cycle, in node order (a tie when two or
// more: the scheduler draws one from its seeded stream, Scheduler::select_host).
std::vector<std::string> tied_nodes(const ScheduleResult& r) {
  std::optional<std::int64_t> best;
  for (const auto& d : r.details) {
    if (d.scored && (!best || d.total > *best)) {
      best = d.total;
    }
  }
  std::vector<std::string> tied;
  for (const auto& d : r.details) {
    if (d.scored && d.total == best) {
      tied.push_back(d.node);
    }
  }
  return tied.size() > 1 ? tied : std::vector<std::string>{};
}

// The chosen node's name.
std::string chosen_name(const ScheduleResult& r) {
  return r.node && static_cast<std::size_t>(*r.node) < r.details.size() ? r.details[*r.node].node
                                                                        : std::string();
}

std::string describe_score(const policies::PluginScore& s) {
  std::string out = fmt::format("{:<32} {:>4} -> {:>3} x{:<3} = {:>5}", s.plugin, s.raw,
                                s.normalized, s.weight, s.weighted);
  if (!s.note.empty()) {
    out += "   (" + s.note + ")";
  }
  return out;
}

void print_text(const PodSpec& pod, const std::string& scheduler, std::uint64_t seed,
                const ScheduleResult& r) {
  fmt::print("pod {}/{} with scheduler {} on {} node(s)\n\n", pod.namespace_name, pod.name,
             scheduler, r.details.size());
  for (const auto& d : r.details) {
    std::string verdict = !d.evaluated
                              ? "not evaluated (search stopped: node sampling or first-fit)"
                          : d.feasible ? "feasible"
                                       : "rejected by " + d.failed_plugin + ": ";
    if (d.evaluated && !d.feasible) {
      for (std::size_t i = 0; i < d.reasons.size(); ++i) {
        verdict += (i ? ", " : "") + d.reasons[i];
      }
    }
    fmt::print("{}: {}\n", d.node, verdict);
    for (const auto& n : d.notes) {
      fmt::print("    {}\n", n);
    }
    if (d.scored) {
      for (const auto& sc : d.scores) {
        fmt::print("    {}\n", describe_score(sc));
      }
      fmt::print("    {:<32} {:>28}\n", "total", d.total);
    }
  }
  fmt::print("\n");
  if (r.fallback_stage > 0) {
    fmt::print("fallback stage {} (metrics late or missing)\n", r.fallback_stage);
  }
  for (const auto& a : r.alerts) {
    fmt::print("alert: {}\n", a);
  }
  if (r.latency > Duration::zero()) {
    fmt::print("cycle latency: {}\n", format_duration(r.latency));
  }
  if (r.node) {
    if (r.feasible_nodes == 1) {
      fmt::print("chosen without scoring (one feasible node found)\n");
    }
    if (const std::vector<std::string> tied = tied_nodes(r); !tied.empty()) {
      std::string list;
      for (const auto& n : tied) {
        list += (list.empty() ? "" : ", ") + n;
      }
      fmt::print(
          "tie: {} nodes share the highest total ({}); the scheduler drew one from its seeded "
          "tie-break stream (seed {}, stream \"scheduler/{}\"): another seed may choose another\n",
          tied.size(), list, seed, scheduler);
    }
    fmt::print("chosen node: {}\n", chosen_name(r));
  } else {
    fmt::print("unschedulable: {}\n", r.reason);
  }
}

nlohmann::json to_json(const PodSpec& pod, const std::string& scheduler, std::uint64_t seed,
                       const ScheduleResult& r) {
  nlohmann::json j;
  j["pod"] = pod.namespace_name + "/" + pod.name;
  j["scheduler"] = scheduler;
  j["seed"] = seed;
  j["chosen_node"] = r.node ? nlohmann::json(chosen_name(r)) : nlohmann::json();
  j["tied_nodes"] = tied_nodes(r);
  j["reason"] = r.reason;
  j["error"] = r.error;
  j["fallback_stage"] = r.fallback_stage;
  j["latency_us"] = r.latency.count();
  j["alerts"] = r.alerts;
  j["evaluated_nodes"] = r.evaluated_nodes;
  j["feasible_nodes"] = r.feasible_nodes;
  j["nodes"] = nlohmann::json::array();
  for (const auto& d : r.details) {
    nlohmann::json n;
    n["name"] = d.node;
    n["evaluated"] = d.evaluated;
    n["feasible"] = d.feasible;
    n["failed_plugin"] = d.failed_plugin;
    n["reasons"] = d.reasons;
    n["notes"] = d.notes;
    n["scored"] = d.scored;
    n["scores"] = nlohmann::json::array();
    for (const auto& sc : d.scores) {
      n["scores"].push_back({{"plugin", sc.plugin},
                             {"raw", sc.raw},
                             {"normalized", sc.normalized},
                             {"weight", sc.weight},
                             {"weighted", sc.weighted},
                             {"note", sc.note}});
    }
    n["total"] = d.total;
    j["nodes"].push_back(n);
  }
  return j;
}

int run_explain(const ExplainOptions& o) {
  const policies::KubeObjects objects = policies::read_kube_objects(o.objects);
  ClusterView cluster;
  AnnotationMetrics metrics;
  for (const auto& n : objects.nodes) {
    NodeInfo info;
    info.node = n.spec;
    cluster.nodes.push_back(info);
    if (auto m = policies::metrics_from_annotations(n, o.objects)) {
      metrics.nodes[n.spec.name] = *m;
    }
  }
  std::shared_ptr<const PodSpec> pending;
  std::vector<std::shared_ptr<const PodSpec>> candidates;
  for (const auto& p : objects.pods) {
    if (p.phase == "Succeeded" || p.phase == "Failed") {
      continue;
    }
    if (!p.spec->node_name.empty() &&
        (o.pod.empty() ||
         (o.pod != p.spec->name && o.pod != p.spec->namespace_name + "/" + p.spec->name))) {
      const int idx = cluster.index_of(p.spec->node_name);
      if (idx < 0) {
        throw InputError(p.node_name_where, p.node_name_field,
                         "pod '" + p.spec->name + "' is bound to node '" + p.spec->node_name +
                             "', which the file does not list (no Node of that name)");
      }
      cluster.nodes[idx].add_pod(p.spec);
      continue;
    }
    if (p.spec->node_name.empty() || !o.pod.empty()) {
      candidates.push_back(p.spec);
    }
  }
  if (!o.pod_file.empty()) {
    const auto pf = policies::read_kube_objects(o.pod_file);
    if (pf.pods.size() != 1 || !pf.nodes.empty()) {
      throw InputError(SourceLocation{o.pod_file, 0, 0}, "--pod-file", "expected exactly one Pod");
    }
    pending = pf.pods.front().spec;
  } else if (!o.pod.empty()) {
    for (const auto& p : candidates) {
      if (p->name == o.pod || p->namespace_name + "/" + p->name == o.pod) {
        pending = p;
      }
    }
    if (!pending) {
      throw InputError(SourceLocation{o.objects, 0, 0}, "--pod",
                       "no pod named '" + o.pod + "' in the file");
    }
  } else {
    if (candidates.size() != 1) {
      throw InputError(SourceLocation{o.objects, 0, 0}, "--pod",
                       fmt::format("{} pending pods (without spec.nodeName) in the file; name one "
                                   "with --pod or give --pod-file",
                                   candidates.size()));
    }
    pending = candidates.front();
  }
  policies::ProfilePlace place;
  place.field = "--scheduler";
  place.registry = o.registry;
  const auto profile = policies::load_profile(o.scheduler, place);
  auto scheduler =
      policies::make_scheduler(*profile, o.seed, policies::SchedulerOptions{o.profile});
  scheduler->set_record_details(true);
  const ScheduleResult r = scheduler->schedule_one(*pending, cluster, &metrics, TimePoint{});
  const std::string name(scheduler->name());
  if (o.format == "json") {
    fmt::print("{}\n", to_json(*pending, name, o.seed, r).dump(2));
  } else {
    print_text(*pending, name, o.seed, r);
  }
  return r.error ? 1 : 0;
}

// Where each pod is, "pod on node, ...".
std::string placements(const std::vector<std::string>& pods,
                       const std::vector<std::string>& nodes) {
  std::string out;
  for (std::size_t i = 0; i < pods.size() && i < nodes.size(); ++i) {
    out += fmt::format("{}{} on {}", out.empty() ? "" : ", ", pods[i], nodes[i]);
  }
  return out;
}

std::string at_text(TimePoint t) {
  return fmt::format("t = {} ({:.3f} s)", format_duration(t.time_since_epoch()), to_seconds(t));
}

void print_gang_cycle(const GangCycle& c) {
  if (c.placed) {
    fmt::print("cycle at {} (attempt {}): placed, {}\n", at_text(c.at), c.attempt,
               placements(c.tried, c.nodes));
    return;
  }
  fmt::print(
      "cycle at {} (attempt {}): not placed ({} pod(s) tried, every reservation undone): "
      "{}\n",
      at_text(c.at), c.attempt, c.tried.size(), c.missing);
}

// A pod of an all-or-nothing gang: the gang's cycles (explain_gang.hpp). At most the first and
// the last 10 cycles are printed as text; JSON has every one.
void print_gang_text(const GangExplanation& g) {
  const std::int64_t gpus = g.member_request.gpus;
  fmt::print(
      "pod {} is a member of the all-or-nothing gang {}: {} pods{}, placed in one cycle or "
      "none\n",
      g.pod, g.job, g.members, gpus > 0 ? fmt::format(" of {} GPUs", gpus) : "");
  if (g.submitted) {
    fmt::print("submitted at {}; attempt {} waiting since {}\n", at_text(*g.submitted), g.attempt,
               g.waiting_since ? at_text(*g.waiting_since) : std::string("-"));
  }
  if (!g.admission.empty()) {
    fmt::print("admission: {}\n", g.admission);
  }
  const std::size_t n = g.cycles.size();
  fmt::print("{} gang cycle(s)\n", n);
  for (std::size_t i = 0; i < n; ++i) {
    if (n > 20 && i == 10) {
      fmt::print("... {} more cycle(s) (--format json lists every one)\n", n - 20);
      i = n - 10;
    }
    print_gang_cycle(g.cycles[i]);
  }
  if (!g.bound.empty() && g.bound_at) {
    std::vector<std::string> pods;
    std::vector<std::string> nodes;
    for (const auto& [pod, node] : g.bound) {
      pods.push_back(pod);
      nodes.push_back(node);
    }
    const std::string waited =
        g.waiting_since ? fmt::format(" after waiting {:.3f} s ({:.2f} h)",
                                      to_seconds(*g.bound_at - *g.waiting_since),
                                      to_seconds(*g.bound_at - *g.waiting_since) / 3600.0)
                        : "";
    fmt::print("bound at {}{}: {}\n", at_text(*g.bound_at), waited, placements(pods, nodes));
  } else {
    fmt::print("not bound by the time asked\n");
  }
}

nlohmann::json gang_json(const GangExplanation& g) {
  nlohmann::json j;
  j["pod"] = g.pod;
  j["gang"] = g.job;
  j["members"] = g.members;
  j["member_gpus"] = g.member_request.gpus;
  j["attempt"] = g.attempt;
  j["submitted_s"] = g.submitted ? nlohmann::json(to_seconds(*g.submitted)) : nlohmann::json();
  j["waiting_since_s"] =
      g.waiting_since ? nlohmann::json(to_seconds(*g.waiting_since)) : nlohmann::json();
  j["admission"] = g.admission;
  j["cycles"] = nlohmann::json::array();
  for (const GangCycle& c : g.cycles) {
    nlohmann::json cj{{"at_s", to_seconds(c.at)},  {"attempt", c.attempt}, {"placed", c.placed},
                      {"tried", c.tried},          {"nodes", c.nodes},     {"missing", c.missing},
                      {"room_total", c.room_total}};
    cj["room"] = nlohmann::json::array();
    for (const GangNodeRoom& r : c.room) {
      cj["room"].push_back({{"node", r.node}, {"free_gpus", r.free_gpus}, {"members", r.members}});
    }
    j["cycles"].push_back(cj);
  }
  j["bound"] = nlohmann::json::array();
  for (const auto& [pod, node] : g.bound) {
    j["bound"].push_back({{"pod", pod}, {"node", node}});
  }
  j["bound_at_s"] = g.bound_at ? nlohmann::json(to_seconds(*g.bound_at)) : nlohmann::json();
  return j;
}

// Whether `path` holds a scenario (a mapping with a `cluster:` key) rather than Kubernetes objects.
bool is_scenario(const std::string& path) {
  const std::vector<ConfigNode> docs = load_all_yaml_file(path);
  return docs.size() == 1 && docs.front().is_map() && docs.front()["cluster"].defined() &&
         !docs.front()["kind"].defined();
}

// `explain SCENARIO --pod NAME` for a pod of an all-or-nothing gang.
int explain_gang_pod(const Scenario& s, const Workload& workload, const PolicyConfig& policy,
                     std::uint64_t seed, TimePoint at, const ExplainOptions& o) {
  const std::optional<GangExplanation> g = explain_gang(s, workload, policy, seed, at, o.pod);
  if (!g) {
    throw InputError(SourceLocation{}, "--pod",
                     "the gang of pod '" + o.pod + "' was not submitted by " +
                         format_duration(at.time_since_epoch()) + " under policy '" + policy.name +
                         "' (seed " + std::to_string(seed) + ")");
  }
  if (o.format == "json") {
    nlohmann::json j = gang_json(*g);
    j["scenario"] = s.name;
    j["policy"] = policy.name;
    j["seed"] = seed;
    j["at_s"] = to_seconds(at);
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("scenario {}, policy {}, seed {}: up to {}\n", s.name, policy.name, seed,
               o.at.empty() ? std::string("the run's end") : at_text(at));
    print_gang_text(*g);
  }
  return 0;
}

// `tidesim explain SCENARIO [--policy P] [--seed S] [--at T] [--pod NAME]`.
int run_explain_scenario(const ExplainOptions& o) {
  const Scenario s = load_scenario(o.objects, nullptr, o.registry);
  if (o.policy.empty() && s.policies.size() > 1) {
    std::string names;
    for (const auto& p : s.policies) {
      names += (names.empty() ? "" : ", ") + p.name;
    }
    throw InputError(
        SourceLocation{o.objects, 0, 0}, "--policy",
        fmt::format("the scenario has {} policies ({}): name one", s.policies.size(), names));
  }
  const PolicyConfig policy =
      app::select_policies(
          s, o.policy.empty() ? std::vector<std::string>{} : std::vector<std::string>{o.policy})
          .front();
  const std::uint64_t seed = o.seed_given || s.seeds.empty() ? o.seed : s.seeds.front();
  Duration at{0};
  if (!o.at.empty()) {
    try {
      at = parse_duration(o.at);
    } catch (const std::invalid_argument& e) {
      throw InputError(SourceLocation{}, "--at", e.what());
    }
    if (at < Duration::zero()) {
      throw InputError(SourceLocation{}, "--at", "'" + o.at + "' is before the run starts");
    }
  }
  const Workload workload = make_jobs(s, seed);
  if (!o.pod.empty() && all_or_nothing_job(workload, o.pod)) {
    // Without --at, a gang is explained over the whole run.
    return explain_gang_pod(s, workload, policy, seed, TimePoint(o.at.empty() ? s.run.until : at),
                            o);
  }
  const std::optional<ExplainedCycle> cycle =
      explain_cycle(s, workload, policy, seed, TimePoint(at), o.pod);
  const std::string when = format_duration(at);
  if (!cycle) {
    throw InputError(
        SourceLocation{}, o.pod.empty() ? "--at" : "--pod",
        o.pod.empty()
            ? "policy '" + policy.name + "' (seed " + std::to_string(seed) +
                  ") makes no scheduling cycle at or after " + when
            : "pod '" + o.pod + "' has no scheduling cycle at or before " + when +
                  " under policy '" + policy.name + "' (seed " + std::to_string(seed) +
                  "); jobs.csv and attempts.csv of `tidesim run --output DIR` name the pods");
  }
  if (o.format == "json") {
    nlohmann::json j = to_json(cycle->pod, cycle->scheduler, seed, cycle->result);
    j["scenario"] = s.name;
    j["policy"] = policy.name;
    j["at_s"] = to_seconds(cycle->at);
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("scenario {}, policy {}, seed {}: the cycle at t = {} ({:.3f} s)\n", s.name,
               policy.name, seed, format_duration(cycle->at.time_since_epoch()),
               to_seconds(cycle->at));
    print_text(cycle->pod, cycle->scheduler, seed, cycle->result);
  }
  return 0;
}

}  // namespace

void add_explain_command(CLI::App& app, Context& ctx) {
  auto opts = std::make_shared<ExplainOptions>();
  auto* cmd = app.add_subcommand(
      "explain",
      "Explain one scheduling decision: per node, the filter verdict and each score plugin's raw, "
      "normalized and weighted score");
  cmd->add_option("objects", opts->objects,
                  "Kubernetes objects: a `kubectl get nodes,pods -o yaml` List (bound pods have "
                  "spec.nodeName; node metrics come from tidesim.io/* node annotations); or a "
                  "scenario, whose run is replayed to --at")
      ->required();
  cmd->add_option("--pod", opts->pod,
                  "The pending pod (name or namespace/name); default: the only pod without "
                  "spec.nodeName. With a scenario: explain this pod's last cycle at or before "
                  "--at; for a pod of an all-or-nothing gang, the gang's cycles up to --at "
                  "(default: the whole run)");
  cmd->add_option("--at", opts->at,
                  "With a scenario: replay its run to this time (e.g. 90s, 2h) and explain the "
                  "next scheduling cycle (default 0s: the first)");
  cmd->add_option("--policy", opts->policy,
                  "With a scenario: the policy whose run is replayed (as run's --policy; needed "
                  "when the scenario has several)");
  cmd->add_option("--pod-file", opts->pod_file, "Read the pending pod from this file instead");
  auto* scheduler =
      cmd->add_option("-s,--scheduler", opts->scheduler,
                      "Built-in scheduler (" +
                          fmt::format("{}", fmt::join(policies::builtin_scheduler_names(), ", ")) +
                          ") or a KubeSchedulerConfiguration file")
          ->capture_default_str();
  cmd->add_option("--profile", opts->profile, "Profile (schedulerName) in a multi-profile config");
  cmd->add_option("--format", opts->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  auto* seed = cmd->add_option("--seed", opts->seed,
                               "Seed of the tie-break stream (with a scenario: of the run; "
                               "default its first seed)")
                   ->capture_default_str()
                   ->check(non_negative_integer());
  cmd->callback([&ctx, opts, seed, scheduler] {
    ctx.input = opts->objects;
    opts->registry = ctx.registry;
    opts->seed_given = seed->count() > 0;
    const bool scheduler_given = scheduler->count() > 0;
    ctx.run = [opts, scheduler_given] {
      if (!opts->at.empty() || !opts->policy.empty() || is_scenario(opts->objects)) {
        if (!opts->pod_file.empty() || !opts->profile.empty() || scheduler_given) {
          throw InputError(SourceLocation{},
                           !opts->pod_file.empty() ? "--pod-file"
                           : scheduler_given       ? "--scheduler"
                                                   : "--profile",
                           "applies to Kubernetes objects, not to a scenario (choose one of its "
                           "policies, or any policy, with --policy)");
        }
        return run_explain_scenario(*opts);
      }
      return run_explain(*opts);
    };
  });
}

}  // namespace tidesim::cli
