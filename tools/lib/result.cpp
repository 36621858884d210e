#include "tidesim/tools/lib/result.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "tidesim/sim/input/error.hpp"
#include "tidesim/sim/input/text_file.hpp"
#include "tidesim/sim/metrics/node_stats.hpp"
#include "tidesim/tools/lib/json_locate.hpp"
#include "tidesim/tools/lib/stats.hpp"
#include "tidesim/version.hpp"

namespace tidesim::app {
namespace {

using nlohmann::json;

constexpr const char* kSchemaName = "tidesim-result";

double round6(double x) {
  return std::round(x * 1e6) / 1e6;
}

json optional_number(const std::optional<double>& v) {
  return v ? json(*v) : json(nullptr);
}

// ---- strict reading -------------------------------------------------------------------------

class Reader {
 public:
  explicit Reader(const std::string& source) : source_(source) {}

  [[noreturn]] void fail(const std::string& path, const std::string& message) const {
    throw InputError(SourceLocation{source_, 0, 0}, path, message);
  }

  const json& member(const json& obj, const std::string& path, const char* key) const {
    if (!obj.is_object()) {
      fail(path, "expected an object");
    }
    const auto it = obj.find(key);
    if (it == obj.end()) {
      fail(path + "." + key, "missing field");
    }
    return *it;
  }

  std::string string(const json& v, const std::string& path) const {
    if (!v.is_string()) {
      fail(path, "expected a string");
    }
    return v.get<std::string>();
  }
  double number(const json& v, const std::string& path) const {
    if (!v.is_number()) {
      fail(path, "expected a number");
    }
    return v.get<double>();
  }
  std::optional<double> optional_number(const json& v, const std::string& path) const {
    if (v.is_null()) {
      return std::nullopt;
    }
    return number(v, path);
  }
  std::int64_t integer(const json& v, const std::string& path) const {
    if (!v.is_number_integer()) {
      fail(path, "expected an integer");
    }
    return v.get<std::int64_t>();
  }
  int small_int(const json& v, const std::string& path) const {
    const std::int64_t i = integer(v, path);
    if (i < INT32_MIN || i > INT32_MAX) {
      fail(path, "integer out of range");
    }
    return static_cast<int>(i);
  }
  std::uint64_t unsigned_integer(const json& v, const std::string& path) const {
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0)) {
      fail(path, "expected a non-negative integer");
    }
    return v.get<std::uint64_t>();
  }
  bool boolean(const json& v, const std::string& path) const {
    if (!v.is_boolean()) {
      fail(path, "expected true or false");
    }
    return v.get<bool>();
  }
  const json& array(const json& v, const std::string& path) const {
    if (!v.is_array()) {
      fail(path, "expected an array");
    }
    return v;
  }
  const json& object(const json& v, const std::string& path) const {
    if (!v.is_object()) {
      fail(path, "expected an object");
    }
    return v;
  }

  template <class T, class F>
  std::vector<T> list(const json& v, const std::string& path, F&& read_one) const {
    array(v, path);
    std::vector<T> out;
    out.reserve(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      out.push_back(read_one(v[i], fmt::format("{}[{}]", path, i)));
    }
    return out;
  }

 private:
  const std::string& source_;
};

// ---- summary ---------------------------------------------------------------------------------

json summary_json(const RunResult& result) {
  json summary = json::object();
  const auto policies = result.policy_names();
  for (const auto& policy : policies) {
    const auto runs = result.runs_of(policy);
    std::set<std::string> names;
    for (const auto* run : runs) {
      for (const auto& [name, v] : run->metrics) {
        names.insert(name);
      }
    }
    json per_metric = json::object();
    for (const auto& name : names) {
      const auto values = metric_values(runs, name);
      const auto s = summarize(values);
      per_metric[name] = {{"n", s->n},
                          {"mean", s->mean},
                          {"sd", optional_number(s->sd)},
                          {"ci95_half", optional_number(s->ci95_half)}};
    }
    summary["policies"][policy] = per_metric;
  }
  // Paired differences of every later policy against the first, over the seeds both ran.
  json diffs = json::array();
  if (policies.size() >= 2) {
    const auto base_runs = result.runs_of(policies[0]);
    for (std::size_t k = 1; k < policies.size(); ++k) {
      const auto other_runs = result.runs_of(policies[k]);
      json per_metric = json::object();
      std::set<std::string> names;
      for (const auto* run : other_runs) {
        for (const auto& [name, v] : run->metrics) {
          names.insert(name);
        }
      }
      for (const auto& name : names) {
        std::vector<double> a;
        std::vector<double> b;
        for (const auto* ra : base_runs) {
          for (const auto* rb : other_runs) {
            if (ra->seed != rb->seed) {
              continue;
            }
            const auto ia = ra->metrics.find(name);
            const auto ib = rb->metrics.find(name);
            if (ia != ra->metrics.end() && ib != rb->metrics.end()) {
              a.push_back(ia->second);
              b.push_back(ib->second);
            }
          }
        }
        if (const auto d = paired_difference(a, b)) {
          per_metric[name] = {{"n", d->n},
                              {"mean_difference", d->mean},
                              {"ci95_half", optional_number(d->ci95_half)},
                              {"relative_change", optional_number(d->relative)}};
        }
      }
      diffs.push_back(
          {{"baseline", policies[0]}, {"policy", policies[k]}, {"metrics", per_metric}});
    }
  }
  summary["paired_differences"] = diffs;
  return summary;
}

