// `tidesim explain`: one scheduling decision, node by node (filter verdicts, per-plugin scores).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>

#include "tidesim/policies/kube_objects.hpp"
#include "tidesim/policies/scheduler.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/tools/cli/commands.hpp"
#include "tidesim/tools/cli/options.hpp"

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
  std::string objects;
  std::string pod;
  std::string pod_file;
  std::string scheduler = "default-k8s";
  std::string profile;
  std::string format = "text";
  std::uint64_t seed = 1;
};

std::string describe_score(const policies::PluginScore& s) {
  std::string out = fmt::format("{:<32} {:>4} -> {:>3} x{:<3} = {:>5}", s.plugin, s.raw,
                                s.normalized, s.weight, s.weighted);
  if (!s.note.empty()) {
    out += "   (" + s.note + ")";
  }
  return out;
}

void print_text(const PodSpec& pod, const policies::Scheduler& s, const ClusterView& c,
                const ScheduleResult& r) {
  fmt::print("pod {}/{} with scheduler {} on {} node(s)\n\n", pod.namespace_name, pod.name,
             s.name(), c.nodes.size());
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
    fmt::print("chosen node: {}\n", c.nodes[*r.node].node.name);
  } else {
    fmt::print("unschedulable: {}\n", r.reason);
  }
}

nlohmann::json to_json(const PodSpec& pod, const policies::Scheduler& s, const ClusterView& c,
                       const ScheduleResult& r) {
  nlohmann::json j;
  j["pod"] = pod.namespace_name + "/" + pod.name;
  j["scheduler"] = s.name();
  j["chosen_node"] = r.node ? nlohmann::json(c.nodes[*r.node].node.name) : nlohmann::json();
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
        throw InputError(SourceLocation{o.objects, 0, 0}, "pod " + p.spec->name + " spec.nodeName",
                         "bound to unknown node '" + p.spec->node_name + "'");
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
  auto scheduler =
      policies::make_scheduler(o.scheduler, o.seed, policies::SchedulerOptions{o.profile});
  scheduler->set_record_details(true);
  const ScheduleResult r = scheduler->schedule_one(*pending, cluster, &metrics, TimePoint{});
  if (o.format == "json") {
    fmt::print("{}\n", to_json(*pending, *scheduler, cluster, r).dump(2));
  } else {
    print_text(*pending, *scheduler, cluster, r);
  }
  return r.error ? 1 : 0;
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
                  "spec.nodeName; node metrics come from tidesim.io/* node annotations)")
      ->required();
  cmd->add_option("--pod", opts->pod,
                  "The pending pod (name or namespace/name); default: the only pod without "
                  "spec.nodeName");
  cmd->add_option("--pod-file", opts->pod_file, "Read the pending pod from this file instead");
  cmd->add_option("-s,--scheduler", opts->scheduler,
                  "Built-in scheduler (first-fit, default-k8s, load-aware, most-allocated) or a "
                  "KubeSchedulerConfiguration file")
      ->capture_default_str();
  cmd->add_option("--profile", opts->profile, "Profile (schedulerName) in a multi-profile config");
  cmd->add_option("--format", opts->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_option("--seed", opts->seed, "Seed of the tie-break stream")
      ->capture_default_str()
      ->check(non_negative_integer());
  cmd->callback([&ctx, opts] {
    ctx.input = opts->objects;
    ctx.run = [opts] { return run_explain(*opts); };
  });
}

}  // namespace tidesim::cli
