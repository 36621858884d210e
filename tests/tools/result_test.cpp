// The result model: Recorder output on a hand-built run, JSON round trip, strict reading.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <utility>

#include "tests/common/errors.hpp"
#include "tests/tools/sample_result.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/sim/scenario/scenario.hpp"
#include "tidesim/tools/lib/csv_out.hpp"
#include "tidesim/tools/lib/json_locate.hpp"
#include "tidesim/tools/lib/result.hpp"

namespace tidesim::app {
namespace {

using test::message_of;

TEST(Recorder, RecordsJobsEventsAndSeries) {
  const SeedRun run = test::sample_run("default-k8s", 1);
  EXPECT_EQ(run.policy, "default-k8s");
  EXPECT_EQ(run.seed, 1u);
  EXPECT_DOUBLE_EQ(run.end_s, 600.0);
  ASSERT_EQ(run.jobs.size(), 4u);
  // Jobs are bound at 110 + j s (wait 100 + 10 x seed), finish at 510 + 10 j.
  EXPECT_DOUBLE_EQ(*run.jobs[2].first_bind_s, 112.0);
  EXPECT_EQ(run.jobs[2].nodes, std::vector<std::string>{"n1"});
  EXPECT_EQ(run.jobs[0].state, "succeeded");
  EXPECT_EQ(run.jobs[3].state, "failed");
  EXPECT_EQ(run.jobs[1].oom_kills, 1);
  EXPECT_EQ(run.jobs[1].restarts, 1);
  // job-0 needs NVLink and runs contended (40% of ideal) from 110 to 510.
  EXPECT_DOUBLE_EQ(run.jobs[0].nvlink_counted_s, 400.0);
  EXPECT_DOUBLE_EQ(run.jobs[0].nvlink_contended_s, 400.0);
  // Events: OOM at 305, restart at 315, job-3 failed at 540.
  ASSERT_EQ(run.events.size(), 3u);
  EXPECT_EQ(run.events[0].kind, "oom_killed");
  EXPECT_EQ(run.events[2].kind, "failed");
  // Metrics: mean wait (110 + 111 + 112 + 113) / 4.
  EXPECT_DOUBLE_EQ(run.metrics.at("mean_wait_s"), 111.5);
  EXPECT_DOUBLE_EQ(run.metrics.at("oom_kills"), 1.0);
  // Series: 61 samples, 2 nodes of 2 cards.
  ASSERT_TRUE(run.series);
  EXPECT_EQ(run.series->t_s.size(), 61u);
  ASSERT_EQ(run.series->nodes.size(), 2u);
  // Node series hold change points: the first sample (idle), the first busy one (110 s: wait
  // 100 + 10 x seed), and the last sample.
  EXPECT_EQ(run.series->nodes[0].t_s, (std::vector<double>{0.0, 110.0, 600.0}));
  ASSERT_EQ(run.series->nodes[0].gpu_utilization.size(), 3u);
  EXPECT_EQ(run.series->nodes[0].gpu_utilization[1].size(), 2u);
  EXPECT_EQ(run.series->nodes[0].gpu_utilization[1], run.series->nodes[0].gpu_utilization[2]);
  EXPECT_EQ(run.series->nodes[0].gpus_allocated, (std::vector<int>{0, 2, 2}));
  // At t = 200 s: node utilisations 0.95 and 0.1 -> std-dev 0.425.
  EXPECT_NEAR(*run.series->gpu_util_stddev[20], 0.425, 1e-9);
}

TEST(Recorder, UnscheduledAndUnfinishedStates) {
  RunSignals signals;
  Recorder recorder("p", 7, RecorderOptions{.record_series = false, .collectors = {}});
  recorder.attach(signals);
  JobEvent e;
  e.kind = JobEventKind::kSubmitted;
  e.job = "never";
  signals.job.emit(e);
  e.job = "running";
  signals.job.emit(e);
  e.kind = JobEventKind::kBound;
  e.node = "n";
  signals.job.emit(e);
  const SeedRun run = recorder.finish(TimePoint{std::chrono::seconds(10)});
  EXPECT_EQ(run.jobs[0].state, "unscheduled");
  EXPECT_EQ(run.jobs[1].state, "unfinished");
  EXPECT_FALSE(run.series);
  EXPECT_DOUBLE_EQ(run.metrics.at("unscheduled_jobs"), 1.0);
}

// Issue 46, item 3: an elastic job submitted at 1 GPU that its policy ran on 4, then 8, then 2:
// jobs.csv's gpus is the most it ran on (8), gpus_last its last attempt's (2), not the 1 it was
// submitted at; a job that never started keeps what it asked for.
TEST(Recorder, ElasticJobGpusAsItRan) {
  RunSignals signals;
  Recorder recorder("pollux", 1, RecorderOptions{.record_series = false, .collectors = {}});
  recorder.attach(signals);
  JobEvent e;
  e.job = "elastic";
  e.kind = JobEventKind::kSubmitted;
  e.gpus = 1;
  signals.job.emit(e);
  for (const int gpus : {4, 8, 2}) {
    e.kind = JobEventKind::kStarted;
    e.gpus = gpus;
    signals.job.emit(e);
    e.kind = JobEventKind::kEvicted;
    signals.job.emit(e);
  }
  e.job = "waiting";
  e.kind = JobEventKind::kSubmitted;
  e.gpus = 3;
  signals.job.emit(e);
  const SeedRun run = recorder.finish(TimePoint{std::chrono::seconds(10)});
  ASSERT_EQ(run.jobs.size(), 2u);
  EXPECT_EQ(run.jobs[0].gpus, 8);
  EXPECT_EQ(run.jobs[0].gpus_last, 2);
  EXPECT_EQ(run.jobs[1].gpus, 3);
  EXPECT_EQ(run.jobs[1].gpus_last, 3);
  RunResult result;
  result.runs.push_back(run);
  std::ostringstream csv;
  write_jobs_csv(csv, result);
  EXPECT_NE(csv.str().find("policy,seed,job,state,gpus,gpus_last,nodes,"), std::string::npos);
  EXPECT_NE(csv.str().find("pollux,1,elastic,unscheduled,8,2,"), std::string::npos) << csv.str();
}

TEST(ResultJson, RoundTripIsExact) {
  const RunResult original = test::sample_result();
  const std::string text = to_json(original).dump(2);
  const RunResult back = from_json(nlohmann::json::parse(text), "mem.json");
  EXPECT_EQ(back, original);
  // And through a file.
  const std::string path = test::temp_dir("roundtrip") + "/result.json";
  save_result(original, path);
  EXPECT_EQ(load_result(path), original);
}

// write_result streams the document member by member; its text must be dump(2)'s, byte for byte,
// whatever is empty or absent: runs with and without series, no records, no runs at all.
TEST(ResultJson, StreamedTextIsTheDocumentsDump) {
  const auto streamed = [](const RunResult& r) {
    std::ostringstream out;
    write_result(out, r);
    return out.str();
  };
  RunResult full = test::sample_result();
  ASSERT_GE(full.runs.size(), 2u);
  ASSERT_TRUE(full.runs[0].series.has_value());
  ASSERT_FALSE(full.runs[0].jobs.empty());
  ASSERT_FALSE(full.runs[0].events.empty());
  ASSERT_FALSE(full.runs[0].attempts.empty());
  full.runs[1].series.reset();
  EXPECT_EQ(streamed(full), to_json(full).dump(2));

  RunResult empty_records = test::sample_result();
  empty_records.runs[0].jobs.clear();
  empty_records.runs[0].events.clear();
  empty_records.runs[0].attempts.clear();
  empty_records.runs[0].metrics.clear();
  empty_records.runs[0].series->nodes.clear();
  empty_records.reference.reset();
  EXPECT_EQ(streamed(empty_records), to_json(empty_records).dump(2));

  RunResult no_runs = test::sample_result();
  no_runs.runs.clear();
  EXPECT_EQ(streamed(no_runs), to_json(no_runs).dump(2));
}

TEST(ResultJson, MetadataAndSummary) {
  const auto doc = to_json(test::sample_result());
  EXPECT_EQ(doc["schema"], "tidesim-result");
  EXPECT_EQ(doc["schema_version"], kResultSchemaVersion);
  EXPECT_EQ(doc["metadata"]["scenario"]["hash"], scenario_hash("name: sample\n"));
  EXPECT_EQ(doc["metadata"]["scenario"]["hash"].get<std::string>().rfind("fnv1a64:", 0), 0u);
  // default-k8s mean waits 111.5, 121.5, 131.5: mean 121.5.
  EXPECT_DOUBLE_EQ(doc["summary"]["policies"]["default-k8s"]["mean_wait_s"]["mean"], 121.5);
  // Paired difference load-aware - default: -50 on every seed.
  const auto& diff = doc["summary"]["paired_differences"][0]["metrics"]["mean_wait_s"];
  EXPECT_DOUBLE_EQ(diff["mean_difference"], -50.0);
}

void expect_input_error(const nlohmann::json& doc, const std::string& field_part) {
  try {
    from_json(doc, "bad.json");
    FAIL() << "expected an InputError mentioning " << field_part;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(field_part), std::string::npos) << e.what();
  }
}

TEST(ResultJson, BadDocumentsNameTheField) {
  auto doc = to_json(test::sample_result());
  auto wrong_schema = doc;
  wrong_schema["schema"] = "something-else";
  expect_input_error(wrong_schema, "schema");
  auto wrong_version = doc;
  wrong_version["schema_version"] = 99;
  expect_input_error(wrong_version, "schema_version");
  auto missing = doc;
  missing["runs"][1]["jobs"][2].erase("gpus");
  expect_input_error(missing, "runs[1].jobs[2].gpus");
  auto wrong_type = doc;
  wrong_type["runs"][0]["metrics"]["oom_kills"] = "seven";
  expect_input_error(wrong_type, "runs[0].metrics.oom_kills");
  auto bad_state = doc;
  bad_state["runs"][0]["jobs"][0]["state"] = "exploded";
  expect_input_error(bad_state, "runs[0].jobs[0].state");
  auto ragged = doc;
  ragged["runs"][0]["series"]["nodes"][0]["storage_await_ms"].erase(0);
  expect_input_error(ragged, "runs[0].series.nodes[0]");
}

// A field of the wrong type in a result file is named with its line and column: the line the
// reader points at holds the bad value, at the column given.
TEST(ResultJson, BadFieldsInAFileNameTheirLineAndColumn) {
  auto doc = to_json(test::sample_result());
  doc["runs"][1]["metrics"]["oom_kills"] = "seven";
  const std::string path = test::temp_dir("bad_field") + "/result.json";
  const std::string text = doc.dump(2);
  std::ofstream(path) << text;
  try {
    (void)load_result(path);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "runs[1].metrics.oom_kills");
    ASSERT_GT(e.where().line, 1);
    std::istringstream lines(text);
    std::string line;
    for (int i = 0; i < e.where().line; ++i) {
      std::getline(lines, line);
    }
    EXPECT_EQ(line.substr(static_cast<std::size_t>(e.where().column - 1)), "\"seven\",") << line;
    EXPECT_NE(line.find("\"oom_kills\": "), std::string::npos) << line;
  }
}

