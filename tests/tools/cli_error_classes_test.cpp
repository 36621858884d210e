// The classes of bad input that used to exit 1 ("failed: ...") without a place (issue 16, "one
// error path"), rebuilt from the issue's descriptions: each now exits 2 with
// "tidesim: error: FILE[:LINE:COLUMN]: FIELD: message". Classes already covered elsewhere are
// named at the end of the file with the test that covers them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/common/cli.hpp"
#include "tests/common/require.hpp"
#include "tests/tools/sample_result.hpp"

namespace tidesim {
namespace {

using test::run;

class ErrorClasses : public ::testing::Test {
 protected:
  void SetUp() override {
    TIDESIM_REQUIRE_CLI();
    dir_ = test::temp_dir("error_classes");
  }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  // tests/tools/data/solo.yaml (one job, one node) with `from` replaced by `to`.
  std::string solo_with(const std::string& name, const std::string& from,
                        const std::string& to) const {
    std::string text = test::read_file("tests/tools/data/solo.yaml");
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    return write(name, text);
  }
  // Expects exit 2 and exactly `message` (one line) from `tidesim ARGS`.
  void expect_input_error(const std::string& args, const std::string& message) const {
    const auto o = run(args);
    EXPECT_EQ(o.code, 2) << args;
    EXPECT_EQ(o.out, "tidesim: error: " + message + "\n") << args;
  }
  std::string dir_;
};

// Scenarios (validate and run read them alike).

TEST_F(ErrorClasses, ScenarioYamlSyntax) {
  const std::string f = write("syntax.yaml", "name: x\ncluster: [\n");
  expect_input_error("validate " + f,
                     f + ":3:1: YAML syntax error: end of sequence flow not found");
  expect_input_error("run " + f, f + ":3:1: YAML syntax error: end of sequence flow not found");
}

TEST_F(ErrorClasses, ScenarioValueOfTheWrongShape) {
  const std::string f = write("shape.yaml", "name: [a]\n");
  expect_input_error("run " + f, f + ":1:7: name: expected a single value, not a list or mapping");
}

TEST_F(ErrorClasses, ScenarioNumberBeyondADouble) {
  // std::stod on 1e999 throws std::out_of_range.
  const std::string f =
      solo_with("huge.yaml", "batch_size: 64", "batch_size: 64\n      weight: 1e999");
  expect_input_error("validate " + f,
                     f + ":17:15: workload.jobs[0].weight: '1e999' is not a number");
}

TEST_F(ErrorClasses, ScenarioDurationOfFourHundredDigits) {
  // parse_duration's std::stod threw std::out_of_range; the token is shortened in the message.
  const std::string f =
      solo_with("dur.yaml", "steps: 1000",
                "steps: 1000\n      checkpoint_interval: 1" + std::string(400, '0') + "s");
  expect_input_error("validate " + f,
                     f + ":18:28: workload.jobs[0].checkpoint_interval: '1" + std::string(98, '0') +
                         "...(404 characters) is out of range (at most 365250d, 1000 years)");
}

TEST_F(ErrorClasses, ScenarioIsADirectoryOrMissingOrHasAnOverLongName) {
  expect_input_error("run " + dir_, dir_ + ": cannot open scenario file: it is a directory");
  expect_input_error("validate " + dir_ + "/absent.yaml",
                     dir_ + "/absent.yaml: cannot open scenario file: No such file or directory");
  // A 300-character file name (the system's limit is 255): the system's reason.
  const std::string name = dir_ + "/" + std::string(300, 'a') + ".yaml";
  const auto o = run("validate " + name);
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.out.find(": cannot open scenario file: File name too long\n"), std::string::npos)
      << o.out;
}

TEST_F(ErrorClasses, NonUtf8JobNameIsRefusedBeforeTheRunAndWritesNothing) {
  // It used to fail only when the result was written, after the whole run, leaving an empty
  // result.json.
  const std::string f = solo_with("latin.yaml", "name: solo\n", "name: \"caf\xe9\"\n");
  const std::string out = dir_ + "/out";
  expect_input_error("run " + f + " --output " + out,
                     f + ":2:11: not UTF-8 text (byte 0xE9); every input must be UTF-8");
  EXPECT_FALSE(std::filesystem::exists(out));
}

// explain: the node annotations it reads as metrics name their line and column.
TEST_F(ErrorClasses, ExplainAnnotationWithItsPlace) {
  std::string text = test::read_file("scenarios/explain/three-nodes.yaml");
  const std::string from = "tidesim.io/nvlink-competition-index: \"0.25\"";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), "tidesim.io/nvlink-competition-index: \"high\"");
  const std::string f = write("annotated.yaml", text);
  expect_input_error("explain " + f + " --scheduler load-aware",
                     f + ":21:44: items[0].metadata.annotations.tidesim.io/"
                         "nvlink-competition-index: expected a non-negative number, got 'high'");
  text.replace(text.find("\"high\""), 6, "\"0.25\"");
  const std::string latency = "tidesim.io/storage-await-ms: \"nvme0n1p1=10.5\"";
  ASSERT_NE(text.find(latency), std::string::npos);
  text.replace(text.find(latency), latency.size(),
               latency + "\n      tidesim.io/metrics-latency: \"soon\"");
  const std::string g = write("latency.yaml", text);
  expect_input_error("explain " + g + " --scheduler load-aware",
                     g + ":23:35: items[0].metadata.annotations.tidesim.io/metrics-latency: "
                         "'soon' is not a duration (expected e.g. 10s, 250ms, 6h)");
}