// ---- writing ----------------------------------------------------------------------------------

json job_json(const JobRecord& j) {
  return {{"name", j.name},
          {"submit_s", j.submit_s},
          {"first_bind_s", optional_number(j.first_bind_s)},
          {"start_s", optional_number(j.start_s)},
          {"finish_s", optional_number(j.finish_s)},
          {"state", j.state},
          {"gpus", j.gpus},
          {"nodes", j.nodes},
          {"oom_kills", j.oom_kills},
          {"restarts", j.restarts},
          {"evictions", j.evictions},
          {"nvlink_required", j.nvlink_required},
          {"nvlink_counted_s", j.nvlink_counted_s},
          {"nvlink_contended_s", j.nvlink_contended_s}};
}

json event_json(const EventRecord& e) {
  return {{"t_s", e.t_s}, {"kind", e.kind}, {"job", e.job},
          {"pod", e.pod}, {"node", e.node}, {"fallback_stage", e.fallback_stage}};
}

json attempt_json(const AttemptRecord& a) {
  json j = {{"job", a.job},
            {"attempt", a.attempt},
            {"pod", a.pod},
            {"node", a.node},
            {"cards", a.cards},
            {"bound_s", optional_number(a.bound_s)},
            {"started_s", optional_number(a.started_s)},
            {"ended_s", optional_number(a.ended_s)},
            {"outcome", a.outcome}};
  if (a.oom_card) {
    j["oom"] = {{"card", *a.oom_card},
                {"memory_used_bytes", a.oom_memory_used},
                {"memory_capacity_bytes", a.oom_memory_capacity},
                {"co_located", a.oom_co_located}};
  } else {
    j["oom"] = nullptr;
  }
  return j;
}

json optional_vector(const std::vector<std::optional<double>>& v) {
  json out = json::array();
  for (const auto& x : v) {
    out.push_back(optional_number(x));
  }
  return out;
}

json node_series_json(const NodeSeries& n) {
  return {{"node", n.node},
          {"gpu_memory_capacity_bytes", n.gpu_memory_capacity_bytes},
          {"t_s", n.t_s},
          {"gpu_utilization", n.gpu_utilization},
          {"gpu_memory_used_bytes", n.gpu_memory_used_bytes},
          {"nvlink_utilization", n.nvlink_utilization},
          {"nvlink_competition_index", n.nvlink_competition_index},
          {"storage_await_ms", n.storage_await_ms},
          {"gpus_allocated", n.gpus_allocated},
          {"gpus_allocatable", n.gpus_allocatable}};
}

json series_head_json(const ClusterSeries& s) {
  return {{"t_s", s.t_s},
          {"pending_pods", s.pending_pods},
          {"running_jobs", s.running_jobs},
          {"gpu_util_stddev", optional_vector(s.gpu_util_stddev)},
          {"lscs", optional_vector(s.lscs)}};
}

json series_json(const ClusterSeries& s) {
  json doc = series_head_json(s);
  json nodes = json::array();
  for (const auto& n : s.nodes) {
    nodes.push_back(node_series_json(n));
  }
  doc["nodes"] = std::move(nodes);
  return doc;
}

// ---- reading ----------------------------------------------------------------------------------