// locate_json_value on a text worked by hand (columns count bytes from 1):
//   line 1 "{"; line 2 `  "a": {"b": [1, {"c": "x"}]},` where a's object opens at column 8, b's
//   array at 14 and c's value at 24; line 3 `  "d": 2` with d's value at column 8.
TEST(JsonLocate, FindsValuesAndTheDeepestAncestorOfAMissingOne) {
  const std::string text = "{\n  \"a\": {\"b\": [1, {\"c\": \"x\"}]},\n  \"d\": 2\n}\n";
  const auto at = [&](const std::string& path) {
    const SourceLocation w = locate_json_value(text, path, "f.json");
    EXPECT_EQ(w.file, "f.json");
    return std::pair{w.line, w.column};
  };
  EXPECT_EQ(at("a.b[1].c"), std::pair(2, 24));
  EXPECT_EQ(at("a.b[0]"), std::pair(2, 15));
  EXPECT_EQ(at("d"), std::pair(3, 8));
  EXPECT_EQ(at(".d"), std::pair(3, 8));
  EXPECT_EQ(at("a.zz"), std::pair(2, 8));     // missing: its object
  EXPECT_EQ(at("a.b[5]"), std::pair(2, 14));  // past the end: the array
  EXPECT_EQ(at("d.e"), std::pair(3, 8));      // not an object: the value itself
  EXPECT_EQ(at(""), std::pair(1, 1));
  // An escaped quote in a name: `{"q\"k": 7}` has 7 at column 10.
  EXPECT_EQ(locate_json_value("{\"q\\\"k\": 7}", "q\"k", "g").column, 10);
}

