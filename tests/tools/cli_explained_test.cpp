// Mistakes that explain themselves (issue 29): a misspelt key or name is named with a suggestion,
// and every error carries its file and line:column.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "tests/common/cli.hpp"
#include "tests/common/require.hpp"
#include "tests/tools/sample_result.hpp"

namespace tidesim::app {
namespace {

using test::run;

class Explained : public ::testing::Test {
 protected:
  void SetUp() override {
    TIDESIM_REQUIRE_CLI();
    dir_ = test::temp_dir("explained");
  }
  // Writes `text` to DIR/name and returns the path.
  std::string write(const std::string& name, const std::string& text) const {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  // tests/tools/data/minimal.yaml with `from` replaced by `to`, written to DIR/name.
  std::string minimal_with(const std::string& name, const std::string& from,
                           const std::string& to) const {
    std::ifstream in("tests/tools/data/minimal.yaml");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) {
      text.replace(at, from.size(), to);
    }
    return write(name, text);
  }
  std::string dir_;
};

// Item 6: a misspelt required key is named where it is, with the key it stands for, instead of
// "missing required field" at the mapping.
TEST_F(Explained, AMisspeltRequiredKeyIsNamed) {
  const std::string f = minimal_with("b.yaml", "batch_size: 64", "batchsize: 64");
  const auto o = run("validate " + f);
  EXPECT_EQ(o.code, 2);
  // Line 11, column 67: where `batchsize` starts in the flow mapping of the job.
  EXPECT_EQ(o.out, "tidesim: error: " + f +
                       ":11:67: workload.jobs[0].batchsize: unknown key 'batchsize' (did you mean "
                       "batch_size?)\n");
  // A required section (Fields::require) reads the same.
  const std::string c = write("c.yaml", "name: x\nclustr: {}\nworkload: {}\npolicies: []\n");
  const auto co = run("validate " + c);
  EXPECT_EQ(co.code, 2);
  EXPECT_EQ(co.out, "tidesim: error: " + c +
                        ":2:1: clustr: unknown key 'clustr' (did you mean cluster?)\n");
  // Nothing close: still "missing required field" at the mapping.
  const std::string m = minimal_with("m.yaml", "batch_size: 64", "size: 64");
  const auto mo = run("validate " + m);
  EXPECT_EQ(mo.code, 2);
  EXPECT_EQ(mo.out, "tidesim: error: " + m +
                        ":11:49: workload.jobs[0].batch_size: missing required field (an "
                        "integer)\n");
}

// Item 7: an unknown scheduler in `policies:` is refused at its place with the closest built-in
// name (it was refused at run time as "load_aware: scheduler: not a built-in scheduler", the name
// where the file belongs), both as a list entry and as the `scheduler:` of a mapping.
TEST_F(Explained, AnUnknownPolicyHasItsPlaceAndASuggestion) {
  const std::string kRest =
      ": not a built-in scheduler (first-fit, default-k8s, default-k8s-gang, "
      "default-k8s-gang-v136, load-aware, most-allocated, random, dot-product, gpu-clustering, "
      "gpu-packing, best-fit, fgd) and no KubeSchedulerConfiguration file (NAME.yaml) by that "
      "name\n";
  const std::string f = minimal_with("p.yaml", "policies: [default-k8s,", "policies: [load_aware,");
  const auto o = run("validate " + f);
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.out, "tidesim: error: " + f +
                       ":12:12: policies[0]: unknown policy 'load_aware' (did you mean "
                       "'load-aware'?)" +
                       kRest);
  const std::string m =
      minimal_with("m.yaml", "scheduler: load-aware}", "scheduler: mostallocated}");
  const auto mo = run("run " + m);
  EXPECT_EQ(mo.code, 2);
  EXPECT_EQ(mo.out, "tidesim: error: " + m +
                        ":12:47: policies[1].scheduler: unknown policy 'mostallocated' (did you "
                        "mean 'most-allocated'?)" +
                        kRest);
}

// Item 8: an empty file says it is empty (it read as "cluster: missing required field"), and a
// document that is only null is not a mapping.
TEST_F(Explained, AnEmptyFileSaysItIsEmpty) {
  const std::string e = write("e.yaml", "# nothing yet\n\n");
  const auto o = run("validate " + e);
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.out, "tidesim: error: " + e +
                       ": the file is empty (no YAML document, only blank lines or comments)\n");
  // explain's object list said "--pod: 0 pending pods (without spec.nodeName) in the file".
  const auto x = run("explain " + e);
  EXPECT_EQ(x.code, 2);
  EXPECT_EQ(x.out, o.out);
  const std::string n = write("n.yaml", "# c\n~\n");
  const auto no = run("validate " + n);
  EXPECT_EQ(no.code, 2);
  EXPECT_EQ(no.out, "tidesim: error: " + n +
                        ":2:1: (document): expected a mapping of keys to values, not null\n");
}

