// Issue 29, item 8: node-list, topology and CSV row errors give their line and the column where
// the offending cell or word begins (columns count characters, as an editor shows them), as the
// user sees them from the CLI. Every expected column is counted by hand in the input shown.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tests/common/cli.hpp"
#include "tests/common/require.hpp"
#include "tests/tools/sample_result.hpp"

namespace tidesim::app {
namespace {

using test::run;

class RowPlaces : public ::testing::Test {
 protected:
  void SetUp() override {
    TIDESIM_REQUIRE_CLI();
    dir_ = test::temp_dir("row-places");
  }
  // Writes `text` to DIR/name and returns the path.
  std::string write(const std::string& name, const std::string& text) const {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  // A scenario replaying the native trace `trace` (a file name in DIR) on two A10 nodes.
  std::string trace_scenario(const std::string& trace) const {
    return write("s.yaml",
                 "name: rows\n"
                 "cluster:\n"
                 "  node_groups: [{name: a10, count: 2, gpu: A10, topology: a10x4-pcie}]\n"
                 "workload:\n"
                 "  trace: {file: " +
                     trace +
                     ", format: native, model: resnet50, batch_size: 8}\n"
                     "policies: [first-fit]\n"
                     "seeds: [1]\n"
                     "run: {until: 1h}\n");
  }
  std::string dir_;
};

const std::string kNative = "name,submit_s,duration_s,pods,gpus_per_pod,gpu_milli\n";

// The node list of `cluster.nodes_from`: a cell that is no number, a GPU model tidesim does not
// know (found after the list is read, placed at its cell), a repeated node name.
TEST_F(RowPlaces, NodeListErrorsHaveTheirCell) {
  const std::string kDir = "tests/tools/data/openb/";
  // "bad-node,lots,...": lots at 10.
  const auto bad = run("validate " + kDir + "bad-row.yaml");
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.out, "tidesim: error: " + kDir +
                         "bad-nodes.csv:3:10: cpu_milli: 'lots' is not an integer\n");
  // "odd-node,8000,16384,1,X9000": X9000 at 23.
  const auto model = run("validate " + kDir + "bad-model.yaml");
  EXPECT_EQ(model.code, 2);
  EXPECT_EQ(model.out.rfind("tidesim: error: " + kDir +
                                "bad-model-nodes.csv:3:23: model: unknown GPU model 'X9000'",
                            0),
            0u)
      << model.out;
  // The second "same" begins line 3.
  const auto dup = run("validate " + kDir + "dup-node.yaml");
  EXPECT_EQ(dup.code, 2);
  EXPECT_EQ(dup.out, "tidesim: error: " + kDir +
                         "dup-nodes.csv:3:1: sn: a node named 'same' already exists\n");
}

// A trace row's errors: one found while reading (a cell, a row of the wrong length), and those
// found when the rows become jobs (no run time; a model the catalogue lacks), each at its cell.
TEST_F(RowPlaces, TraceRowErrorsHaveTheirCell) {
  // "b,5,x,1,1,0": x at 5.
  write("cell.csv", kNative + "a,0,10,1,1,0\nb,5,x,1,1,0\n");
  const auto cell = run("validate " + trace_scenario("cell.csv"));
  EXPECT_EQ(cell.code, 2);
  EXPECT_EQ(cell.out,
            "tidesim: error: " + dir_ + "/cell.csv:3:5: duration_s: 'x' is not a number\n");
  // Too few fields: just past "b,5,7,1,1" (9 characters); too many: the extra field after
  // "b,5,7,1,1,0," (13).
  write("short.csv", kNative + "a,0,10,1,1,0\nb,5,7,1,1\n");
  const auto shorter = run("validate " + trace_scenario("short.csv"));
  EXPECT_EQ(shorter.out,
            "tidesim: error: " + dir_ + "/short.csv:3:10: expected 6 fields, found 5\n");
  write("long.csv", kNative + "a,0,10,1,1,0\nb,5,7,1,1,0,9\n");
  const auto longer = run("validate " + trace_scenario("long.csv"));
  EXPECT_EQ(longer.out, "tidesim: error: " + dir_ + "/long.csv:3:13: expected 6 fields, found 7\n");
  // An empty duration_s with no default_duration: the empty cell after "b,5," (5).
  write("none.csv", kNative + "a,0,10,1,1,0\nb,5,,1,1,0\n");
  const auto none = run("validate " + trace_scenario("none.csv"));
  EXPECT_EQ(none.code, 2);
  EXPECT_EQ(none.out, "tidesim: error: " + dir_ +
                          "/none.csv:3:5: duration: the trace gives no run time; set "
                          "workload.trace.default_duration\n");
  // A model the catalogue lacks, in the trace's model column: "a,0,10,1,1,0,resnet5O" at 14.
  write("model.csv",
        "name,submit_s,duration_s,pods,gpus_per_pod,gpu_milli,model\n"
        "a,0,10,1,1,0,resnet5O\n");
  const auto model = run("validate " + trace_scenario("model.csv"));
  EXPECT_EQ(model.code, 2);
  EXPECT_EQ(model.out.rfind("tidesim: error: " + dir_ + "/model.csv:2:14: model: ", 0), 0u)
      << model.out;
  // The header: a column no format has, "colour" after the six of kNative (54).
  write("header.csv", "name,submit_s,duration_s,pods,gpus_per_pod,gpu_milli,colour\n");
  const auto header = run("trace stats " + dir_ + "/header.csv");
  EXPECT_EQ(header.code, 2);
  EXPECT_EQ(
      header.out.rfind("tidesim: error: " + dir_ + "/header.csv:1:54: colour: unknown column", 0),
      0u)
      << header.out;
}

// `nvidia-smi topo -m` text: the offending word's column (a tab is one character).
TEST_F(RowPlaces, TopologyErrorsHaveTheirWord) {
  // "GPU0\t X \tQPI": QPI at 10.
  const auto cell = run("topo tests/topologies/data/bad_cell.txt");
  EXPECT_EQ(cell.code, 2);
  EXPECT_EQ(cell.out,
            "tidesim: error: tests/topologies/data/bad_cell.txt:2:10: GPU0/GPU1: unknown "
            "connection 'QPI' (expected X, NV#, PIX, PXB, PHB, NODE, SYS or SOC)\n");
  // The asymmetric pair: GPU1's cell of GPU0, "GPU1\tNV1" at 6.
  const auto asym = run("topo tests/topologies/data/bad_asymmetric.txt");
  EXPECT_EQ(asym.code, 2);
  EXPECT_EQ(asym.out.rfind("tidesim: error: tests/topologies/data/bad_asymmetric.txt:3:6: "
                           "GPU1/GPU0: asymmetric matrix",
                           0),
            0u)
      << asym.out;
}

// Control characters in a cell or a word are shown, not cut: a NUL byte no longer ends the
// message.
TEST_F(RowPlaces, ControlCharactersInFieldsAreShown) {
  const std::string csv =
      write("nul.csv", kNative + "a,0,1" + std::string(1, '\0') + "0,1,1,0\nb,0,\x1b,1,1,0\n");
  const auto nul = run("trace stats " + csv);
  EXPECT_EQ(nul.code, 2);
  EXPECT_EQ(nul.out, "tidesim: error: " + csv + ":2:5: duration_s: '1\\00' is not a number\n");
  const std::string topo =
      write("nul.txt", std::string("\tGPU0\tGPU1\nGPU0\t X \tN") + '\0' + "V\nGPU1\tNV1\t X \n");
  const auto t = run("topo " + topo);
  EXPECT_EQ(t.code, 2);
  EXPECT_EQ(t.out, "tidesim: error: " + topo +
                       ":2:10: GPU0/GPU1: unknown connection 'N\\0V' (expected X, NV#, PIX, PXB, "
                       "PHB, NODE, SYS or SOC)\n");
}

}  // namespace
}  // namespace tidesim::app