JobRecord read_job(const Reader& r, const json& v, const std::string& p) {
  JobRecord j;
  j.name = r.string(r.member(v, p, "name"), p + ".name");
  j.submit_s = r.number(r.member(v, p, "submit_s"), p + ".submit_s");
  j.first_bind_s = r.optional_number(r.member(v, p, "first_bind_s"), p + ".first_bind_s");
  j.start_s = r.optional_number(r.member(v, p, "start_s"), p + ".start_s");
  j.finish_s = r.optional_number(r.member(v, p, "finish_s"), p + ".finish_s");
  j.state = r.string(r.member(v, p, "state"), p + ".state");
  static const std::set<std::string> kStates{"succeeded", "failed", "unfinished", "unscheduled"};
  if (!kStates.contains(j.state)) {
    r.fail(p + ".state", "unknown state '" + j.state +
                             "' (expected succeeded, failed, unfinished or unscheduled)");
  }
  j.gpus = r.small_int(r.member(v, p, "gpus"), p + ".gpus");
  j.nodes =
      r.list<std::string>(r.member(v, p, "nodes"), p + ".nodes",
                          [&r](const json& x, const std::string& q) { return r.string(x, q); });
  j.oom_kills = r.small_int(r.member(v, p, "oom_kills"), p + ".oom_kills");
  j.restarts = r.small_int(r.member(v, p, "restarts"), p + ".restarts");
  j.evictions = r.small_int(r.member(v, p, "evictions"), p + ".evictions");
  j.nvlink_required = r.boolean(r.member(v, p, "nvlink_required"), p + ".nvlink_required");
  j.nvlink_counted_s = r.number(r.member(v, p, "nvlink_counted_s"), p + ".nvlink_counted_s");
  j.nvlink_contended_s = r.number(r.member(v, p, "nvlink_contended_s"), p + ".nvlink_contended_s");
  return j;
}

EventRecord read_event(const Reader& r, const json& v, const std::string& p) {
  EventRecord e;
  e.t_s = r.number(r.member(v, p, "t_s"), p + ".t_s");
  e.kind = r.string(r.member(v, p, "kind"), p + ".kind");
  e.job = r.string(r.member(v, p, "job"), p + ".job");
  e.pod = r.string(r.member(v, p, "pod"), p + ".pod");
  e.node = r.string(r.member(v, p, "node"), p + ".node");
  e.fallback_stage = r.small_int(r.member(v, p, "fallback_stage"), p + ".fallback_stage");
  return e;
}

AttemptRecord read_attempt(const Reader& r, const json& v, const std::string& p) {
  AttemptRecord a;
  a.job = r.string(r.member(v, p, "job"), p + ".job");
  a.attempt = r.small_int(r.member(v, p, "attempt"), p + ".attempt");
  a.pod = r.string(r.member(v, p, "pod"), p + ".pod");
  a.node = r.string(r.member(v, p, "node"), p + ".node");
  a.cards = r.list<int>(r.member(v, p, "cards"), p + ".cards",
                        [&r](const json& x, const std::string& q) { return r.small_int(x, q); });
  a.bound_s = r.optional_number(r.member(v, p, "bound_s"), p + ".bound_s");
  a.started_s = r.optional_number(r.member(v, p, "started_s"), p + ".started_s");
  a.ended_s = r.optional_number(r.member(v, p, "ended_s"), p + ".ended_s");
  a.outcome = r.string(r.member(v, p, "outcome"), p + ".outcome");
  static const std::set<std::string> kOutcomes{"succeeded", "oom_killed", "stopped",
                                               "evicted",   "unfinished", "pending"};
  if (!kOutcomes.contains(a.outcome)) {
    r.fail(p + ".outcome", "unknown outcome '" + a.outcome + "'");
  }
  if (const auto it = v.find("oom"); it != v.end() && !it->is_null()) {
    const std::string q = p + ".oom";
    a.oom_card = r.small_int(r.member(*it, q, "card"), q + ".card");
    a.oom_memory_used = static_cast<std::int64_t>(
        r.unsigned_integer(r.member(*it, q, "memory_used_bytes"), q + ".memory_used_bytes"));
    a.oom_memory_capacity = static_cast<std::int64_t>(r.unsigned_integer(
        r.member(*it, q, "memory_capacity_bytes"), q + ".memory_capacity_bytes"));
    a.oom_co_located =
        r.list<std::string>(r.member(*it, q, "co_located"), q + ".co_located",
                            [&r](const json& x, const std::string& s) { return r.string(x, s); });
  }
  return a;
}

std::vector<double> read_numbers(const Reader& r, const json& v, const std::string& p) {
  return r.list<double>(v, p, [&r](const json& x, const std::string& q) { return r.number(x, q); });
}

std::vector<int> read_ints(const Reader& r, const json& v, const std::string& p) {
  return r.list<int>(v, p, [&r](const json& x, const std::string& q) { return r.small_int(x, q); });
}

std::vector<std::optional<double>> read_optionals(const Reader& r, const json& v,
                                                  const std::string& p) {
  return r.list<std::optional<double>>(
      v, p, [&r](const json& x, const std::string& q) { return r.optional_number(x, q); });
}