TEST_F(ErrorClasses, ExplainDirectory) {
  expect_input_error("explain " + dir_, dir_ + ": cannot open file: it is a directory");
}

// Traces.

TEST_F(ErrorClasses, TraceNumberBeyondADouble) {
  const std::string f = write("huge.csv",
                              "name,submit_s,duration_s,pods,gpus_per_pod,gpu_milli\n"
                              "a,1e999,10,1,1,0\n");
  // Column 3: the cell after "a,".
  expect_input_error("trace stats " + f, f + ":2:3: submit_s: '1e999' is not a number");
}

TEST_F(ErrorClasses, TraceNotUtf8OrADirectory) {
  const std::string f = write("latin.csv",
                              "name,submit_s,duration_s,pods,gpus_per_pod,gpu_milli\n"
                              "caf\xe9,0,10,1,1,0\n");
  expect_input_error("trace stats " + f,
                     f + ":2:4: not UTF-8 text (byte 0xE9); every input must be UTF-8");
  expect_input_error("trace stats " + dir_, dir_ + ": cannot open file: it is a directory");
}

// A predictLoad policy where no forecast exists would judge the last sample without saying so:
// refused, naming the policy.
TEST_F(ErrorClasses, PredictiveProfileWithoutAPredictionSection) {
  const std::string m =
      "tests/tools/data/solo.yaml: policies: policy 'load-aware-predictive' judges predicted load "
      "(predictLoad: true), which needs the scenario's prediction: section (docs/prediction.md)";
  expect_input_error(
      "run tests/tools/data/solo.yaml --policy scenarios/schedulers/load-aware-predictive.yaml", m);
}

// Result files (report, check): JSON of the wrong shape names the JSON path of the field and
// the place of the value (of the object that lacks a missing field).
TEST_F(ErrorClasses, ResultOfTheWrongShape) {
  const std::string f = write("shape.json", "{\"runs\": \"x\"}");
  expect_input_error("report " + f, f + ":1:1: .schema: missing field");
  expect_input_error("check " + f + " --baseline " + f, f + ":1:1: .schema: missing field");
  const std::string g = write(
      "version.json", "{\n  \"schema\": \"tidesim-result\",\n  \"schema_version\": \"one\"\n}");
  expect_input_error("report " + g, g + ":3:21: schema_version: expected an integer");
}

