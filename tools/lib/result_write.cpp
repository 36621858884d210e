#include <algorithm>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tidesim/tools/lib/result.hpp"
#include "tidesim/tools/lib/result_summary.hpp"

// Writing a result's JSON document. The members of the document, of a run and
// of its series are listed once (the *_members functions) and visited by two
// sinks: DocumentSink builds the nlohmann document (to_json), StreamSink writes
// the text of its dump(2) one member at a time (write_result).

namespace tidesim::app {
namespace {

using nlohmann::json;

// ---- small objects, built whole
// ---------------------------------------------------------------

json job_json(const JobRecord& j) {
  json out = {{"name", j.name},
              {"submit_s", j.submit_s},
              {"first_bind_s", optional_number(j.first_bind_s)},
              {"start_s", optional_number(j.start_s)},
              {"finish_s", optional_number(j.finish_s)},
              {"state", j.state},
              {"gpus", j.gpus},
              {"gpus_last", j.gpus_last},
              {"nodes", j.nodes},
              {"oom_kills", j.oom_kills},
              {"restarts", j.restarts},
              {"evictions", j.evictions},
              {"nvlink_required", j.nvlink_required},
              {"nvlink_counted_s", j.nvlink_counted_s},
              {"nvlink_contended_s", j.nvlink_contended_s},
              {"job_class", j.job_class},
              {"kind", j.kind},
              {"model", j.model},
              {"batch_size", j.batch_size},
              {"stated_s", optional_number(j.stated_s)},
              {"steps", j.steps},
              {"ideal_s", optional_number(j.ideal_s)},
              {"step_slowdown", optional_number(j.step_slowdown)},
              {"comm_share", optional_number(j.comm_share)},
              {"mfu", optional_number(j.mfu)},
              {"fabric_contended_s", optional_number(j.fabric_contended_s)},
              {"lost_gpu_s", j.lost_gpu_s}};
  if (!j.fabric_span.empty()) {
    out["fabric_span"] = j.fabric_span;  // only on a fabric
  }
  return out;
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

json metadata_json(const RunMetadata& m) {
  json doc = {{"tidesim_version", m.tidesim_version},
              {"scenario",
               {{"name", m.scenario_name}, {"path", m.scenario_path}, {"hash", m.scenario_hash}}},
              {"seeds", m.seeds},
              {"policies", m.policies}};
  if (!m.cluster.empty()) {
    doc["cluster"] = m.cluster;
  }
  if (!m.workload.empty()) {
    doc["workload"] = m.workload;
  }
  if (m.provenance) {
    doc["provenance"] = *m.provenance;
  }
  if (!m.warnings.empty()) {
    doc["warnings"] = m.warnings;
  }
  if (!m.records_omitted.empty()) {
    doc["records_omitted"] = m.records_omitted;
  }
  if (!m.headline_metrics.empty()) {
    doc["headline_metrics"] = m.headline_metrics;
  }
  return doc;
}

json reference_json(const std::optional<Reference>& reference) {
  if (!reference) {
    return nullptr;
  }
  return {{"label", reference->label}, {"values", reference->values}};
}

json metrics_json(const metrics::MetricValues& values) {
  json doc = json::object();
  for (const auto& [name, value] : values) {
    doc[name] = value;
  }
  return doc;
}

// ---- the members of the large objects, listed once
// --------------------------------------------
//
// A sink takes value(key, json) for a member built whole, array(key, items,
// to_json) for an array of small objects, object(key, members) for an object
// whose members `members(sink)` lists, and objects(key, items, members) for an
// array of such objects (`members(item, sink)`).

template <class Sink>
void series_members(const ClusterSeries& s, Sink& sink) {
  sink.value("t_s", s.t_s);
  sink.value("pending_pods", s.pending_pods);
  sink.value("running_jobs", s.running_jobs);
  sink.value("gpu_util_stddev", optional_vector(s.gpu_util_stddev));
  sink.value("lscs", optional_vector(s.lscs));
  sink.array("nodes", s.nodes, node_series_json);
}

template <class Sink>
void run_members(const SeedRun& run, Sink& sink) {
  sink.value("policy", run.policy);
  sink.value("seed", run.seed);
  sink.value("end_s", run.end_s);
  sink.value("metrics", metrics_json(run.metrics));
  sink.array("jobs", run.jobs, job_json);
  sink.array("events", run.events, event_json);
  sink.array("attempts", run.attempts, attempt_json);
  if (run.series) {
    sink.object("series", [&s = *run.series](auto& inner) { series_members(s, inner); });
  } else {
    sink.value("series", nullptr);
  }
}

template <class Sink>
void result_members(const RunResult& result, Sink& sink) {
  sink.value("schema", kResultSchemaName);
  sink.value("schema_version", kResultSchemaVersion);
  sink.value("metadata", metadata_json(result.metadata));
  sink.value("reference", reference_json(result.reference));
  sink.value("summary", summary_json(result));
  sink.objects("runs", result.runs,
               [](const SeedRun& run, auto& inner) { run_members(run, inner); });
}

// ---- the document
// -----------------------------------------------------------------------------

class DocumentSink {
 public:
  template <class F>
  static json build(F members) {
    DocumentSink sink;
    members(sink);
    return std::move(sink.doc_);
  }

  void value(const char* key, json v) { doc_[key] = std::move(v); }

  template <class T, class F>
  void array(const char* key, const std::vector<T>& items, F to_json) {
    json out = json::array();
    for (const auto& item : items) {
      out.push_back(to_json(item));
    }
    doc_[key] = std::move(out);
  }

  template <class F>
  void object(const char* key, F members) {
    doc_[key] = build(members);
  }

  template <class T, class F>
  void objects(const char* key, const std::vector<T>& items, F members) {
    json out = json::array();
    for (const auto& item : items) {
      out.push_back(build([&](DocumentSink& sink) { members(item, sink); }));
    }
    doc_[key] = std::move(out);
  }

 private:
  json doc_ = json::object();
};

// ---- the text of dump(2), one member at a time
// ------------------------------------------------

void spaces(std::ostream& out, int n) {
  for (int i = 0; i < n; ++i) {
    out.put(' ');
  }
}

// `v.dump(2)` as if `v` stood `indent` spaces deep (a JSON text has no raw line
// break inside a string, so every line break is dump's own).
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

// An array of `items`, each written by `put_item(out, item, indent)`.
template <class T, class F>
Writer array_of(const std::vector<T>& items, F put_item) {
  return [&items, put_item](std::ostream& out, int indent) {
    if (items.empty()) {
      out << "[]";
      return;
    }
    out << "[\n";
    for (std::size_t i = 0; i < items.size(); ++i) {
      spaces(out, indent + 2);
      put_item(out, items[i], indent + 2);
      out << (i + 1 < items.size() ? ",\n" : "\n");
    }
    spaces(out, indent);
    out << ']';
  };
}

// The text of an object's dump(2): the small members are kept as values, the
// large ones as writers that run when the object is written (so a run's records
// and series are built one at a time), all in key order as nlohmann's objects
// (a std::map) print them.
class StreamSink {
 public:
  void value(const char* key, json v) { small_[key] = std::move(v); }

  template <class T, class F>
  void array(const char* key, const std::vector<T>& items, F to_json) {
    large_.emplace_back(key, array_of(items, [to_json](std::ostream& o, const T& item, int in) {
                          put_value(o, to_json(item), in);
                        }));
  }

  template <class F>
  void object(const char* key, F members) {
    large_.emplace_back(key, [members](std::ostream& o, int in) {
      StreamSink inner;
      members(inner);
      inner.write(o, in);
    });
  }

  template <class T, class F>
  void objects(const char* key, const std::vector<T>& items, F members) {
    large_.emplace_back(key, array_of(items, [members](std::ostream& o, const T& item, int in) {
                          StreamSink inner;
                          members(item, inner);
                          inner.write(o, in);
                        }));
  }

  void write(std::ostream& out, int indent) {
    for (const auto& [key, value] : small_.items()) {
      large_.emplace_back(key, [&v = value](std::ostream& o, int in) { put_value(o, v, in); });
    }
    std::sort(large_.begin(), large_.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    if (large_.empty()) {
      out << "{}";
      return;
    }
    out << "{\n";
    for (std::size_t i = 0; i < large_.size(); ++i) {
      spaces(out, indent + 2);
      out << json(large_[i].first).dump() << ": ";
      large_[i].second(out, indent + 2);
      out << (i + 1 < large_.size() ? ",\n" : "\n");
    }
    spaces(out, indent);
    out << '}';
  }

 private:
  json small_ = json::object();
  std::vector<std::pair<std::string, Writer>> large_;
};

}  // namespace

nlohmann::json to_json(const RunResult& result) {
  return DocumentSink::build([&result](DocumentSink& sink) { result_members(result, sink); });
}

void write_result(std::ostream& out, const RunResult& result) {
  StreamSink sink;
  result_members(result, sink);
  sink.write(out, 0);
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

}  // namespace tidesim::app
