// Issue 29, item 10: `run --records` leaves the per-run records out of result.json to keep it
// small; the result says what it left out, the metrics do not change, and every reader that
// needs a record left out refuses the result (exit 2, naming the flag) rather than reading the
// empty list as "nothing happened".
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/common/cli.hpp"
#include "tests/common/errors.hpp"
#include "tests/common/require.hpp"
#include "tests/tools/sample_result.hpp"
#include "tidesim/tools/lib/attempt_log.hpp"
#include "tidesim/tools/lib/csv_out.hpp"
#include "tidesim/tools/lib/openmetrics.hpp"
#include "tidesim/tools/lib/result_records.hpp"

namespace tidesim::app {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::run;

// one_card.yaml: two jobs time-sliced on one card, OOM-killed and restarted, so that every
// record has entries.
const std::string kScenario = "tests/tools/data/one_card.yaml";

json read_json(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

class Records : public ::testing::Test {
 protected:
  void SetUp() override {
    TIDESIM_REQUIRE_CLI();
    dir_ = test::temp_dir("records");
  }
  std::string dir_;
};

TEST(RecordsFlag, ValuesNameWhatIsKept) {
  EXPECT_EQ(records_omitted_by("all"), (std::vector<std::string>{}));
  EXPECT_EQ(records_omitted_by("none"), (std::vector<std::string>{"jobs", "events", "attempts"}));
  EXPECT_EQ(records_omitted_by("jobs"), (std::vector<std::string>{"events", "attempts"}));
  EXPECT_EQ(records_omitted_by("attempts,jobs"), (std::vector<std::string>{"events"}));
  EXPECT_EQ(records_flag({"events", "attempts"}), "jobs");
  EXPECT_EQ(records_flag({"jobs", "events", "attempts"}), "none");
  EXPECT_EQ(records_flag({}), "all");
  EXPECT_EQ(test::message_of([] { (void)records_omitted_by("jobs,evnts"); }),
            "--records: 'evnts' is not a record; give all, none or the records to keep, from "
            "jobs, events, attempts, joined by commas (e.g. jobs)");
}

// The writers that need a record refuse a result without it, whoever calls them (report, the
// Python module's DataFrames).
TEST(RecordsFlag, WritersRefuseAResultWithoutTheirRecords) {
  RunResult r = test::sample_result();
  omit_records(r, {"jobs", "events", "attempts"});
  for (const auto& run : r.runs) {
    EXPECT_TRUE(run.jobs.empty() && run.events.empty() && run.attempts.empty());
    EXPECT_FALSE(run.metrics.empty());
  }
  std::ostringstream out;
  EXPECT_EQ(test::message_of([&] { write_jobs_csv(out, r); }),
            "written with `tidesim run --records none`: the per-job records are not in it, and "
            "jobs.csv needs them; rerun without --records (or with a --records list that keeps "
            "jobs)");
  EXPECT_NE(test::message_of([&] { write_attempts_csv(out, r); }).find("the attempt log is not"),
            std::string::npos);
  EXPECT_NE(test::message_of([&] { write_openmetrics(out, r); }).find("the events are not"),
            std::string::npos);
  // Written and read back, the omission is kept.
  const RunResult back = from_json(to_json(r), "r.json");
  EXPECT_EQ(back.metadata.records_omitted,
            (std::vector<std::string>{"jobs", "events", "attempts"}));
  json doc = to_json(r);
  doc["metadata"]["records_omitted"] = {"jobs", "trades"};
  EXPECT_EQ(test::message_of([&] { (void)from_json(doc, "r.json"); }),
            "r.json: metadata.records_omitted[1]: 'trades' is not a record (jobs, events or "
            "attempts)");
}

// --records none: the records are left out of result.json and named in its metadata, their CSV
// files are not written (an earlier run's are removed), and the metrics are those of the full run.
TEST_F(Records, NoneLeavesTheRecordsOutAndTheMetricsAlone) {
  const std::string full = dir_ + "/full";
  const std::string slim = dir_ + "/slim";
  ASSERT_EQ(run("run " + kScenario + " --output " + full).code, 0);
  ASSERT_EQ(run("run " + kScenario + " --output " + slim).code, 0);  // its CSVs are stale next
  const auto o = run("run " + kScenario + " --output " + slim + " --records none");
  EXPECT_EQ(o.code, 0) << o.out;
  const json a = read_json(full + "/result.json");
  const json b = read_json(slim + "/result.json");
  EXPECT_FALSE(a["metadata"].contains("records_omitted"));
  EXPECT_EQ(b["metadata"]["records_omitted"], json({"jobs", "events", "attempts"}));
  ASSERT_EQ(a["runs"].size(), b["runs"].size());
  bool any_event = false;
  for (std::size_t i = 0; i < a["runs"].size(); ++i) {
    EXPECT_EQ(a["runs"][i]["metrics"], b["runs"][i]["metrics"]) << i;
    EXPECT_FALSE(a["runs"][i]["jobs"].empty());
    EXPECT_FALSE(a["runs"][i]["attempts"].empty());
    any_event = any_event || !a["runs"][i]["events"].empty();
    EXPECT_TRUE(b["runs"][i]["jobs"].empty());
    EXPECT_TRUE(b["runs"][i]["events"].empty());
    EXPECT_TRUE(b["runs"][i]["attempts"].empty());
  }
  EXPECT_TRUE(any_event) << "one_card.yaml should have events for this test to mean something";
  EXPECT_EQ(a["summary"], b["summary"]);
  EXPECT_EQ(test::read_file(full + "/metrics.csv"), test::read_file(slim + "/metrics.csv"));
  // metrics.om.txt is written from the whole result: its counters count every event.
  EXPECT_EQ(test::read_file(full + "/metrics.om.txt"), test::read_file(slim + "/metrics.om.txt"));
  EXPECT_FALSE(fs::exists(slim + "/jobs.csv"));
  EXPECT_FALSE(fs::exists(slim + "/attempts.csv"));
  EXPECT_TRUE(fs::exists(slim + "/nodes.csv"));
  EXPECT_LT(fs::file_size(slim + "/result.json"), fs::file_size(full + "/result.json"));
  EXPECT_NE(o.out.find("tidesim: wrote result.json, metrics.csv, nodes.csv, cards.csv, "
                       "metrics.om.txt to "),
            std::string::npos)
      << o.out;
  // The tables read the metrics only: the same with and without the records.
  EXPECT_EQ(run("report " + full + "/result.json --format csv").out,
            run("report " + slim + "/result.json --format csv").out);
  // `check` compares metrics: the slim result passes against the full one.
  EXPECT_EQ(run("check " + slim + "/result.json --baseline " + full + "/result.json").code, 0);
}

// A list keeps what it names: --records jobs keeps the per-job records and jobs.csv.
TEST_F(Records, AListKeepsWhatItNames) {
  const std::string out = dir_ + "/jobs";
  ASSERT_EQ(run("run " + kScenario + " --output " + out + " --records jobs").code, 0);
  const json r = read_json(out + "/result.json");
  EXPECT_EQ(r["metadata"]["records_omitted"], json({"events", "attempts"}));
  EXPECT_FALSE(r["runs"][0]["jobs"].empty());
  EXPECT_TRUE(fs::exists(out + "/jobs.csv"));
  EXPECT_FALSE(fs::exists(out + "/attempts.csv"));
  // --format json prints the same result, without the records left out.
  const auto printed =
      test::run_capturing("run " + kScenario + " --format json --records none", "2>/dev/null");
  EXPECT_EQ(printed.code, 0);
  const json p = json::parse(printed.out);
  EXPECT_EQ(p["metadata"]["records_omitted"], json({"jobs", "events", "attempts"}));
  EXPECT_TRUE(p["runs"][0]["attempts"].empty());
}

// Every reader that needs a record left out refuses, exit 2, naming the flag, and writes nothing.
TEST_F(Records, ReadersThatNeedThemRefuse) {
  const std::string none = dir_ + "/none";
  const std::string jobs = dir_ + "/jobs";
  ASSERT_EQ(run("run " + kScenario + " --output " + none + " --records none").code, 0);
  ASSERT_EQ(run("run " + kScenario + " --output " + jobs + " --records jobs").code, 0);
  const std::string kRerun = "; rerun without --records (or with a --records list that keeps ";
  const auto report = run("report " + none + "/result.json -o " + dir_ + "/r.html");
  EXPECT_EQ(report.code, 2);
  EXPECT_EQ(report.out, "tidesim: error: " + none +
                            "/result.json: written with `tidesim run --records none`: the per-job "
                            "records are not in it, and the report (its wait and completion-time "
                            "CDFs) needs them" +
                            kRerun + "jobs)\n");
  EXPECT_FALSE(fs::exists(dir_ + "/r.html"));
  // With the jobs kept, the report still needs the events (its timeline).
  const auto timeline = run("report " + jobs + "/result.json --figures " + dir_ + "/figs");
  EXPECT_EQ(timeline.code, 2);
  EXPECT_EQ(timeline.out, "tidesim: error: " + jobs +
                              "/result.json: written with `tidesim run --records jobs`: the events "
                              "are not in it, and the report (its event timeline) needs them" +
                              kRerun + "events)\n");
  EXPECT_FALSE(fs::exists(dir_ + "/figs"));
  const auto jobs_csv = run("report " + none + "/result.json --jobs-csv " + dir_ + "/j.csv");
  EXPECT_EQ(jobs_csv.code, 2);
  EXPECT_EQ(jobs_csv.out,
            "tidesim: error: " + none +
                "/result.json: written with `tidesim run --records none`: the per-job "
                "records are not in it, and --jobs-csv needs them" +
                kRerun + "jobs)\n");
  EXPECT_FALSE(fs::exists(dir_ + "/j.csv"));
  const auto om = run("report " + jobs + "/result.json --openmetrics " + dir_ + "/m.om");
  EXPECT_EQ(om.code, 2);
  EXPECT_EQ(om.out, "tidesim: error: " + jobs +
                        "/result.json: written with `tidesim run --records jobs`: the events are "
                        "not in it, and --openmetrics (its OOM-kill, eviction and restart "
                        "counters) needs them" +
                        kRerun + "events)\n");
  EXPECT_FALSE(fs::exists(dir_ + "/m.om"));
  // What needs no record left out still works: the per-job CSV of --records jobs, the series.
  EXPECT_EQ(run("report " + jobs + "/result.json --jobs-csv " + dir_ + "/j.csv").code, 0);
  EXPECT_EQ(run("report " + none + "/result.json --nodes-csv " + dir_ + "/n.csv").code, 0);
}

// The flag is checked before anything runs: a value that is no record list, or a run that writes
// no result.
TEST_F(Records, BadUseIsRefusedBeforeTheRun) {
  const auto bad = run("run " + kScenario + " --output " + dir_ + "/x --records jobs,evnts");
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.out,
            "tidesim: error: --records: 'evnts' is not a record; give all, none or the "
            "records to keep, from jobs, events, attempts, joined by commas (e.g. "
            "jobs)\n");
  EXPECT_FALSE(fs::exists(dir_ + "/x"));
  const auto alone = run("run " + kScenario + " --records none");
  EXPECT_EQ(alone.code, 2);
  EXPECT_EQ(alone.out,
            "tidesim: error: --records: records are written only with --output DIR or --format "
            "json\n");
}

}  // namespace
}  // namespace tidesim::app