// Item 8: `validate` of a KubeSchedulerConfiguration with an error printed "FILE: " on stdout
// before the error; stdout is now empty.
TEST_F(Explained, ValidatePrintsNothingStrayBeforeAnError) {
  const std::string k = write("k.yaml",
                              "apiVersion: kubescheduler.config.k8s.io/v1\n"
                              "kind: KubeSchedulerConfiguration\n"
                              "profiles:\n"
                              "  - schedulerName: a\n"
                              "    plugins: {score: {enabled: [{name: Nope}]}}\n");
  const auto o = test::run_capturing("validate " + k, "2>/dev/null");
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.out, "");
  const auto e = run("validate " + k);
  EXPECT_EQ(e.out.rfind("tidesim: error: " + k +
                            ":5:33: profiles[0](a).plugins.score.enabled[0].name: plugin \"Nope\" "
                            "does not exist (known plugins: ",
                        0),
            0u)
      << e.out;
}

// Item 8: `1e3s` was refused as "needs a unit"; the exponent is what is wrong.
TEST_F(Explained, ADurationWithAnExponentSaysSo) {
  const std::string f = minimal_with("u.yaml", "until: 2d", "until: 1e3s");
  const auto o = run("validate " + f);
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.out, "tidesim: error: " + f +
                       ":18:14: run.until: '1e3s': a duration has no exponent; write the number "
                       "in full (e.g. 1000s, not 1e3s)\n");
}

// Item 8: `run --output FILE` with FILE a regular file failed with exit 1 after the whole
// simulation; it is refused before any run, exit 2, and the file is left as it was.
TEST_F(Explained, RunOutputThatIsAFileIsRefusedFirst) {
  const std::string file = write("out", "keep\n");
  const auto o = run("run tests/tools/data/minimal.yaml --seed 1 --output " + file);
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.out, "tidesim: error: --output: '" + file +
                       "' is a file; --output names a folder (created when missing)\n");
  EXPECT_EQ(test::read_file(file), "keep\n");
}

// Item 8: a null entry in cluster.node_groups (`- ~`) gave "missing required field" with no line;
// the error is at the null.
TEST_F(Explained, ANullNodeGroupHasItsPlace) {
  const std::string f = minimal_with("g.yaml", "    - name: a10\n", "    - ~\n    - name: a10\n");
  const auto o = run("validate " + f);
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.out, "tidesim: error: " + f +
                       ":4:7: cluster.node_groups[0].name: missing required field (a string)\n");
}

// Item 8: explain's duplicate node was "FILE: node n1: duplicate node", with no place; it is at
// the second node's name, naming the first.
TEST_F(Explained, ExplainsDuplicateNodeHasItsPlace) {
  const std::string f = write(
      "dup.yaml",
      "apiVersion: v1\nkind: List\nitems:\n"
      "- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: 1}}}\n"
      "- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: 1}}}\n"
      "- {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: [{name: c}]}}\n");
  const auto o = run("explain " + f);
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.out, "tidesim: error: " + f +
                       ":5:49: items[1].metadata.name: duplicate node 'n1' (first at items[0])\n");
}

// Item 8: a NUL byte in a topology label ended the message there ("GPU0/GP"); it is shown as \0.
TEST_F(Explained, ANulByteDoesNotCutTheMessage) {
  static constexpr char kMatrix[] = "\tGPU0\tGP\0U1\nGPU0\t X \tNV1\nGPU1\tNV1\t X \n";
  const std::string f = write("t.txt", std::string(kMatrix, sizeof(kMatrix) - 1));
  const auto o = run("topo " + f);
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.out,
            "tidesim: error: " + f + ":2:10: GPU0/GP\\0U1: NVLink is only modelled between GPUs\n");
}