NodeSeries read_node_series(const Reader& r, const json& v, const std::string& p) {
  NodeSeries n;
  n.node = r.string(r.member(v, p, "node"), p + ".node");
  n.gpu_memory_capacity_bytes =
      r.integer(r.member(v, p, "gpu_memory_capacity_bytes"), p + ".gpu_memory_capacity_bytes");
  n.t_s = read_numbers(r, r.member(v, p, "t_s"), p + ".t_s");
  n.gpu_utilization = r.list<std::vector<double>>(
      r.member(v, p, "gpu_utilization"), p + ".gpu_utilization",
      [&r](const json& x, const std::string& q) { return read_numbers(r, x, q); });
  n.gpu_memory_used_bytes = r.list<std::vector<std::int64_t>>(
      r.member(v, p, "gpu_memory_used_bytes"), p + ".gpu_memory_used_bytes",
      [&r](const json& x, const std::string& q) {
        return r.list<std::int64_t>(
            x, q, [&r](const json& y, const std::string& s) { return r.integer(y, s); });
      });
  n.nvlink_utilization = r.list<std::vector<double>>(
      r.member(v, p, "nvlink_utilization"), p + ".nvlink_utilization",
      [&r](const json& x, const std::string& q) { return read_numbers(r, x, q); });
  n.nvlink_competition_index =
      read_numbers(r, r.member(v, p, "nvlink_competition_index"), p + ".nvlink_competition_index");
  n.storage_await_ms = read_numbers(r, r.member(v, p, "storage_await_ms"), p + ".storage_await_ms");
  n.gpus_allocated = read_ints(r, r.member(v, p, "gpus_allocated"), p + ".gpus_allocated");
  n.gpus_allocatable = read_ints(r, r.member(v, p, "gpus_allocatable"), p + ".gpus_allocatable");
  const std::size_t len = n.t_s.size();
  if (n.gpu_utilization.size() != len || n.gpu_memory_used_bytes.size() != len ||
      n.nvlink_utilization.size() != len || n.nvlink_competition_index.size() != len ||
      n.storage_await_ms.size() != len || n.gpus_allocated.size() != len ||
      n.gpus_allocatable.size() != len) {
    r.fail(p, "every series must have one entry per t_s");
  }
  return n;
}

ClusterSeries read_series(const Reader& r, const json& v, const std::string& p) {
  ClusterSeries s;
  s.t_s = read_numbers(r, r.member(v, p, "t_s"), p + ".t_s");
  s.pending_pods = read_ints(r, r.member(v, p, "pending_pods"), p + ".pending_pods");
  s.running_jobs = read_ints(r, r.member(v, p, "running_jobs"), p + ".running_jobs");
  s.gpu_util_stddev = read_optionals(r, r.member(v, p, "gpu_util_stddev"), p + ".gpu_util_stddev");
  s.lscs = read_optionals(r, r.member(v, p, "lscs"), p + ".lscs");
  const std::size_t len = s.t_s.size();
  if (s.pending_pods.size() != len || s.running_jobs.size() != len ||
      s.gpu_util_stddev.size() != len || s.lscs.size() != len) {
    r.fail(p, "every series must have one entry per t_s");
  }
  s.nodes = r.list<NodeSeries>(
      r.member(v, p, "nodes"), p + ".nodes",
      [&r](const json& x, const std::string& q) { return read_node_series(r, x, q); });
  return s;
}

SeedRun read_run(const Reader& r, const json& v, const std::string& p) {
  SeedRun run;
  run.policy = r.string(r.member(v, p, "policy"), p + ".policy");
  run.seed = r.unsigned_integer(r.member(v, p, "seed"), p + ".seed");
  run.end_s = r.number(r.member(v, p, "end_s"), p + ".end_s");
  const json& metrics = r.object(r.member(v, p, "metrics"), p + ".metrics");
  for (const auto& [name, value] : metrics.items()) {
    run.metrics[name] = r.number(value, p + ".metrics." + name);
  }
  run.jobs =
      r.list<JobRecord>(r.member(v, p, "jobs"), p + ".jobs",
                        [&r](const json& x, const std::string& q) { return read_job(r, x, q); });
  run.events = r.list<EventRecord>(
      r.member(v, p, "events"), p + ".events",
      [&r](const json& x, const std::string& q) { return read_event(r, x, q); });
  // "attempts" was added to schema version 1 later: optional when reading.
  if (const auto it = v.find("attempts"); it != v.end()) {
    run.attempts = r.list<AttemptRecord>(
        *it, p + ".attempts",
        [&r](const json& x, const std::string& q) { return read_attempt(r, x, q); });
  }
  if (const auto it = v.find("series"); it != v.end() && !it->is_null()) {
    run.series = read_series(r, *it, p + ".series");
  }
  return run;
}

}  // namespace

// ---- RunResult --------------------------------------------------------------------------------

