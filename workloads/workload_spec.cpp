#include "tidesim/workloads/workload_spec.hpp"

#include <charconv>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/core.h>

#include "tidesim/llm/job.hpp"
#include "tidesim/sim/input/data_folder.hpp"
#include "tidesim/sim/input/units.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"
#include "tidesim/topologies/gpu_models.hpp"
#include "tidesim/workloads/gpu_models.hpp"
#include "tidesim/workloads/k8s_workload.hpp"
#include "tidesim/workloads/llm_job.hpp"
#include "tidesim/workloads/manifest.hpp"
#include "tidesim/workloads/network_topology.hpp"
#include "tidesim/workloads/step_time.hpp"

namespace tidesim::workloads {
namespace {

// A job entry's `llm:` (workloads/llm_job.hpp): its transformer and layout, validated on its own
// system or an H100's; its pods are the layout's GPUs in pods of `pod.gpus`, tensor parallelism
// inside each pod.
void parse_llm_job(Fields& f, JobSpec& job, const std::string& base_dir) {
  const ConfigNode node = f.get("llm");
  llm::JobSection s = llm::read_job_section(node, f.file(), f.path_of("llm"), base_dir,
                                            *llm::system_preset("h100-80g"));
  const std::int64_t pod = job.pod_template.requests.gpus;
  const llm::Execution& e = s.execution;
  if (pod < 1) {
    throw f.error(node, "llm", "an LLM job's pods ask whole GPUs (pod.gpus >= 1)");
  }
  if (pod % e.tensor_par != 0) {
    throw f.error(node, "llm",
                  fmt::format("tensor_par {} does not divide the pod's {} GPUs: tensor "
                              "parallelism stays inside a pod",
                              e.tensor_par, pod));
  }
  if (e.num_procs % pod != 0) {
    throw f.error(node, "llm",
                  fmt::format("the layout's {} GPUs (tensor x pipeline x data parallel) are not "
                              "whole pods of {} GPUs",
                              e.num_procs, pod));
  }
  job.replicas = static_cast<int>(e.num_procs / pod);
  job.model = s.model.name.empty() ? "llm" : s.model.name;
  job.batch_size = static_cast<int>(e.microbatch_size);
  job.precision = e.datatype;
  job.llm = std::make_shared<const LlmSpec>(
      LlmSpec{std::move(s.model), s.execution, std::move(s.system)});
}

// `reference_gpu`: a GPU model of the hardware catalogue, or "" when absent.
std::string reference_gpu_field(Fields& f) {
  const std::string gpu = f.string("reference_gpu", "");
  if (!gpu.empty()) {
    try {
      (void)tidesim::gpu_model(gpu);
    } catch (const InputError& e) {
      throw f.error(f.get("reference_gpu"), "reference_gpu", e.message());
    }
  }
  return gpu;
}

// The `restart_policy` key: Never | OnFailure (a Job allows no other), else `fallback`.
RestartPolicy restart_policy(Fields& f, RestartPolicy fallback) {
  return *parse_restart_policy(
      f.choice("restart_policy", to_string(fallback), {"Never", "OnFailure"}));
}

using namespace std::chrono_literals;

std::string resolve(const std::string& base_dir, const std::string& path) {
  return input_path(base_dir, path);
}

// The file a `key` of `f` names, resolved against the scenario's folder; an InputError at the key
// when it is not a readable regular file.
std::string input_file(Fields& f, const std::string& key, const std::string& base_dir) {
  const std::string given = f.string(key);
  const std::string path = resolve(base_dir, given);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw f.error(
        f.get(key), key,
        "'" + given + "' is not a file (looked at " + path +
            "; relative paths are resolved against the scenario's folder, $TIDESIM_DATA/... "
            "against the data folder)");
  }
  return path;
}

// A mix entry's `replicas`, its job's GPUs (its pods' x replicas) within a job's most (the pods'
// GPUs are bounded, by a manifest's reader or `pod.gpus`: the product is exact in 64 bits).
int replicas_of(Fields& f, std::int64_t pod_gpus) {
  const auto replicas = static_cast<int>(f.integer("replicas", 1, 1, 100'000));
  if (pod_gpus * replicas > kMaxJobGpus) {
    throw f.error(f.get("replicas"), "replicas",
                  fmt::format("{} replicas of {} GPUs each is more than a job may ask ({} GPUs)",
                              replicas, pod_gpus, kMaxJobGpus));
  }
  return replicas;
}

// Inline pod fields; applied on top of `pod` (a manifest's template or the defaults).
void parse_pod(const ConfigNode& n, const std::string& file, const std::string& path,
               PodSpec& pod) {
  Fields f(n, file, path);
  if (f.has("gpus") || f.has("gpu_milli") || f.has("cpu") || f.has("memory")) {
    // The pod's request is rewritten: a manifest's container breakdown no longer describes it,
    // so the pod counts as one container from here on (api.hpp, PodSpec::containers).
    drop_containers(pod);
  }
  if (f.has("gpus")) {
    pod.requests.gpus = f.integer("gpus", std::nullopt, 0, 1024);
  }
  if (f.has("gpu_milli")) {
    pod.requests.gpu_milli = f.integer("gpu_milli", std::nullopt, 1, 999);
    pod.requests.gpus = 0;
  }
  // cpu and memory are Kubernetes quantities, read as a manifest's requests are (memory may
  // also be written as a byte size, "16GiB").
  if (f.has("cpu")) {
    pod.requests.cpu_milli = f.milli_quantity("cpu", std::nullopt);
  }
  if (f.has("memory")) {
    pod.requests.memory_bytes = f.bytes("memory", std::nullopt);
  }
  if (f.has("image")) {
    pod.image = f.string("image");
  }
  if (f.has("scheduler_name")) {
    pod.scheduler_name = f.string("scheduler_name");
  }
  if (f.has("priority")) {
    pod.priority = static_cast<std::int32_t>(
        f.integer("priority", std::nullopt, -2'147'483'648LL, 1'000'000'000LL));
  }
  // Extended resources asked per pod, e.g. HAMi's nvidia.com/gpumem (integer quantities).
  for (const auto& [name, text] :
       string_map(f.get("extended_resources"), file, f.path_of("extended_resources"))) {
    try {
      pod.requests.extended[name] = parse_integer_quantity(text);
    } catch (const std::exception& e) {
      throw InputError(location_of(f.get("extended_resources")[name], file),
                       f.path_of("extended_resources") + "." + name, e.what());
    }
  }
  if (f.has("preemption_policy")) {
    pod.preemption_policy =
        f.choice("preemption_policy", std::nullopt, {"PreemptLowerPriority", "Never"});
  }
  for (auto& [key, target] :
       {std::pair<const char*, std::map<std::string, std::string>*>{"labels", &pod.labels},
        {"annotations", &pod.annotations},
        {"env", &pod.env},
        {"node_selector", &pod.node_selector}}) {
    for (auto& [k, v] : string_map(f.get(key), file, f.path_of(key))) {
      (*target)[k] = v;
    }
  }
  f.finish();
}

Duration duration_value(const ConfigNode& n, const std::string& file, const std::string& path) {
  if (!n.is_scalar()) {
    throw InputError(location_of(n, file), path, "expected a duration");
  }
  try {
    return parse_duration(n.scalar());
  } catch (const std::exception& e) {
    throw InputError(location_of(n, file), path, e.what());
  }
}

Distribution lognormal_of(const Lognormal& ln) {
  Distribution d;
  d.kind = Distribution::Kind::kLognormal;
  d.lognormal = ln;
  return d;
}

Distribution parse_duration_distribution(const ConfigNode& n, const std::string& file,
                                         const std::string& path) {
  if (n.is_scalar()) {
    Distribution d;
    d.value = to_seconds(duration_value(n, file, path));
    if (!(d.value > 0)) {
      throw InputError(location_of(n, file), path, "must be positive");
    }
    return d;
  }
  Fields f(n, file, path);
  const std::string kind = f.choice("distribution", std::nullopt, {"lognormal", "philly"});
  Distribution d;
  if (kind == "philly") {
    d = lognormal_of(fit_lognormal(philly_runtime_percentiles()));
  } else if (f.has("percentiles")) {
    std::vector<QuantilePoint> pts;
    const ConfigNode pn = f.get("percentiles");
    if (!pn.is_map()) {
      throw f.error(pn, "percentiles", "expected a mapping such as {50: 20m}");
    }
    for (const auto& kv : pn.entries()) {
      if (!kv.first.is_scalar()) {
        throw InputError(location_of(kv.first, file), f.path_of("percentiles"),
                         "a percentile is a number in (0, 100)");
      }
      std::string key = kv.first.scalar();
      const std::string where = f.path_of("percentiles") + "." + key;
      if (!key.empty() && key.front() == 'p') {
        key.erase(0, 1);
      }
      double q = 0;
      try {
        q = std::stod(key);
      } catch (const std::exception&) {
        q = -1;
      }
      if (!(q > 0 && q < 100)) {
        throw InputError(location_of(kv.first, file), where, "a percentile lies in (0, 100)");
      }
      pts.push_back({q / 100.0, to_seconds(duration_value(kv.second, file, where))});
    }
    try {
      d = lognormal_of(fit_lognormal(pts));
    } catch (const std::invalid_argument& e) {
      throw f.error(pn, "percentiles", e.what());
    }
  } else {
    const double sigma = f.number("sigma", std::nullopt, 1e-9, 100);
    double mu = 0;
    if (f.has("median")) {
      mu = std::log(to_seconds(f.duration("median", std::nullopt, 1us)));
    } else {
      mu = f.number("mu", std::nullopt, -100, 100);
    }
    d = lognormal_of(Lognormal{mu, sigma});
  }
  d.min = to_seconds(f.duration("min", 1s, 1us));
  d.max = f.has("max") ? to_seconds(f.duration("max", std::nullopt, 1us)) : 0.0;
  if (d.max > 0 && d.max < d.min) {
    throw f.error(f.get("max"), "max", "max is below min");
  }
  f.finish();
  return d;
}

// A Volcano networkTopology in the scenario's snake case (workloads/network_topology.hpp).
NetworkTopologySpec network_topology(const ConfigNode& n, const std::string& file,
                                     const std::string& path) {
  Fields t(n, file, path);
  return read_network_topology(t, TierKeys{"highest_tier_allowed", "highest_tier_name"});
}

// A Volcano task's partitionPolicy (volcano-sh/apis batch/v1alpha1 PartitionPolicySpec:
// totalPartitions and partitionSize at least 1, minPartitions at least 0, networkTopology).
PartitionPolicySpec partition_policy(const ConfigNode& n, const std::string& file,
                                     const std::string& path) {
  Fields p(n, file, path);
  PartitionPolicySpec s;
  s.total_partitions = static_cast<int>(p.integer("total_partitions", std::nullopt, 1, 100'000));
  s.partition_size = static_cast<int>(p.integer("partition_size", std::nullopt, 1, 100'000));
  s.min_partitions = static_cast<int>(p.integer("min_partitions", 0, 0, 100'000));
  if (s.min_partitions > s.total_partitions) {
    // The gang plugin would find the job invalid forever ("Not enough valid subGroups").
    throw p.error(
        p.get("min_partitions"), "min_partitions",
        fmt::format("{} is more than total_partitions ({})", s.min_partitions, s.total_partitions));
  }
  if (p.has("network_topology")) {
    s.network_topology =
        network_topology(p.get("network_topology"), file, p.path_of("network_topology"));
  }
  p.finish();
  return s;
}

// The `gang` key: the job's PodGroup (docs/job-scheduling.md), or the `workload` key: the pod
// group of a Kubernetes Workload its pods join (workloads/k8s_workload.hpp); nullopt when neither.
std::optional<GangSpec> gang_spec(Fields& f, const std::string& file) {
  if (f.has("workload")) {
    if (f.has("gang")) {
      throw f.error(f.get("workload"), "workload", "set one of gang and workload");
    }
    return gang_of(read_workload_pod_group(f.get("workload"), file, f.path_of("workload")), 0);
  }
  if (!f.has("gang")) {
    return std::nullopt;
  }
  Fields g(f.get("gang"), file, f.path_of("gang"));
  GangSpec s;
  s.mode = g.choice("mode", "permit", {"permit", "all-or-nothing"}) == "permit"
               ? GangMode::kPermit
               : GangMode::kAllOrNothing;
  s.min_member = static_cast<int>(g.integer("min_member", 0, 1, 100'000));
  s.schedule_timeout = g.duration("schedule_timeout", s.schedule_timeout, std::chrono::seconds(1));
  s.min_resources = g.boolean("min_resources", false);
  if (g.has("network_topology")) {
    s.network_topology =
        network_topology(g.get("network_topology"), file, g.path_of("network_topology"));
  }
  if (g.has("partition_policy")) {
    if (s.mode != GangMode::kAllOrNothing) {
      throw g.error(g.get("partition_policy"), "partition_policy",
                    "only mode: all-or-nothing (Volcano) reads partition_policy");
    }
    s.partition_policy =
        partition_policy(g.get("partition_policy"), file, g.path_of("partition_policy"));
  }
  if (s.mode == GangMode::kAllOrNothing && (g.has("schedule_timeout") || g.has("min_resources"))) {
    const std::string key = g.has("schedule_timeout") ? "schedule_timeout" : "min_resources";
    throw g.error(g.get(key), key, "only mode: permit reads " + key);
  }
  g.finish();
  return s;
}

// checkpoint_interval: 0s (no checkpoints) or at least kMinCheckpointInterval.
Duration checkpoint_interval(Fields& f) {
  const Duration d = f.duration("checkpoint_interval", std::chrono::minutes(30));
  if (d > Duration::zero() && d < kMinCheckpointInterval) {
    throw f.error(f.get("checkpoint_interval"), "checkpoint_interval",
                  "'" + f.get("checkpoint_interval").scalar() + "' must be 0s (none) or at least " +
                      format_duration(kMinCheckpointInterval));
  }
  return d;
}

Distribution parse_gpu_distribution(const ConfigNode& n, const std::string& file,
                                    const std::string& path) {
  if (n.is_scalar()) {
    // Range-checked as an integer before it becomes a double and, later, an int replica count
    // (2147483648 became negative, 4294967297 became 1).
    std::int64_t v = 0;
    const std::string& text = n.scalar();
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size() || v < 1 || v > kMaxJobGpus) {
      throw InputError(
          location_of(n, file), path,
          "'" + text + "' is not a GPU count in [1, " + std::to_string(kMaxJobGpus) + "]");
    }
    Distribution d;
    d.value = static_cast<double>(v);
    return d;
  }
  Fields f(n, file, path);
  const std::string kind = f.choice("distribution", std::nullopt, {"choice", "philly"});
  Distribution d;
  d.kind = Distribution::Kind::kChoice;
  if (kind == "philly") {
    for (const auto& [g, w] : philly_gpu_counts()) {
      d.values.push_back(g);
      d.weights.push_back(w);
    }
  } else {
    const auto values = sequence_of(f.require("values"), file, f.path_of("values"));
    const auto weights = sequence_of(f.require("weights"), file, f.path_of("weights"));
    if (values.empty() || values.size() != weights.size()) {
      throw f.error(f.get("weights"), "weights", "give one weight per value");
    }
    for (std::size_t i = 0; i < values.size(); ++i) {
      const auto v = parse_gpu_distribution(values[i], file, f.path_of("values"));
      double w = -1;
      try {
        w = std::stod(weights[i].scalar());
      } catch (const std::exception&) {
      }
      if (!(w >= 0) || !std::isfinite(w)) {
        throw InputError(location_of(weights[i], file), f.path_of("weights"),
                         "a weight is a number >= 0");
      }
      d.values.push_back(v.value);
      d.weights.push_back(w);
    }
    double sum = 0;
    for (double w : d.weights) {
      sum += w;
    }
    if (!(sum > 0)) {
      throw f.error(f.get("weights"), "weights", "weights must not all be 0");
    }
  }
  f.finish();
  return d;
}

ArrivalSpec parse_arrivals(const ConfigNode& n, const std::string& file) {
  Fields f(n, file, "workload.arrivals");
  ArrivalSpec a;
  const std::string process = f.choice("process", std::nullopt, {"burst", "poisson", "diurnal"});
  a.process = process == "burst"     ? ArrivalSpec::Process::kBurst
              : process == "poisson" ? ArrivalSpec::Process::kPoisson
                                     : ArrivalSpec::Process::kDiurnal;
  a.count = static_cast<int>(f.integer("count", std::nullopt, 1, 10'000'000));
  a.start = f.duration(process == "burst" ? "at" : "start", 0s);
  if (a.process != ArrivalSpec::Process::kBurst) {
    a.mean_interarrival = f.duration("mean_interarrival", std::nullopt, 1us);
  }
  if (a.process == ArrivalSpec::Process::kDiurnal) {
    a.amplitude = f.number("amplitude", 0.5, 0.0, 1.0);
    a.period = f.duration("period", 24h, 1s);
    a.peak_at = f.duration("peak_at", 14h);
  }
  f.finish();
  return a;
}

// The manifest files the job mix names, by resolved path, each loaded once and all resolved
// together: their PriorityClasses and PodGroups are visible to the Jobs of every one of them, as
// objects applied to one cluster (docs/scenario-workload.md, "Kubernetes manifests"). An entry
// whose `manifest` is no readable file is skipped here; parse_mix_entry reports it.
using MixManifests = std::map<std::string, ManifestFile>;

MixManifests mix_manifests(const std::vector<ConfigNode>& items, const std::string& base_dir) {
  std::vector<ManifestFile> files;
  std::set<std::string> seen;
  for (const ConfigNode& item : items) {
    if (!item.is_map() || !item["manifest"] || !item["manifest"].is_scalar()) {
      continue;
    }
    const std::string path = resolve(base_dir, item["manifest"].scalar());
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec) && seen.insert(path).second) {
      files.push_back(load_manifest_file(path));
    }
  }
  resolve_manifests(files);
  MixManifests out;
  for (auto& f : files) {
    std::string key = f.file;
    out.emplace(std::move(key), std::move(f));
  }
  return out;
}

// A job entry's work: exactly one of `steps` and `duration`.
void work_of(Fields& f, MixEntry& e) {
  const bool has_steps = f.has("steps");
  const bool has_duration = f.has("duration");
  if (has_steps == has_duration) {
    throw f.error(ConfigNode(), has_steps ? "duration" : "steps",
                  "give exactly one of steps and duration");
  }
  if (has_steps) {
    e.job.steps = f.integer("steps", std::nullopt, 1, kMaxJobSteps);
  }
  if (has_duration) {
    e.duration_seconds =
        parse_duration_distribution(f.get("duration"), f.file(), f.path_of("duration"));
  }
}

// Volcano's job webhook: a task's replicas must be totalPartitions x partitionSize (checked for
// a job whose pods are fixed: its own `gang` and no `gpus` distribution).
void check_partitions(Fields& f, const JobSpec& job) {
  if (!job.gang || !job.gang->partition_policy || !f.has("gang") || f.has("gpus")) {
    return;
  }
  const PartitionPolicySpec& p = *job.gang->partition_policy;
  if (p.total_partitions * p.partition_size != job.replicas) {
    throw f.error(f.get("gang"), "gang",
                  fmt::format("partition_policy: the job's {} pods are not total_partitions x "
                              "partition_size ({} x {})",
                              job.replicas, p.total_partitions, p.partition_size));
  }
}

// A mix entry's `leader:`, the job's second PodSet of one pod (JobSpec::leader): it starts from
// the workers' pod template (labels, annotations but the slice ones, selectors, tolerations,
// priority) without its requests, and its own pod fields apply on top. It coordinates and computes
// nothing, so it asks no GPUs; a Volcano partition policy counts the workers' pods only, so the two
// do not mix.
void parse_leader(Fields& f, JobSpec& job) {
  if (!f.has("leader")) {
    return;
  }
  const ConfigNode n = f.get("leader");
  PodSpec leader = job.pod_template;
  leader.requests = Resources{};
  drop_containers(leader);
  // Slices are the workers' (a slice larger than the leader's one pod is refused by Kueue's
  // webhook): their annotations are not inherited.
  std::erase_if(leader.annotations, [](const auto& kv) {
    return kv.first.starts_with("kueue.x-k8s.io/podset-slice-");
  });
  parse_pod(n, f.file(), f.path_of("leader"), leader);
  const auto refuse = [&](const char* key, const std::string& why) {
    const ConfigNode at = n[key].defined() ? n[key] : n;
    return InputError(location_of(at, f.file()), f.path_of("leader") + "." + key, why);
  };
  if (leader.requests.gpus > 0 || leader.requests.gpu_milli > 0) {
    throw refuse(leader.requests.gpus > 0 ? "gpus" : "gpu_milli",
                 "a leader coordinates and computes nothing: it asks no GPUs (the job's steps "
                 "run on its workers)");
  }
  for (const auto& [name, amount] : leader.requests.extended) {
    if (amount > 0 && std::string_view(name).starts_with("nvidia.com/")) {
      throw refuse("extended_resources", "a leader asks no GPUs (" + std::string(name) +
                                             "): the job's steps run on "
                                             "its workers");
    }
  }
  if (job.gang && job.gang->partition_policy) {
    throw refuse("gpus",
                 "a leader cannot join a Volcano partition policy (its partitions "
                 "count the workers)");
  }
  job.leader = std::move(leader);
}

MixEntry parse_mix_entry(const ConfigNode& n, const std::string& file, const std::string& path,
                         const std::string& base_dir, const Catalogue& catalogue,
                         const MixManifests& manifests) {
  Fields f(n, file, path);
  MixEntry e;
  e.where = location_of(n, file);
  JobSpec& job = e.job;
  std::string default_name = "job";
  job.pod_template.requests.gpus = 1;
  if (f.has("manifest")) {
    const std::string mpath = input_file(f, "manifest", base_dir);
    e.manifest = mpath;
    const std::vector<JobTemplate>& templates = manifests.at(mpath).templates;
    if (templates.empty()) {
      throw f.error(f.get("manifest"), "manifest",
                    "the file holds no Job or Pod (only PriorityClasses or PodGroups)");
    }
    const JobTemplate* chosen = &templates.front();
    if (f.has("manifest_name")) {
      const std::string want = f.string("manifest_name");
      chosen = nullptr;
      for (const auto& t : templates) {
        if (t.name == want) {
          chosen = &t;
        }
      }
      if (chosen == nullptr) {
        throw f.error(f.get("manifest_name"), "manifest_name",
                      "no manifest named '" + want + "' in " + mpath);
      }
    } else if (templates.size() > 1) {
      throw f.error(f.get("manifest"), "manifest",
                    "the file holds several manifests; pick one with manifest_name");
    }
    job.pod_template = chosen->pod;
    job.replicas = chosen->parallelism;
    job.backoff_limit = chosen->backoff_limit;
    job.restart_policy = chosen->restart_policy;
    job.gang = chosen->gang;
    default_name = chosen->name.empty() ? default_name : chosen->name;
  }
  f.get("manifest_name");
  if (f.has("pod")) {
    parse_pod(f.get("pod"), file, f.path_of("pod"), job.pod_template);
    for (const auto& [key, value] : f.get("pod")["labels"].entries()) {
      e.label_where[key.scalar()] = location_of(value, file);
    }
  }
  e.name = f.string("name", default_name);
  e.weight = f.number("weight", 1.0, 1e-12, 1e12);
  if (f.has("llm")) {
    parse_llm_job(f, job, base_dir);
  } else {
    job.model = f.string("model");
    try {
      catalogue.definition(job.model);  // unknown model -> error listing the known ones
    } catch (const InputError& e) {
      throw f.error(f.get("model"), "model", e.message());
    }
    job.batch_size = static_cast<int>(f.integer("batch_size", std::nullopt, 1, 1'000'000));
    job.precision = f.choice("precision", "amp", {"amp", "fp32"});
  }
  job.reference_gpu = reference_gpu_field(f);
  job.checkpoint_interval = checkpoint_interval(f);
  job.backoff_limit = static_cast<int>(f.integer("backoff_limit", job.backoff_limit, 0, 1'000'000));
  job.restart_policy = restart_policy(f, job.restart_policy);
  if (auto gang = gang_spec(f, file)) {
    job.gang = gang;  // replaces the manifest's PodGroup
  }
  const bool has_replicas = f.has("replicas");
  if (has_replicas) {
    const int replicas = replicas_of(f, job.pod_template.requests.gpus);
    if (job.llm && replicas != job.replicas) {
      throw f.error(f.get("replicas"), "replicas",
                    fmt::format("the LLM layout's {} GPUs are {} pods of {}, not {}",
                                job.llm->execution.num_procs, job.replicas,
                                job.pod_template.requests.gpus, replicas));
    }
    job.replicas = replicas;
  }
  if (f.has("gpus")) {
    if (job.llm) {
      throw f.error(f.get("gpus"), "gpus", "an LLM job's GPUs are its layout's (llm.execution)");
    }
    if (has_replicas) {
      throw f.error(f.get("gpus"), "gpus", "give replicas or gpus, not both");
    }
    if (job.pod_template.requests.gpus < 1) {
      throw f.error(f.get("gpus"), "gpus", "gpus needs pods that ask whole GPUs (pod.gpus >= 1)");
    }
    e.gpus = parse_gpu_distribution(f.get("gpus"), file, f.path_of("gpus"));
  }
  check_partitions(f, job);
  parse_leader(f, job);
  work_of(f, e);
  f.finish();
  return e;
}

TraceSource parse_trace_source(const ConfigNode& n, const std::string& file,
                               const std::string& base_dir, const Catalogue& catalogue) {
  Fields f(n, file, "workload.trace");
  TraceSource t;
  t.where = location_of(n, file);
  t.file = input_file(f, "file", base_dir);
  const std::string format = f.choice(
      "format", "auto", {"auto", "native", "openb", "philly", "acme", "helios", "pai2020", "gfs"});
  t.format = parse_trace_format(format);
  t.model = f.string("model", "resnet50");
  try {
    catalogue.definition(t.model);
  } catch (const InputError& e) {
    throw f.error(f.get("model"), "model", e.message());
  }
  t.batch_size = static_cast<int>(f.integer("batch_size", 64, 1, 1'000'000));
  t.precision = f.choice("precision", "amp", {"amp", "fp32"});
  t.reference_gpu = reference_gpu_field(f);
  if (f.has("pod")) {
    parse_pod(f.get("pod"), file, f.path_of("pod"), t.pod);
  }
  t.time_scale = f.number("time_scale", 1.0, 1e-9, 1e9);
  t.limit = f.integer("limit", 0, 0, 1LL << 40);
  if (f.has("default_duration")) {
    t.default_duration = f.duration("default_duration", std::nullopt, 1us);
  }
  t.include_unscheduled = f.boolean("include_unscheduled", true);
  t.queue_from_cluster = f.boolean("queue_from_cluster", false);
  t.checkpoint_interval = checkpoint_interval(f);
  t.backoff_limit = static_cast<int>(f.integer("backoff_limit", 6, 0, 1'000'000));
  t.restart_policy = restart_policy(f, RestartPolicy::kNever);
  t.gang = gang_spec(f, file);
  f.finish();
  return t;
}

PolluxSource parse_pollux_source(const ConfigNode& n, const std::string& file,
                                 const std::string& base_dir, const Catalogue& catalogue) {
  Fields f(n, file, "workload.pollux");
  PolluxSource p;
  p.where = location_of(n, file);
  if (f.has("file") == f.has("generate")) {
    throw f.error(n, "file",
                  "give either file (a workload CSV) or generate (the artifact's generator), "
                  "not both or neither");
  }
  if (f.has("file")) {
    p.file = input_file(f, "file", base_dir);
  } else {
    // The artifact's generator (workloads/pollux_generate.hpp, simulator/workload.py defaults).
    Fields g(f.get("generate"), file, f.path_of("generate"));
    PolluxGenerate gen;
    gen.trace = input_file(g, "trace", base_dir);
    gen.jobs = static_cast<int>(g.integer("jobs", 160, 1, 1'000'000));
    gen.start_hour = static_cast<int>(g.integer("start_hour", 2, 0, 23));
    gen.hours = static_cast<int>(g.integer("hours", 8, 1, 24));
    g.finish();
    p.generate = gen;
  }
  {
    const std::string dir = f.string("applications");
    const std::string resolved = resolve(base_dir, dir);
    if (!std::filesystem::is_directory(resolved)) {
      throw f.error(f.get("applications"), "applications",
                    "no such folder (looked at " + resolved +
                        "; the Pollux artifact's simulator/traces/, $TIDESIM_DATA/pollux)");
    }
    p.applications = resolved;
  }
  p.model = f.string("model", "resnet50");
  try {
    catalogue.definition(p.model);
  } catch (const InputError& e) {
    throw f.error(f.get("model"), "model", e.message());
  }
  p.batch_size = static_cast<int>(f.integer("batch_size", 32, 1, 1'000'000));
  p.precision = f.choice("precision", "amp", {"amp", "fp32"});
  if (f.has("pod")) {
    parse_pod(f.get("pod"), file, f.path_of("pod"), p.pod);
  }
  p.checkpoint_interval = checkpoint_interval(f);
  p.gang = gang_spec(f, file);
  p.whole_epochs = f.boolean("whole_epochs", false);
  const std::string elastic = f.choice("elastic", "none", {"none", "fixed", "adaptive"});
  p.elastic = elastic == "fixed"      ? PolluxSource::Elastic::kFixed
              : elastic == "adaptive" ? PolluxSource::Elastic::kAdaptive
                                      : PolluxSource::Elastic::kNone;
  f.finish();
  return p;
}

// `workload.gavel.generate` (workloads/gavel_generate.hpp).
GavelGenerate parse_gavel_generate(const ConfigNode& n, const std::string& file) {
  Fields f(n, file, "workload.gavel.generate");
  GavelGenerate g;
  g.where = location_of(n, file);
  g.mode = f.choice("mode", "continuous-single",
                    {"continuous-single", "continuous-multiple", "static-multiple"});
  if (g.mode != "static-multiple") {
    g.rate_per_hour = f.number("rate_per_hour", std::nullopt, 1e-6, 1e9);
  }
  g.jobs = static_cast<int>(f.integer("jobs", std::nullopt, 1, 10'000'000));
  if (f.has("seed")) {
    g.seed = static_cast<std::uint64_t>(f.integer("seed", std::nullopt, 0, 1'000'000'000'000));
  }
  g.multi_priority = f.boolean("multi_priority", false);
  g.slos = f.boolean("slos", false);
  g.job_table = f.choice("job_table", "c4fa400", {"c4fa400", "before-2020-08-29"}) == "c4fa400"
                    ? GavelGenerate::JobTable::kCurrent
                    : GavelGenerate::JobTable::kBefore2020_08_29;
  f.finish();
  return g;
}

GavelSource parse_gavel_source(const ConfigNode& n, const std::string& file,
                               const std::string& base_dir) {
  Fields f(n, file, "workload.gavel");
  GavelSource g;
  g.where = location_of(n, file);
  if (f.has("generate") == f.has("trace")) {
    throw f.error(n, "trace", "give one of trace or generate");
  }
  if (f.has("generate")) {
    g.generate = parse_gavel_generate(f.get("generate"), file);
  } else {
    g.trace = input_file(f, "trace", base_dir);
  }
  g.throughputs = input_file(f, "throughputs", base_dir);
  if (f.has("gpu_types")) {
    g.gpu_types = string_map(f.get("gpu_types"), file, f.path_of("gpu_types"));
    if (g.gpu_types.empty()) {
      throw f.error(f.get("gpu_types"), "gpu_types", "name at least one GPU model");
    }
  }
  g.reference_gpu = f.string("reference_gpu", "V100-SXM2-16");
  if (g.gpu_types.count(g.reference_gpu) == 0) {
    throw f.error(f.get("reference_gpu"), "reference_gpu",
                  "'" + g.reference_gpu + "' is not one of gpu_types' models");
  }
  g.dynamic_batch = f.boolean("dynamic_batch", true);
  if (f.has("whole_steps")) {
    g.whole_steps_round_s = to_seconds(f.duration("whole_steps", std::nullopt, Duration::zero()));
  }
  if (f.has("pod")) {
    parse_pod(f.get("pod"), file, f.path_of("pod"), g.pod);
  }
  f.finish();
  return g;
}

ModelDefinition parse_model(const ConfigNode& n, const std::string& file, const std::string& path) {
  Fields f(n, file, path);
  ModelDefinition d;
  d.name = f.string("name");
  d.context_bytes = f.bytes("context", std::int64_t{300} << 20);
  d.model_state_bytes = f.bytes("model_state", std::nullopt);
  const std::int64_t act = f.bytes("activation_per_sample", std::nullopt);
  d.activation_bytes_per_sample = {{"amp", act}, {"fp32", act}};
  d.workspace_bytes = f.bytes("workspace", 0);
  d.input_bytes_per_sample = f.bytes("input_per_sample", 0);
  d.gradient_bytes = f.bytes("gradient", std::nullopt);
  d.ramp_up = f.duration("ramp_up", 10s);
  d.ramp_window = f.duration("ramp_window", d.ramp_up);
  if (d.ramp_window > d.ramp_up) {
    throw f.error(f.get("ramp_window"), "ramp_window", "the ramp window must not exceed ramp_up");
  }
  d.keep_peak = f.choice("allocator", "caching", {"caching", "releasing"}) == "caching";
  if (f.has("peak")) {
    Fields p(f.get("peak"), file, f.path_of("peak"));
    d.peak_extra_bytes = p.bytes("extra", std::nullopt);
    d.peak_period = p.duration("period", std::nullopt, 1s);
    d.peak_duration = p.duration("duration", std::nullopt, 1us);
    if (d.peak_duration >= d.peak_period) {
      throw p.error(p.get("duration"), "duration", "a peak must be shorter than its period");
    }
    p.finish();
  }
  d.step_overhead_fraction = f.fraction("step_overhead", 0.0);
  d.max_batch = static_cast<int>(f.integer("max_batch", 0, 0, 1'000'000));
  const auto items = sequence_of(f.require("throughputs"), file, f.path_of("throughputs"));
  for (std::size_t i = 0; i < items.size(); ++i) {
    Fields t(items[i], file, f.path_of("throughputs") + "[" + std::to_string(i) + "]");
    Throughput tp;
    tp.gpu = t.string("gpu");
    try {
      gpu_model(tp.gpu);
    } catch (const InputError& e) {
      throw t.error(t.get("gpu"), "gpu", e.message());
    }
    tp.precision = t.choice("precision", "amp", {"amp", "fp32"});
    tp.batch = static_cast<int>(t.integer("batch", std::nullopt, 1, 1'000'000));
    tp.samples_per_second = t.number("samples_per_second", std::nullopt, 1e-9, 1e12);
    tp.source = t.string("source", "scenario " + file);
    t.finish();
    d.throughputs.push_back(tp);
  }
  if (d.throughputs.empty()) {
    throw f.error(f.get("throughputs"), "throughputs", "give at least one measurement");
  }
  f.finish();
  return d;
}

}  // namespace

WorkloadSpec parse_workload(const ConfigNode& node, const std::string& file,
                            const std::string& base_dir) {
  Fields f(node, file, "workload");
  WorkloadSpec spec;
  spec.file = file;
  spec.where = location_of(node, file);
  spec.reference_gpu = reference_gpu_field(f);
  if (f.has("models")) {
    const auto items = sequence_of(f.get("models"), file, "workload.models");
    for (std::size_t i = 0; i < items.size(); ++i) {
      spec.models.push_back(
          parse_model(items[i], file, "workload.models[" + std::to_string(i) + "]"));
    }
  }
  Catalogue catalogue;
  for (std::size_t i = 0; i < spec.models.size(); ++i) {
    try {
      catalogue.add(spec.models[i]);
    } catch (const InputError& e) {
      throw InputError(location_of(f.get("models")[i], file),
                       "workload.models[" + std::to_string(i) + "]", e.message());
    }
  }
  const bool synthetic = f.has("arrivals") || f.has("jobs");
  if (f.has("gavel")) {
    if (synthetic || f.has("trace") || f.has("pollux")) {
      throw f.error(f.get("gavel"), "gavel",
                    "give one of gavel, pollux, trace or arrivals + jobs, not several");
    }
    spec.gavel = parse_gavel_source(f.get("gavel"), file, base_dir);
  } else if (f.has("pollux")) {
    if (synthetic || f.has("trace")) {
      throw f.error(f.get("pollux"), "pollux",
                    "give one of pollux, trace or arrivals + jobs, not several");
    }
    spec.pollux = parse_pollux_source(f.get("pollux"), file, base_dir, catalogue);
  } else if (f.has("trace")) {
    if (synthetic) {
      throw f.error(f.get("trace"), "trace", "give either trace or arrivals + jobs, not both");
    }
    spec.trace = parse_trace_source(f.get("trace"), file, base_dir, catalogue);
  } else {
    if (!f.has("arrivals") || !f.has("jobs")) {
      throw f.error(ConfigNode(), f.has("arrivals") ? "jobs" : "arrivals",
                    "missing required field (a workload is a trace, or arrivals + jobs)");
    }
    spec.arrivals = parse_arrivals(f.get("arrivals"), file);
    const auto items = sequence_of(f.get("jobs"), file, "workload.jobs");
    if (items.empty()) {
      throw f.error(f.get("jobs"), "jobs", "the job mix is empty");
    }
    const MixManifests manifests = mix_manifests(items, base_dir);
    for (std::size_t i = 0; i < items.size(); ++i) {
      spec.mix.push_back(parse_mix_entry(items[i], file, "workload.jobs[" + std::to_string(i) + "]",
                                         base_dir, catalogue, manifests));
    }
  }
  f.finish();
  return spec;
}

Catalogue catalogue_of(const WorkloadSpec& spec) {
  Catalogue c;
  for (const auto& m : spec.models) {
    c.add(m);
  }
  return c;
}

}  // namespace tidesim::workloads