// Item 8: an unknown key in LoadAwareScorer's args was reported under LoadAwareFilter (the two
// share their args) and without a line; it is under the scorer, at the key.
TEST_F(Explained, ALoadAwareArgIsReportedUnderItsPlugin) {
  std::ifstream in("scenarios/schedulers/seed-tuned.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string from = "      gpuMemoryDecaySlope: 0.12\n";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), "      nosuch: 1\n");
  const std::string f = write("st.yaml", text);
  const auto o = run("validate " + f);
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.out.rfind("tidesim: error: " + f +
                            ":23:7: profiles[0](load-aware-scheduler).pluginConfig[1]"
                            "(LoadAwareScorer).args.nosuch: unknown key; allowed keys here: ",
                        0),
            0u)
      << o.out;
}

}  // namespace
}  // namespace tidesim::app

namespace tidesim::app {
namespace {

// Item 5: explain takes a scenario: it replays the run to --at and explains the next cycle,
// naming a tie at the highest total and the seeded draw that broke it. It said "document[0].kind:
// expected Node or Pod, got ''".
TEST_F(Explained, AScenarioIsExplainedAtATime) {
  const auto two = run("explain scenarios/seed-benchmark.yaml");
  EXPECT_EQ(two.code, 2);
  EXPECT_EQ(two.out,
            "tidesim: error: scenarios/seed-benchmark.yaml: --policy: the scenario has 2 "
            "policies (default-k8s, load-aware): name one\n");
  // At 0 s the 8 empty nodes score alike under default-k8s: a tie, drawn from the seed's stream.
  const auto first = run("explain scenarios/seed-benchmark.yaml --policy default-k8s --seed 3");
  EXPECT_EQ(first.code, 0) << first.out;
  EXPECT_NE(first.out.find("scenario seed-benchmark, policy default-k8s, seed 3: the cycle at t = "
                           "0s (0.000 s)\n"),
            std::string::npos)
      << first.out;
  EXPECT_NE(first.out.find("tie: 8 nodes share the highest total (node-01, node-02, node-03, "
                           "node-04, node-05, node-06, node-07, node-08); the scheduler drew one "
                           "from its seeded tie-break stream (seed 3, stream "
                           "\"scheduler/default-k8s\")"),
            std::string::npos)
      << first.out;
  EXPECT_NE(first.out.find("chosen node: node-0"), std::string::npos);
  // Later, with filter verdicts; JSON carries the time and the policy.
  const auto later =
      run("explain scenarios/seed-benchmark.yaml --policy load-aware --at 20m --format json");
  EXPECT_EQ(later.code, 0) << later.out;
  EXPECT_NE(later.out.find("\"policy\": \"load-aware\""), std::string::npos);
  EXPECT_NE(later.out.find("\"at_s\": "), std::string::npos);
  EXPECT_NE(later.out.find("\"failed_plugin\": \"LoadAwareFilter\""), std::string::npos);
}

TEST_F(Explained, AScenarioExplainRefusesWhatDoesNotApply) {
  const std::string base = "explain scenarios/seed-benchmark.yaml --policy default-k8s ";
  const auto s = run(base + "-s load-aware");
  EXPECT_EQ(s.code, 2);
  EXPECT_EQ(s.out,
            "tidesim: error: --scheduler: applies to Kubernetes objects, not to a scenario "
            "(choose one of its policies, or any policy, with --policy)\n");
  const auto at = run(base + "--at soon");
  EXPECT_EQ(at.code, 2);
  EXPECT_EQ(at.out.rfind("tidesim: error: --at: ", 0), 0u) << at.out;
  const auto pod = run(base + "--at 10m --pod no-such-pod");
  EXPECT_EQ(pod.code, 2);
  EXPECT_EQ(pod.out.rfind("tidesim: error: --pod: pod 'no-such-pod' has no scheduling cycle at or "
                          "before 10m under policy 'default-k8s' (seed 1);",
                          0),
            0u)
      << pod.out;
  const auto end = run(base + "--at 1000d");
  EXPECT_EQ(end.code, 2);
  EXPECT_EQ(end.out,
            "tidesim: error: --at: policy 'default-k8s' (seed 1) makes no scheduling "
            "cycle at or after 1000d\n");
}

}  // namespace
}  // namespace tidesim::app