std::vector<double> metric_values(const std::vector<const SeedRun*>& runs,
                                  const std::string& metric) {
  std::vector<double> values;
  for (const auto* run : runs) {
    if (const auto it = run->metrics.find(metric); it != run->metrics.end()) {
      values.push_back(it->second);
    }
  }
  return values;
}

std::vector<const SeedRun*> RunResult::runs_of(std::string_view policy) const {
  std::vector<const SeedRun*> out;
  for (const auto& run : runs) {
    if (run.policy == policy) {
      out.push_back(&run);
    }
  }
  return out;
}

std::vector<std::string> RunResult::policy_names() const {
  std::vector<std::string> names = metadata.policies;
  for (const auto& run : runs) {
    if (std::find(names.begin(), names.end(), run.policy) == names.end()) {
      names.push_back(run.policy);
    }
  }
  return names;
}

RunMetadata make_metadata(std::string name, std::string path, std::string hash,
                          std::vector<std::uint64_t> seeds, std::vector<std::string> policies) {
  RunMetadata m;
  m.tidesim_version = kVersion;
  m.scenario_name = std::move(name);
  m.scenario_path = std::move(path);
  m.scenario_hash = std::move(hash);
  m.seeds = std::move(seeds);
  m.policies = std::move(policies);
  return m;
}

