// Every command answers a malformed input with exit 2 and "file:line:column: field: message"
// (issue 16, "one error path"). Each case is a reproducer of a cause the fuzzer found.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "tests/common/cli.hpp"
#include "tests/common/require.hpp"
#include "tests/tools/sample_result.hpp"
#include "tidesim/tools/lib/result.hpp"

namespace tidesim::app {
namespace {

using test::run;

class BadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    TIDESIM_REQUIRE_CLI();
    dir_ = test::temp_dir("bad_input");
  }
  // Writes `text` to DIR/name and returns the path.
  std::string write(const std::string& name, const std::string& text) const {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  std::string dir_;
};

TEST_F(BadInput, Validate) {
  const std::string f = write("dup.yaml", "name: x\ncluster: {}\ncluster: {}\n");
  const auto o = run("validate " + f);
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.out,
            "tidesim: error: " + f + ":3:1: cluster: duplicate key (first at line 2, column 1)\n");
  // A directory is refused with the path, not read as an empty file or a stream failure.
  const auto d = run("validate " + dir_);
  EXPECT_EQ(d.code, 2);
  EXPECT_EQ(d.out, "tidesim: error: " + dir_ + ": cannot open scenario file: it is a directory\n");
  // Non-UTF-8 text is refused up front, at the byte.
  const std::string latin = write("latin.yaml", "name: caf\xe9\n");
  const auto l = run("validate " + latin);
  EXPECT_EQ(l.code, 2);
  EXPECT_EQ(l.out, "tidesim: error: " + latin +
                       ":1:10: not UTF-8 text (byte 0xE9); every input must be UTF-8\n");
}

// `--seed 1 --seed 1` ran seed 1 twice and reported "2 seeds" with a +- 0 interval; the scenario's
// `seeds: [1, 1]` too. Both are refused, naming the seed (the scenario's at its place).
TEST_F(BadInput, ASeedTwice) {
  const auto o = run("run tests/tools/data/minimal.yaml --seed 1 --seed 2 --seed 1");
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.out, "tidesim: error: --seed: seed 1 is given twice; each seed is one replica\n");
  std::ifstream in("tests/tools/data/minimal.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_NE(text.find("seeds: 3\n"), std::string::npos);
  text.replace(text.find("seeds: 3\n"), 9, "seeds: [1, 1]\n");
  const std::string f = write("seeds.yaml", text);
  const auto s = run("validate " + f);
  EXPECT_EQ(s.code, 2);
  EXPECT_EQ(s.out, "tidesim: error: " + f +
                       ":13:12: seeds[1]: seed 1 is listed twice (also seeds[0]); each seed is one "
                       "replica\n");
}

// `memory: 192` (bytes) on a node group ran with exit 0 and no word; `validate` now warns (stderr)
// and still answers ok.
TEST_F(BadInput, ValidateWarnsAboutATinyNodeMemory) {
  std::ifstream in("tests/tools/data/minimal.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string from = "      storage: {bandwidth: 2GB/s, latency: 200us}\n";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), from + "      memory: 192\n");
  const std::string f = write("tiny.yaml", text);
  const auto o = run("validate " + f);
  EXPECT_EQ(o.code, 0);
  EXPECT_NE(o.out.find("tidesim: warning: " + f + ": " + f +
                       ":10:15: cluster.node_groups[0].memory: 192 bytes is less than 1 MiB; a "
                       "number without a unit is bytes (did you mean 192Gi?)\n"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find(f + ": ok ("), std::string::npos) << o.out;
}

TEST_F(BadInput, Run) {
  // sample_interval: 1ms over 2 days would keep 172.8 million samples.
  std::ifstream in("tests/tools/data/minimal.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string from = "run: {until: 2d, cycle_time: 5ms}";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), "run: {until: 2d, sample_interval: 1ms}");
  const std::string f = write("s.yaml", text);
  const auto o = run("run " + f);
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.out, "tidesim: error: " + f +
                       ":18:35: run.sample_interval: until / sample_interval = 172800000 samples; "
                       "at most 10000000 (make the interval longer or the horizon shorter)\n");
}

TEST_F(BadInput, Topo) {
  const std::string f = write("t.txt", "\tGPU0\tGPU1\nGPU0\t X \tNV9\nGPU1\tNV1\t X \nLegend:\n");
  const auto o = run("topo " + f);
  EXPECT_EQ(o.code, 2);
  // Column 6: GPU1's cell of GPU0, after "GPU1\t".
  EXPECT_EQ(o.out, "tidesim: error: " + f +
                       ":3:6: GPU1/GPU0: asymmetric matrix: GPU1->GPU0 is NV1 but GPU0->GPU1 (line "
                       "2) is NV9\n");
  // 30,001 columns: refused at the header, before any row (it took 40 s and 7 GB).
  std::string header = "\tGPU0";
  for (int i = 1; i <= 30000; ++i) {
    header += " NIC";
  }
  const std::string w = write("wide.txt", header + "\n");
  const auto wo = run("topo " + w);
  EXPECT_EQ(wo.code, 2);
  EXPECT_EQ(wo.out, "tidesim: error: " + w +
                        ":1:1055: header: too many columns (30001); a matrix has at most 256 "
                        "devices\n");
}

TEST_F(BadInput, TraceStats) {
  const std::string f = write("tr.csv",
                              "name,submit_s,duration_s,pods,gpus_per_pod,gpu_milli\n"
                              "a,0,10,1,1,0\nb,0,10,1,1,0\na,5,10,1,1,0\n");
  const auto o = run("trace stats " + f);
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.out, "tidesim: error: " + f +
                       ":4:1: name: 'a' repeated (first on line 2); job names must be unique\n");
}

TEST_F(BadInput, Explain) {
  // A file holding only `,` made yaml-cpp's LoadAll loop forever.
  const std::string f = write("comma.yaml", ",");
  const auto o = run("explain " + f);
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.out, "tidesim: error: " + f +
                       ":1:1: YAML syntax error: the parser makes no progress here (a stray ',', "
                       "']' or '}' outside a flow collection?)\n");
  // A list where a string belongs: an error at the value, naming the field.
  const std::string k = write("kind.yaml", "apiVersion: v1\nkind: [List]\nitems: []\n");
  const auto ko = run("explain " + k);
  EXPECT_EQ(ko.code, 2);
  EXPECT_EQ(ko.out, "tidesim: error: " + k + ":2:7: kind: expected a scalar\n");
}