// Issue 46, item 6: each case of the review gets its place and words a user knows: a storage
// bandwidth of 1e308PB/s ("fluid: capacity must be finite"), a 301-character nodes_from file name
// (the OS's "File name too long" naming no field), a pod bound to a node the explain file does not
// list (no line), a result whose metric is 1e308 (check: "degrees of freedom must be positive",
// report: "inf%"), and provenance.policies[1].name: [] ("JSON: type must be string").
TEST_F(ErrorClasses, MessagesHaveAPlaceAndUsersWords) {
  const std::string bw = solo_with("bandwidth.yaml", "topology: a10x4-pcie",
                                   "topology: a10x4-pcie\n      storage: {bandwidth: 1e308PB/s}");
  expect_input_error("validate " + bw, bw + ":9:28: cluster.node_groups[0].storage.bandwidth: "
                                            "'1e308PB/s' is more than the largest bandwidth, "
                                            "1000000TB/s");
  const std::string name(301, 'n');
  const std::string nf = write(
      "nodes-from.yaml",
      "name: x\ncluster:\n  nodes_from: {file: " + name +
          ".csv, format: openb}\nworkload:\n"
          "  arrivals: {process: burst, count: 1}\n  jobs:\n    - {name: j, pod: {gpus: 1}, model: "
          "resnet50, batch_size: 64, steps: 10}\npolicies: [first-fit]\n");
  const auto o = run("validate " + nf);
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.out.rfind("tidesim: error: " + nf + ":3:22: cluster.nodes_from.file: node list '", 0),
            0u)
      << o.out;
  const std::string objects =
      write("bound.yaml",
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeName: gone\n"
            "  containers: [{name: a}]\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n}\n"
            "status:\n  allocatable: {nvidia.com/gpu: 4}\n---\napiVersion: v1\nkind: Pod\n"
            "metadata: {name: q}\nspec:\n  containers: [{name: a}]\n");
  expect_input_error("explain " + objects,
                     objects +
                         ":5:13: document[0].spec.nodeName: pod 'p' is bound to node "
                         "'gone', which the file does not list (no Node of that name)");
  // Result files: one line per value (indent 2), so the place is the value's line.
  nlohmann::json doc = app::to_json(test::sample_result());
  const std::string metric = doc["runs"][0]["metrics"].begin().key();
  auto huge = doc;
  huge["runs"][0]["metrics"][metric] = 1e308;
  const std::string h = write("huge.json", huge.dump(2));
  const std::regex huge_message("tidesim: error: " + h +
                                ":[0-9]+:[0-9]+: runs\\[0\\]\\.metrics\\." + metric +
                                ": 1e\\+308 is beyond what a metric can be \\(at most 1e30 "
                                "in magnitude\\)\n");
  for (const std::string& args : {"report " + h, "check " + h + " --baseline " + h}) {
    const auto r = run(args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_TRUE(std::regex_match(r.out, huge_message)) << args << ": " << r.out;
  }
  auto bad_name = doc;
  bad_name["metadata"]["provenance"] = {
      {"policies", nlohmann::json::array({{{"name", nlohmann::json::array()},
                                           {"scheduler", "first-fit"},
                                           {"sha256", nullptr}}})}};
  const std::string b = write("provenance.json", bad_name.dump(2));
  const std::regex name_message("tidesim: error: " + b +
                                ":[0-9]+:[0-9]+: "
                                "metadata\\.provenance\\.policies\\[0\\]\\.name: expected a "
                                "string\n");
  for (const std::string& args : {"report " + b, "check " + b + " --baseline " + b}) {
    const auto r = run(args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_TRUE(std::regex_match(r.out, name_message)) << args << ": " << r.out;
  }
}

// Covered elsewhere (tests/tools/cli_bad_input_test.cpp, BadInput.*): a duplicate key
// (Validate), a 1 ms sample interval over 2 days (Run), an asymmetric or 30,001-column topology
// (Topo), a repeated trace job name (TraceStats), a YAML file holding only `,` and a list
// where explain objects want a kind (Explain), invalid JSON and 1e999 in a result (Report),
// a directory and invalid JSON as a baseline (Check).

}  // namespace
}  // namespace tidesim