namespace {

// Everything of the document but "runs".
json head_json(const RunResult& result) {
  json doc;
  doc["schema"] = kSchemaName;
  doc["schema_version"] = kResultSchemaVersion;
  const auto& m = result.metadata;
  doc["metadata"] = {
      {"tidesim_version", m.tidesim_version},
      {"scenario",
       {{"name", m.scenario_name}, {"path", m.scenario_path}, {"hash", m.scenario_hash}}},
      {"seeds", m.seeds},
      {"policies", m.policies}};
  if (m.provenance) {
    doc["metadata"]["provenance"] = *m.provenance;
  }
  if (result.reference) {
    doc["reference"] = {{"label", result.reference->label}, {"values", result.reference->values}};
  } else {
    doc["reference"] = nullptr;
  }
  doc["summary"] = summary_json(result);
  return doc;
}

// A run's members but its records and series.
json run_head_json(const SeedRun& run) {
  json r = {{"policy", run.policy}, {"seed", run.seed}, {"end_s", run.end_s}};
  r["metrics"] = json::object();
  for (const auto& [name, value] : run.metrics) {
    r["metrics"][name] = value;
  }
  return r;
}

// ---- streaming: the text of json::dump(2), one member at a time ----

void spaces(std::ostream& out, int n) {
  for (int i = 0; i < n; ++i) {
    out.put(' ');
  }
}

// `v.dump(2)` as if `v` stood `indent` spaces deep (a JSON text has no raw line break inside a
// string, so every line break is dump's own).
void put_value(std::ostream& out, const json& v, int indent) {
  const std::string text = v.dump(2);
  std::size_t from = 0;
  for (std::size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', from)) {
    out.write(text.data() + from, static_cast<std::streamsize>(nl + 1 - from));
    spaces(out, indent);
    from = nl + 1;
  }
  out.write(text.data() + from, static_cast<std::streamsize>(text.size() - from));
}

using Writer = std::function<void(std::ostream&, int)>;

// An object whose small members are in `small` and whose large ones are written by `large`, in
// key order as nlohmann's objects (a std::map) print them.
void put_object(std::ostream& out, int indent, const json& small,
                std::vector<std::pair<std::string, Writer>> large) {
  for (const auto& [key, value] : small.items()) {
    large.emplace_back(key, [&v = value](std::ostream& o, int in) { put_value(o, v, in); });
  }
  std::sort(large.begin(), large.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  if (large.empty()) {
    out << "{}";
    return;
  }
  out << "{\n";
  for (std::size_t i = 0; i < large.size(); ++i) {
    spaces(out, indent + 2);
    out << json(large[i].first).dump() << ": ";
    large[i].second(out, indent + 2);
    out << (i + 1 < large.size() ? ",\n" : "\n");
  }
  spaces(out, indent);
  out << '}';
}

// An array of `items`, each written as `to_json(item)`.
template <class T, class F>
Writer array_of(const std::vector<T>& items, F to_json) {
  return [&items, to_json](std::ostream& out, int indent) {
    if (items.empty()) {
      out << "[]";
      return;
    }
    out << "[\n";
    for (std::size_t i = 0; i < items.size(); ++i) {
      spaces(out, indent + 2);
      put_value(out, to_json(items[i]), indent + 2);
      out << (i + 1 < items.size() ? ",\n" : "\n");
    }
    spaces(out, indent);
    out << ']';
  };
}

void put_run(std::ostream& out, const SeedRun& run, int indent) {
  std::vector<std::pair<std::string, Writer>> large;
  large.emplace_back("jobs", array_of(run.jobs, job_json));
  large.emplace_back("events", array_of(run.events, event_json));
  large.emplace_back("attempts", array_of(run.attempts, attempt_json));
  if (run.series) {
    const ClusterSeries& s = *run.series;
    large.emplace_back("series", [&s](std::ostream& o, int in) {
      put_object(o, in, series_head_json(s), {{"nodes", array_of(s.nodes, node_series_json)}});
    });
  } else {
    large.emplace_back("series", [](std::ostream& o, int) { o << "null"; });
  }
  put_object(out, indent, run_head_json(run), std::move(large));
}

}  // namespace

nlohmann::json to_json(const RunResult& result) {
  json doc = head_json(result);
  json runs = json::array();
  for (const auto& run : result.runs) {
    json r = run_head_json(run);
    r["jobs"] = json::array();
    for (const auto& j : run.jobs) {
      r["jobs"].push_back(job_json(j));
    }
    r["events"] = json::array();
    for (const auto& e : run.events) {
      r["events"].push_back(event_json(e));
    }
    r["attempts"] = json::array();
    for (const auto& a : run.attempts) {
      r["attempts"].push_back(attempt_json(a));
    }
    r["series"] = run.series ? series_json(*run.series) : json(nullptr);
    runs.push_back(std::move(r));
  }
  doc["runs"] = std::move(runs);
  return doc;
}

void write_result(std::ostream& out, const RunResult& result) {
  const Writer runs = [&result](std::ostream& o, int indent) {
    if (result.runs.empty()) {
      o << "[]";
      return;
    }
    o << "[\n";
    for (std::size_t i = 0; i < result.runs.size(); ++i) {
      spaces(o, indent + 2);
      put_run(o, result.runs[i], indent + 2);
      o << (i + 1 < result.runs.size() ? ",\n" : "\n");
    }
    spaces(o, indent);
    o << ']';
  };
  put_object(out, 0, head_json(result), {{"runs", runs}});
}

RunResult from_json(const nlohmann::json& doc, const std::string& source) {
  const Reader r(source);
  if (r.string(r.member(doc, "", "schema"), "schema") != kSchemaName) {
    r.fail("schema", std::string("not a tidesim result (expected \"") + kSchemaName + "\")");
  }
  const auto version = r.integer(r.member(doc, "", "schema_version"), "schema_version");
  if (version != kResultSchemaVersion) {
    r.fail("schema_version", fmt::format("unsupported version {} (this tidesim reads {})", version,
                                         kResultSchemaVersion));
  }
  RunResult result;
  const json& meta = r.member(doc, "", "metadata");
  auto& m = result.metadata;
  m.tidesim_version =
      r.string(r.member(meta, "metadata", "tidesim_version"), "metadata.tidesim_version");
  const json& scenario = r.member(meta, "metadata", "scenario");
  m.scenario_name =
      r.string(r.member(scenario, "metadata.scenario", "name"), "metadata.scenario.name");
  m.scenario_path =
      r.string(r.member(scenario, "metadata.scenario", "path"), "metadata.scenario.path");
  m.scenario_hash =
      r.string(r.member(scenario, "metadata.scenario", "hash"), "metadata.scenario.hash");
  m.seeds = r.list<std::uint64_t>(
      r.member(meta, "metadata", "seeds"), "metadata.seeds",
      [&r](const json& x, const std::string& q) { return r.unsigned_integer(x, q); });
  m.policies =
      r.list<std::string>(r.member(meta, "metadata", "policies"), "metadata.policies",
                          [&r](const json& x, const std::string& q) { return r.string(x, q); });
  if (const auto it = meta.find("provenance"); it != meta.end()) {
    m.provenance = r.object(*it, "metadata.provenance");
  }
  if (const auto it = doc.find("reference"); it != doc.end() && !it->is_null()) {
    Reference ref;
    ref.label = r.string(r.member(*it, "reference", "label"), "reference.label");
    const json& values = r.object(r.member(*it, "reference", "values"), "reference.values");
    for (const auto& [metric, per_policy] : values.items()) {
      const std::string p = "reference.values." + metric;
      for (const auto& [policy, value] : r.object(per_policy, p).items()) {
        ref.values[metric][policy] = r.number(value, p + "." + policy);
      }
    }
    result.reference = std::move(ref);
  }
  result.runs =
      r.list<SeedRun>(r.member(doc, "", "runs"), "runs",
                      [&r](const json& x, const std::string& q) { return read_run(r, x, q); });
  return result;
}

RunResult load_result(const std::string& path) {
  const std::string text = read_text_file(path, "the result file");
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    // e.byte is 1-based: the byte at which parsing stopped.
    throw InputError(locate_json_offset(text, e.byte > 0 ? e.byte - 1 : 0, path), "",
                     fmt::format("not valid JSON: {}", e.what()));
  } catch (const json::exception& e) {  // e.g. a number too large for a double (out_of_range 406)
    throw InputError(SourceLocation{path, 0, 0}, "", fmt::format("not valid JSON: {}", e.what()));
  }
  try {
    return from_json(doc, path);
  } catch (const InputError& e) {
    if (e.where().line != 0 || e.where().file != path) {
      throw;
    }
    // The reader names the field; its place is found in the text.
    throw InputError(locate_json_value(text, e.field(), path), e.field(), e.message());
  }
}

