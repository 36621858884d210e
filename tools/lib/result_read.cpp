#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tidesim/sim/input/error.hpp"
#include "tidesim/sim/input/text_file.hpp"
#include "tidesim/tools/lib/json_locate.hpp"
#include "tidesim/tools/lib/result.hpp"
#include "tidesim/tools/lib/result_records.hpp"

// Reading a result's JSON document strictly: every error names the file and the
// field's JSON path.

namespace tidesim::app {
namespace {

using nlohmann::json;

// A value of the document and its JSON path, read strictly: each accessor checks the value's type
// and names the path (and the file) in its error.
class Value {
 public:
  Value(const std::string& source, const json& v, std::string path)
      : source_(&source), v_(&v), path_(std::move(path)) {}

  const std::string& path() const { return path_; }
  bool is_null() const { return v_->is_null(); }

  [[noreturn]] void fail(const std::string& message) const { fail_at(path_, message); }

  // The member `key` of this object (missing: an error).
  Value operator[](const char* key) const {
    object();
    const auto it = v_->find(key);
    if (it == v_->end()) {
      fail_at(path_ + "." + key, "missing field");
    }
    return child(*it, key);
  }
  // The member `key` when there is one (of an object; of anything else, none).
  std::optional<Value> find(const char* key) const {
    const auto it = v_->find(key);
    if (it == v_->end()) {
      return std::nullopt;
    }
    return child(*it, key);
  }

  std::string string() const {
    if (!v_->is_string()) {
      fail("expected a string");
    }
    return v_->get<std::string>();
  }
  double number() const {
    if (!v_->is_number()) {
      fail("expected a number");
    }
    return v_->get<double>();
  }
  std::optional<double> optional_number() const {
    if (v_->is_null()) {
      return std::nullopt;
    }
    return number();
  }
  std::int64_t integer() const {
    if (!v_->is_number_integer()) {
      fail("expected an integer");
    }
    return v_->get<std::int64_t>();
  }
  int small_int() const {
    const std::int64_t i = integer();
    if (i < INT32_MIN || i > INT32_MAX) {
      fail("integer out of range");
    }
    return static_cast<int>(i);
  }
  std::uint64_t unsigned_integer() const {
    if (!v_->is_number_unsigned() && !(v_->is_number_integer() && v_->get<std::int64_t>() >= 0)) {
      fail("expected a non-negative integer");
    }
    return v_->get<std::uint64_t>();
  }
  bool boolean() const {
    if (!v_->is_boolean()) {
      fail("expected true or false");
    }
    return v_->get<bool>();
  }
  const json& object() const {
    if (!v_->is_object()) {
      fail("expected an object");
    }
    return *v_;
  }

  // This array's elements, each read by `read_one` (a Value accessor or a function of a Value).
  template <class T, class F>
  std::vector<T> list(F read_one) const {
    if (!v_->is_array()) {
      fail("expected an array");
    }
    std::vector<T> out;
    out.reserve(v_->size());
    for (std::size_t i = 0; i < v_->size(); ++i) {
      const Value element(*source_, (*v_)[i], fmt::format("{}[{}]", path_, i));
      out.push_back(std::invoke(read_one, element));
    }
    return out;
  }
  // Element `i` of this array (an index past its end: an error).
  Value element(std::size_t i) const {
    if (!v_->is_array() || i >= v_->size()) {
      fail("expected an array of more than " + std::to_string(i) + " elements");
    }
    return Value(*source_, (*v_)[i], fmt::format("{}[{}]", path_, i));
  }
  // Calls `f(key, value)` for each member of this object.
  template <class F>
  void for_each_member(F&& f) const {
    for (const auto& [key, value] : object().items()) {
      f(key, child(value, key));
    }
  }

 private:
  [[noreturn]] void fail_at(const std::string& path, const std::string& message) const {
    throw InputError(SourceLocation{*source_, 0, 0}, path, message);
  }
  Value child(const json& v, const std::string& key) const {
    return Value(*source_, v, path_.empty() ? key : path_ + "." + key);
  }

