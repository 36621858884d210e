#include <fmt/core.h>

#include <set>
#include <string>

#include "tidesim/sim/input/error.hpp"
#include "tidesim/sim/input/text_file.hpp"
#include "tidesim/tools/lib/json_locate.hpp"
#include "tidesim/tools/lib/result.hpp"

// Reading a result's JSON document strictly: every error names the file and the
// field's JSON path.

namespace tidesim::app {
namespace {

using nlohmann::json;

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

RunResult from_json(const nlohmann::json& doc, const std::string& source) {
  const Reader r(source);
  if (r.string(r.member(doc, "", "schema"), "schema") != kResultSchemaName) {
    r.fail("schema", std::string("not a tidesim result (expected \"") + kResultSchemaName + "\")");
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

}  // namespace tidesim::app