void save_result(const RunResult& result, const std::string& path) {
  std::ofstream out(path);
  if (!out) {
    throw std::runtime_error("cannot write " + path);
  }
  write_result(out, result);
  out << '\n';
  if (!out) {
    throw std::runtime_error("failed writing " + path);
  }
}

// ---- Recorder ---------------------------------------------------------------------------------

Recorder::Recorder(std::string policy, std::uint64_t seed, RecorderOptions options)
    : policy_(std::move(policy)),
      seed_(seed),
      options_(options),
      collectors_(std::move(options.collectors)) {}

void Recorder::attach(RunSignals& signals) {
  signals.job.connect([this](const JobEvent& e) { on_job(e); });
  signals.sample.connect([this](const ClusterSample& s) { on_sample(s); });
  signals.rate.connect([this](const JobRate& r) { on_rate(r); });
  signals.scheduling.connect([this](const SchedulingEvent& e) { on_scheduling(e); });
  signals.forecast.connect([this](const LoadForecastBatch& b) { collectors_.on_forecast(b); });
  signals.quota.connect([this](const QuotaEvent& e) { collectors_.on_quota(e); });
}

void Recorder::on_job(const JobEvent& event) {
  collectors_.on_job(event);
  attempts_.on_job(event);
  auto [it, inserted] = jobs_.try_emplace(event.job);
  JobTrack& track = it->second;
  JobRecord& job = track.record;
  const double t = to_seconds(event.at);
  auto note = [&](const char* kind) {
    events_.push_back(EventRecord{.t_s = t,
                                  .kind = kind,
                                  .job = event.job,
                                  .pod = event.pod,
                                  .node = event.node,
                                  .fallback_stage = 0});
  };
  switch (event.kind) {
    case JobEventKind::kSubmitted:
      if (!track.submitted) {
        track.submitted = true;
        job.name = event.job;
        job.submit_s = t;
        job.gpus = event.gpus;
        job.nvlink_required = event.nvlink_required;
        job_order_.push_back(event.job);
      }
      break;
    case JobEventKind::kBound:
      if (!job.first_bind_s) {
        job.first_bind_s = t;
      }
      if (!event.node.empty() &&
          std::find(job.nodes.begin(), job.nodes.end(), event.node) == job.nodes.end()) {
        job.nodes.push_back(event.node);
      }
      break;
    case JobEventKind::kStarted:
      if (!job.start_s) {
        job.start_s = t;
      }
      break;
    case JobEventKind::kOomKilled:
      ++job.oom_kills;
      note("oom_killed");
      break;
    case JobEventKind::kEvicted:
      ++job.evictions;
      note("evicted");
      break;
    case JobEventKind::kRestarted:
      ++job.restarts;
      note("restarted");
      break;
    case JobEventKind::kSucceeded:
      job.finish_s = t;
      job.state = "succeeded";
      break;
    case JobEventKind::kFailed:
      job.finish_s = t;
      job.state = "failed";
      note("failed");
      break;
  }
}