TEST_F(BadInput, Report) {
  const std::string f = write("r.json", "{\n  \"runs\": [1,\n}\n");
  const auto o = run("report " + f);
  EXPECT_EQ(o.code, 2);
  // nlohmann's text without its "[json.exception.parse_error.101] parse error at line 3, column
  // 1: " (issue 29, item 8): the place is the error's.
  EXPECT_EQ(o.out, "tidesim: error: " + f +
                       ":3:1: not valid JSON: syntax error while parsing value - unexpected '}'; "
                       "expected '[', '{', or a literal\n");
  // 1e999 does not fit a double: at the number (line 1, column 11).
  const std::string big = write("big.json", "{\"runs\": [1e999]}");
  const auto b = run("report " + big);
  EXPECT_EQ(b.code, 2);
  EXPECT_EQ(b.out,
            "tidesim: error: " + big + ":1:11: not valid JSON: number overflow parsing '1e999'\n");
}

TEST_F(BadInput, Check) {
  const std::string good = dir_ + "/result.json";
  save_result(test::sample_result(), good);
  const auto o = run("check " + good + " --baseline " + dir_);
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.out,
            "tidesim: error: " + dir_ + ": cannot open the result file: it is a directory\n");
  const std::string f = write("r.json", "{\"runs\": [1,\n]}\n");
  const auto b = run("check " + good + " --baseline " + f);
  EXPECT_EQ(b.code, 2);
  EXPECT_EQ(b.out, "tidesim: error: " + f +
                       ":2:1: not valid JSON: syntax error while parsing value - unexpected ']'; "
                       "expected '[', '{', or a literal\n");
}

// The descheduler: section (docs/descheduling.md): a target under its threshold exits 2 at the
// file, line and field.
TEST_F(BadInput, Descheduler) {
  std::ifstream in("tests/tools/data/minimal.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text +=
      "\ndescheduler:\n  strategies:\n    - name: LowNodeUtilization\n"
      "      thresholds: {gpu: 60%}\n      target_thresholds: {gpu: 50%}\n";
  const std::string f = write("desched.yaml", text);
  const auto o = run("validate " + f);
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.out.find(f + ":"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find(": descheduler.strategies[0].target_thresholds.gpu: 50% is under the low "
                       "threshold 60%"),
            std::string::npos)
      << o.out;
}

// A scenario's cluster.snapshot (docs/scenarios.md): validate reads it (exit 0, warning of the
// pod on a node not in the snapshot), and refuses a running pod its node cannot hold with exit 2
// at the pod in the snapshot's file.
TEST_F(BadInput, ASnapshotPodItsNodeCannotHold) {
  const auto ok = run("validate tests/sim/data/snapshot-run.yaml");
  EXPECT_EQ(ok.code, 0) << ok.out;
  EXPECT_NE(ok.out.find("1 running pod(s) are bound to nodes not in the snapshot"),
            std::string::npos)
      << ok.out;
  const std::string snap =
      write("snap.yaml",
            "apiVersion: v1\nkind: List\nitems:\n"
            "- kind: Node\n"
            "  metadata: {name: n1, labels: {nvidia.com/gpu.product: A10}}\n"
            "  status: {allocatable: {cpu: '8', memory: 64Gi, nvidia.com/gpu: '1'}}\n"
            "- kind: Pod\n"
            "  metadata: {name: big, namespace: team}\n"
            "  spec:\n"
            "    nodeName: n1\n"
            "    containers: [{name: c, resources: {requests: {nvidia.com/gpu: '2'}}}]\n");
  const std::string f = write("snap-scenario.yaml",
                              "name: snap\ncluster:\n  snapshot: snap.yaml\n"
                              "workload:\n  arrivals: {process: burst, count: 1}\n"
                              "  jobs:\n    - {name: j, pod: {gpus: 1}, model: resnet50, "
                              "batch_size: 64, duration: 100s}\n"
                              "policies: [default-k8s]\n");
  const auto bad = run("validate " + f);
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.out, "tidesim: error: " + snap +
                         ":7:3: spec.nodeName: pod 'team/big' asks for 2 nvidia.com/gpu on node "
                         "'n1', whose cards cannot hold it beside the pods bound before it\n");
}

}  // namespace
}  // namespace tidesim::app