  const std::string* source_;
  const json* v_;
  std::string path_;
};

std::vector<double> read_numbers(const Value& v) {
  return v.list<double>(&Value::number);
}

std::vector<int> read_ints(const Value& v) {
  return v.list<int>(&Value::small_int);
}

std::vector<std::string> read_strings(const Value& v) {
  return v.list<std::string>(&Value::string);
}

// What the job is and how fast it ran: absent from results written before they were recorded.
void read_job_facts(const Value& v, JobRecord& j) {
  const auto text = [&](const char* key) {
    const std::optional<Value> x = v.find(key);
    return x ? x->string() : std::string();
  };
  const auto maybe = [&](const char* key) {
    const std::optional<Value> x = v.find(key);
    return x ? x->optional_number() : std::nullopt;
  };
  j.job_class = text("job_class");
  j.kind = text("kind");
  j.model = text("model");
  const std::optional<Value> batch = v.find("batch_size");
  j.batch_size = batch ? batch->small_int() : 0;
  j.stated_s = maybe("stated_s");
  const std::optional<Value> steps = v.find("steps");
  j.steps = steps ? steps->integer() : 0;
  j.ideal_s = maybe("ideal_s");
  j.step_slowdown = maybe("step_slowdown");
  j.comm_share = maybe("comm_share");
  j.mfu = maybe("mfu");
  j.fabric_contended_s = maybe("fabric_contended_s");
  j.lost_gpu_s = maybe("lost_gpu_s").value_or(0.0);
  if (const std::optional<Value> span = v.find("fabric_span")) {
    j.fabric_span = span->list<int>(&Value::small_int);
  }
}

JobRecord read_job(const Value& v) {
  JobRecord j;
  j.name = v["name"].string();
  j.submit_s = v["submit_s"].number();
  j.first_bind_s = v["first_bind_s"].optional_number();
  j.start_s = v["start_s"].optional_number();
  j.finish_s = v["finish_s"].optional_number();
  const Value state = v["state"];
  j.state = state.string();
  static const std::set<std::string> kStates{"succeeded", "failed", "cancelled", "unfinished",
                                             "unscheduled"};
  if (!kStates.contains(j.state)) {
    state.fail("unknown state '" + j.state +
               "' (expected succeeded, failed, cancelled, unfinished or unscheduled)");
  }
  j.gpus = v["gpus"].small_int();
  // Results written before gpus_last was recorded hold one size, gpus.
  const std::optional<Value> last = v.find("gpus_last");
  j.gpus_last = last ? last->small_int() : j.gpus;
  j.nodes = read_strings(v["nodes"]);
  j.oom_kills = v["oom_kills"].small_int();
  j.restarts = v["restarts"].small_int();
  j.evictions = v["evictions"].small_int();
  j.nvlink_required = v["nvlink_required"].boolean();
  j.nvlink_counted_s = v["nvlink_counted_s"].number();
  j.nvlink_contended_s = v["nvlink_contended_s"].number();
  read_job_facts(v, j);
  return j;
}

EventRecord read_event(const Value& v) {
  EventRecord e;
  e.t_s = v["t_s"].number();
  e.kind = v["kind"].string();
  e.job = v["job"].string();
  e.pod = v["pod"].string();
  e.node = v["node"].string();
  e.fallback_stage = v["fallback_stage"].small_int();
  return e;
}

AttemptRecord read_attempt(const Value& v) {
  AttemptRecord a;
  a.job = v["job"].string();
  a.attempt = v["attempt"].small_int();
  a.pod = v["pod"].string();
  a.node = v["node"].string();
  a.cards = read_ints(v["cards"]);
  a.bound_s = v["bound_s"].optional_number();
  a.started_s = v["started_s"].optional_number();
  a.ended_s = v["ended_s"].optional_number();
  const Value outcome = v["outcome"];
  a.outcome = outcome.string();
  // failed, cancelled: a replayed job its trace ends so (docs/traces.md, "End states").
  static const std::set<std::string> kOutcomes{"succeeded",  "oom_killed", "stopped", "evicted",
                                               "unfinished", "pending",    "failed",  "cancelled"};
  if (!kOutcomes.contains(a.outcome)) {
    outcome.fail("unknown outcome '" + a.outcome + "'");
  }
  if (const auto oom = v.find("oom"); oom && !oom->is_null()) {
    a.oom_card = (*oom)["card"].small_int();
    a.oom_memory_used = static_cast<std::int64_t>((*oom)["memory_used_bytes"].unsigned_integer());
    a.oom_memory_capacity =
        static_cast<std::int64_t>((*oom)["memory_capacity_bytes"].unsigned_integer());
    a.oom_co_located = read_strings((*oom)["co_located"]);
  }
  return a;
}

NodeSeries read_node_series(const Value& v) {
  NodeSeries n;
  n.node = v["node"].string();
  n.gpu_memory_capacity_bytes = v["gpu_memory_capacity_bytes"].integer();
  n.t_s = read_numbers(v["t_s"]);
  n.gpu_utilization = v["gpu_utilization"].list<std::vector<double>>(read_numbers);
  n.gpu_memory_used_bytes = v["gpu_memory_used_bytes"].list<std::vector<std::int64_t>>(
      [](const Value& x) { return x.list<std::int64_t>(&Value::integer); });
  n.nvlink_utilization = v["nvlink_utilization"].list<std::vector<double>>(read_numbers);
  n.nvlink_competition_index = read_numbers(v["nvlink_competition_index"]);
  n.storage_await_ms = read_numbers(v["storage_await_ms"]);
  n.gpus_allocated = read_ints(v["gpus_allocated"]);
  n.gpus_allocatable = read_ints(v["gpus_allocatable"]);
  const std::size_t len = n.t_s.size();
  if (n.gpu_utilization.size() != len || n.gpu_memory_used_bytes.size() != len ||
      n.nvlink_utilization.size() != len || n.nvlink_competition_index.size() != len ||
      n.storage_await_ms.size() != len || n.gpus_allocated.size() != len ||
      n.gpus_allocatable.size() != len) {
    v.fail("every series must have one entry per t_s");
  }
  return n;
}

ClusterSeries read_series(const Value& v) {
  ClusterSeries s;
  s.t_s = read_numbers(v["t_s"]);
  s.pending_pods = read_ints(v["pending_pods"]);
  s.running_jobs = read_ints(v["running_jobs"]);
  s.gpu_util_stddev = v["gpu_util_stddev"].list<std::optional<double>>(&Value::optional_number);
  s.lscs = v["lscs"].list<std::optional<double>>(&Value::optional_number);
  const std::size_t len = s.t_s.size();
  if (s.pending_pods.size() != len || s.running_jobs.size() != len ||
      s.gpu_util_stddev.size() != len || s.lscs.size() != len) {
    v.fail("every series must have one entry per t_s");
  }
  s.nodes = v["nodes"].list<NodeSeries>(read_node_series);
  return s;
}

// The largest magnitude a metric value may have. A run's metrics are counts, seconds (at most
// 1000 years, 3.2e10 s), shares, rates and bytes (a 16,384-GPU job's 54 days move 3e19 bytes
// over its fabric's first tier), far below; a hand-edited 1e308 would overflow the statistics
// (its square, the sum of two) and read as an "inf%" improvement.
constexpr double kMaxMetricMagnitude = 1e30;

double metric_value(const Value& v) {
  const double x = v.number();
  if (!(std::fabs(x) <= kMaxMetricMagnitude)) {
    v.fail(fmt::format("{} is beyond what a metric can be (at most 1e30 in magnitude)", x));
  }
  return x;
}

// The provenance's parts that readers use (check, report, sweeps): its policies, each an object
// with a string name, scheduler and a sha256 string or null; its overrides, strings. Other keys
// are kept as they are.
void check_provenance(const Value& provenance) {
  (void)provenance.object();
  if (const auto policies = provenance.find("policies")) {
    (void)policies->list<int>([](const Value& p) {
      (void)p["name"].string();
      if (const auto scheduler = p.find("scheduler")) {
        (void)scheduler->string();
      }
      if (const auto sha = p.find("sha256"); sha && !sha->is_null()) {
        (void)sha->string();
      }
      return 0;
    });
  }
  if (const auto overrides = provenance.find("overrides")) {
    (void)read_strings(*overrides);
  }
}

SeedRun read_run(const Value& v) {
  SeedRun run;
  run.policy = v["policy"].string();
  run.seed = v["seed"].unsigned_integer();
  run.end_s = v["end_s"].number();
  v["metrics"].for_each_member([&](const std::string& name, const Value& value) {
    run.metrics[name] = metric_value(value);
  });
  run.jobs = v["jobs"].list<JobRecord>(read_job);
  run.events = v["events"].list<EventRecord>(read_event);
  // "attempts" was added to schema version 1 later: optional when reading.
  if (const auto attempts = v.find("attempts")) {
    run.attempts = attempts->list<AttemptRecord>(read_attempt);
  }
  if (const auto series = v.find("series"); series && !series->is_null()) {
    run.series = read_series(*series);
  }
  return run;
}
}  // namespace

RunResult from_json(const nlohmann::json& doc, const std::string& source) {
  const Value root(source, doc, "");
  const Value schema = root["schema"];
  if (schema.string() != kResultSchemaName) {
    schema.fail(std::string("not a tidesim result (expected \"") + kResultSchemaName + "\")");
  }
  const Value version = root["schema_version"];
  if (version.integer() != kResultSchemaVersion) {
    version.fail(fmt::format("unsupported version {} (this tidesim reads {})", version.integer(),
                             kResultSchemaVersion));
  }
  RunResult result;
  const Value meta = root["metadata"];
  auto& m = result.metadata;
  m.tidesim_version = meta["tidesim_version"].string();
  const Value scenario = meta["scenario"];
  m.scenario_name = scenario["name"].string();
  m.scenario_path = scenario["path"].string();
  m.scenario_hash = scenario["hash"].string();
  m.seeds = meta["seeds"].list<std::uint64_t>(&Value::unsigned_integer);
  std::set<std::uint64_t> seeds_seen;
  for (std::size_t i = 0; i < m.seeds.size(); ++i) {
    if (!seeds_seen.insert(m.seeds[i]).second) {
      meta["seeds"].element(i).fail(
          fmt::format("seed {} is listed twice; each seed is one replica", m.seeds[i]));
    }
  }
  m.policies = read_strings(meta["policies"]);
  if (const auto cluster = meta.find("cluster")) {
    m.cluster = cluster->string();
  }
  if (const auto workload = meta.find("workload")) {
    m.workload = workload->string();
  }
  if (const auto provenance = meta.find("provenance")) {
    check_provenance(*provenance);
    m.provenance = provenance->object();
  }
  if (const auto warnings = meta.find("warnings")) {
    m.warnings = read_strings(*warnings);
  }
  if (const auto headline = meta.find("headline_metrics")) {
    m.headline_metrics = read_strings(*headline);
  }
  if (const auto omitted = meta.find("records_omitted")) {
    m.records_omitted = read_strings(*omitted);
    const auto& names = record_names();
    for (std::size_t i = 0; i < m.records_omitted.size(); ++i) {
      if (std::find(names.begin(), names.end(), m.records_omitted[i]) == names.end()) {
        omitted->element(i).fail("'" + m.records_omitted[i] +
                                 "' is not a record (jobs, events or attempts)");
      }
    }
  }
  if (const auto reference = root.find("reference"); reference && !reference->is_null()) {
    Reference ref;
    ref.label = (*reference)["label"].string();
    (*reference)["values"].for_each_member([&](const std::string& metric, const Value& per_policy) {
      per_policy.for_each_member([&](const std::string& policy, const Value& value) {
        ref.values[metric][policy] = value.number();
      });
    });
    result.reference = std::move(ref);
  }
  result.runs = root["runs"].list<SeedRun>(read_run);
  // One run per (policy, seed): a second would be averaged with the first as another seed.
  std::map<std::pair<std::string, std::uint64_t>, std::size_t> first_run;
  for (std::size_t i = 0; i < result.runs.size(); ++i) {
    const SeedRun& run = result.runs[i];
    const auto [it, fresh] = first_run.emplace(std::pair(run.policy, run.seed), i);
    if (!fresh) {
      root["runs"].element(i).fail(fmt::format(
          "policy '{}' seed {} is run twice (also runs[{}]); a result holds one run per policy "
          "and seed",
          run.policy, run.seed, it->second));
    }
  }
  return result;
}

RunResult load_result(const std::string& path) {
  const std::string text = read_text_file(path, "the result file");
  json doc;
  // Whether some object names a member twice: nlohmann keeps the last, so a checked metric
  // would pass or fail by the order of the keys.
  // An object that read more names than it holds members named one twice: a count per open
  // object, no copy of the names.
  bool repeated_key = false;
  std::vector<std::size_t> names;
  const json::parser_callback_t note_keys = [&](int /*depth*/, json::parse_event_t event,
                                                json& parsed) {
    if (event == json::parse_event_t::object_start) {
      names.push_back(0);
    } else if (event == json::parse_event_t::key && !names.empty()) {
      ++names.back();
    } else if (event == json::parse_event_t::object_end && !names.empty()) {
      repeated_key = repeated_key || names.back() != parsed.size();
      names.pop_back();
    }
    return true;
  };
  try {
    doc = json::parse(text, note_keys);
  } catch (const json::parse_error& e) {
    // e.byte is 1-based: the byte at which parsing stopped.
    throw InputError(locate_json_offset(text, e.byte > 0 ? e.byte - 1 : 0, path), "",
                     "not valid JSON: " + plain_json_message(e.what()));
  } catch (const json::exception& e) {  // e.g. a number too large for a double (out_of_range 406)
    // nlohmann names the token ("number overflow parsing '1e999'") but not its place: the token's
    // first occurrence in the text is it (the text parsed up to there).
    const std::string message = plain_json_message(e.what());
    SourceLocation where{path, 0, 0};
    const std::size_t open = message.find('\'');
    const std::size_t close = message.rfind('\'');
    if (open != std::string::npos && close > open + 1) {
      const std::size_t at = text.find(message.substr(open + 1, close - open - 1));
      if (at != std::string::npos) {
        where = locate_json_offset(text, at, path);
      }
    }
    throw InputError(where, "", "not valid JSON: " + message);
  }
  if (repeated_key) {
    if (const auto repeated = find_repeated_json_key(text, path)) {
      throw InputError(repeated->second, repeated->first,
                       "named twice in one object; a result gives each field once");
    }
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