void Recorder::on_sample(const ClusterSample& sample) {
  collectors_.on_sample(sample);
  if (!options_.record_series) {
    return;
  }
  if (options_.series_step > Duration::zero()) {
    if (sample.at < next_kept_) {
      return;
    }
    const Duration step = options_.series_step;
    next_kept_ = TimePoint((sample.at.time_since_epoch() / step + 1) * step);
  }
  const double t = to_seconds(sample.at);
  series_.t_s.push_back(t);
  series_.pending_pods.push_back(sample.pending_pods);
  series_.running_jobs.push_back(sample.running_jobs);
  const auto sd = metrics::gpu_utilization_stddev(sample);
  series_.gpu_util_stddev.push_back(sd ? std::optional<double>(round6(*sd)) : std::nullopt);
  const auto& lscs = collectors_.lscs().series();
  const auto l = lscs.empty() ? std::nullopt : lscs.back().second;
  series_.lscs.push_back(l ? std::optional<double>(round6(*l)) : std::nullopt);
  if (!options_.node_series) {
    return;
  }
  for (std::size_t k = 0; k < sample.nodes.size(); ++k) {
    const NodeState& node = sample.nodes[k];
    // Samples list the nodes in one order, so the node is nearly always at its own position:
    // one name comparison instead of a lookup by name per node and sample.
    std::size_t index = k;
    if (k >= series_.nodes.size() || series_.nodes[k].node != node.name) {
      auto [it, inserted] = node_index_.try_emplace(node.name, series_.nodes.size());
      if (inserted) {
        NodeSeries fresh;
        fresh.node = node.name;
        series_.nodes.push_back(std::move(fresh));
      }
      index = it->second;
    }
    NodeSeries& n = series_.nodes[index];
    n.gpu_memory_capacity_bytes = node.gpu_memory_capacity;
    row_util_.clear();
    for (const double u : node.gpu_utilization) {
      row_util_.push_back(round6(u));
    }
    row_nvlink_.clear();
    for (const double u : node.nvlink_utilization) {
      row_nvlink_.push_back(round6(u));
    }
    const double competition = round6(node.nvlink_competition_index);
    const double await_ms = round6(node.storage_await_ms);
    // Change points: a node's row is kept only when it differs from its previous one (the value
    // holds until the node's next t_s; finish() closes every series at the last sample).
    if (!n.t_s.empty() && n.gpu_utilization.back() == row_util_ &&
        n.gpu_memory_used_bytes.back() == node.gpu_memory_used &&
        n.nvlink_utilization.back() == row_nvlink_ &&
        n.nvlink_competition_index.back() == competition && n.storage_await_ms.back() == await_ms &&
        n.gpus_allocated.back() == node.gpus_allocated &&
        n.gpus_allocatable.back() == node.gpus_allocatable) {
      continue;
    }
    n.t_s.push_back(t);
    n.gpu_utilization.push_back(row_util_);
    n.gpu_memory_used_bytes.push_back(node.gpu_memory_used);
    n.nvlink_utilization.push_back(row_nvlink_);
    n.nvlink_competition_index.push_back(competition);
    n.storage_await_ms.push_back(await_ms);
    n.gpus_allocated.push_back(node.gpus_allocated);
    n.gpus_allocatable.push_back(node.gpus_allocatable);
  }
}

void Recorder::on_rate(const JobRate& rate) {
  collectors_.on_rate(rate);
}

void Recorder::on_scheduling(const SchedulingEvent& event) {
  collectors_.on_scheduling(event);
  if (event.fallback_stage > 0) {
    events_.push_back(EventRecord{.t_s = to_seconds(event.at),
                                  .kind = "fallback",
                                  .job = "",
                                  .pod = event.pod,
                                  .node = event.node,
                                  .fallback_stage = event.fallback_stage});
  }
}

SeedRun Recorder::finish(TimePoint end) const {
  SeedRun run;
  run.policy = policy_;
  run.seed = seed_;
  run.end_s = to_seconds(end);
  collectors_.finish(end, run.metrics);
  const auto nvlink = collectors_.nvlink_contention().job_totals(end);
  for (const auto& name : job_order_) {
    JobRecord job = jobs_.find(name)->second.record;
    if (job.state.empty()) {
      job.state = job.first_bind_s ? "unfinished" : "unscheduled";
    }
    if (const auto it = nvlink.find(name); it != nvlink.end()) {
      job.nvlink_counted_s = it->second.counted_s;
      job.nvlink_contended_s = it->second.contended_s;
    }
    run.jobs.push_back(std::move(job));
  }
  run.events = events_;
  run.attempts = attempts_.finish();
  if (options_.record_series) {
    run.series = series_;
    // Each node's series ends with a row at the last sample (its last change holds until then).
    if (!run.series->t_s.empty()) {
      const double last = run.series->t_s.back();
      for (NodeSeries& n : run.series->nodes) {
        if (!n.t_s.empty() && n.t_s.back() < last) {
          n.t_s.push_back(last);
          n.gpu_utilization.push_back(n.gpu_utilization.back());
          n.gpu_memory_used_bytes.push_back(n.gpu_memory_used_bytes.back());
          n.nvlink_utilization.push_back(n.nvlink_utilization.back());
          n.nvlink_competition_index.push_back(n.nvlink_competition_index.back());
          n.storage_await_ms.push_back(n.storage_await_ms.back());
          n.gpus_allocated.push_back(n.gpus_allocated.back());
          n.gpus_allocatable.push_back(n.gpus_allocatable.back());
        }
      }
    }
  }
  return run;
}

}  // namespace tidesim::app