// Names are compared as JSON reads them (escapes decoded), and a value's place does not depend on
// what came before it (a number, a closed array): `{"x": [10], "y": 2, "z": {"\u0061": -1.5e3,
// "b": true}}` has x[0] at column 8, y's value at 18, z's object at 26, z.a's value at 37 and
// z.b's at 50.
TEST(JsonLocate, DecodedNamesAndEveryKindOfValue) {
  const std::string text = R"({"x": [10], "y": 2, "z": {"\u0061": -1.5e3, "b": true}})";
  const auto column = [&](const std::string& path) {
    const SourceLocation w = locate_json_value(text, path, "f.json");
    EXPECT_EQ(w.line, 1) << path;
    return w.column;
  };
  EXPECT_EQ(column("x[0]"), 8);
  EXPECT_EQ(column("y"), 18);
  EXPECT_EQ(column("z.a"), 37);
  EXPECT_EQ(column("z.b"), 50);
  EXPECT_EQ(column("z.b.c"), 50);  // below a scalar: the scalar
  EXPECT_EQ(column("z.q"), 26);    // missing: its object
}

// A key twice in one object was read as its last value, so `check` passed or failed by key order;
// a (policy, seed) run twice was averaged as two seeds ("2 seeds", +- 0). Both are refused with
// their place.
TEST(ResultJson, RepeatedKeysAndRunsAreRefused) {
  const auto doc = to_json(test::sample_result());
  const std::string metric = doc["runs"][0]["metrics"].begin().key();
  std::string text = doc.dump(2);
  // A copy of runs[0]'s first metric, put first in its object: the original becomes the second.
  const std::size_t open = text.find("\"metrics\": {") + std::string("\"metrics\": {").size();
  text.insert(open, "\"" + metric + "\": 0,");
  const std::size_t second = text.find("\"" + metric + "\"", open + 1);
  const std::string path = test::temp_dir("repeated_key") + "/result.json";
  std::ofstream(path) << text;
  try {
    (void)load_result(path);
    FAIL() << "a repeated key was read";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "runs[0].metrics." + metric);
    EXPECT_EQ(e.message(), "named twice in one object; a result gives each field once");
    const SourceLocation at = locate_json_offset(text, second, path);  // the second name
    EXPECT_EQ(e.where().line, at.line);
    EXPECT_EQ(e.where().column, at.column);
    EXPECT_EQ(e.where().file, path);
  }
  // The same key in two objects is not a repetition.
  EXPECT_EQ(find_repeated_json_key(R"({"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 3}, {"x": 4}]})",
                                   "f.json"),
            std::nullopt);
  // Its path and place, by hand: the second "x" of c[1] begins at column 35.
  const auto found = find_repeated_json_key(R"({"c": [{"x": 3}, {"y": 1, "x": 4, "x": 5}]})", "f");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->first, "c[1].x");
  EXPECT_EQ(found->second.line, 1);
  EXPECT_EQ(found->second.column, 35);

  auto twice = doc;
  twice["runs"].push_back(doc["runs"][4]);  // load-aware, seed 2 again, as runs[6]
  EXPECT_EQ(message_of([&] { from_json(twice, "bad.json"); }),
            "bad.json: runs[6]: policy 'load-aware' seed 2 is run twice (also runs[4]); a result "
            "holds one run per policy and seed");
  auto seeds = doc;
  seeds["metadata"]["seeds"] = {1, 2, 1};
  EXPECT_EQ(message_of([&] { from_json(seeds, "bad.json"); }),
            "bad.json: metadata.seeds[2]: seed 1 is listed twice; each seed is one replica");
}

TEST(ResultJson, UnreadableFiles) {
  const std::string dir = test::temp_dir("unreadable");
  EXPECT_THROW(load_result(dir + "/absent.json"), InputError);
  std::ofstream(dir + "/broken.json") << "{ not json";
  EXPECT_THROW(load_result(dir + "/broken.json"), InputError);
}

}  // namespace
}  // namespace tidesim::app
