// The throughput table in Gavel's simulation_throughputs.json layout (workloads/throughput_table).
#include "tidesim/workloads/throughput_table.hpp"

#include <gtest/gtest.h>

#include <string>

#include "tests/common/require.hpp"
#include "tidesim/sim/input/data_folder.hpp"

namespace tidesim::workloads {
namespace {

const std::string kSmall =
    std::string(TIDESIM_SOURCE_DIR) + "/tests/workloads/data/gavel/throughputs_small.json";

std::string error_of(const std::string& text) {
  try {
    (void)parse_throughput_table(text, "t.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ThroughputTable, ReadsTheSmallFixture) {
  const ThroughputTable t = read_throughput_table(kSmall);
  EXPECT_EQ(t.gpu_types(), (std::vector<std::string>{"fast", "slow"}));
  const JobTypeKey a{"A (batch size 8)", 1};
  const JobTypeKey b{"B", 1};
  const JobTypeKey c{"C", 2};
  EXPECT_EQ(t.keys("fast").size(), 3U);
  EXPECT_DOUBLE_EQ(*t.isolated("fast", a), 4.0);
  EXPECT_DOUBLE_EQ(*t.isolated("slow", b), 1.0);
  EXPECT_DOUBLE_EQ(*t.isolated("slow", c), 0.0);
  EXPECT_FALSE(t.isolated("slow", JobTypeKey{"C", 1}));
  EXPECT_FALSE(t.isolated("medium", a));
  const auto ab = t.colocated("fast", a, b);
  ASSERT_TRUE(ab);
  EXPECT_DOUBLE_EQ(ab->self, 3.0);
  EXPECT_DOUBLE_EQ(ab->other, 1.5);
  EXPECT_DOUBLE_EQ(t.colocated("fast", b, a)->self, 1.5);
  EXPECT_FALSE(t.colocated("slow", a, b));
  EXPECT_EQ(t.isolated_row(c, {"slow", "fast"}, {}, "job"), (std::vector<double>{0.0, 1.0}));
}

TEST(ThroughputTable, KeysAsGavelWritesThem) {
  const JobTypeKey k = parse_job_type_key("('ResNet-50 (batch size 64)', 4)", {}, "k");
  EXPECT_EQ(k.job_type, "ResNet-50 (batch size 64)");
  EXPECT_EQ(k.scale_factor, 4);
  EXPECT_EQ(format_job_type_key(k), "('ResNet-50 (batch size 64)', 4)");
  // Python's repr switches to double quotes when the name holds a single quote.
  EXPECT_EQ(parse_job_type_key("(\"it's\", 1)", {}, "k").job_type, "it's");
  EXPECT_EQ(format_job_type_key({"it's", 1}), "(\"it's\", 1)");
  for (const char* bad : {"A, 1", "('A', 0)", "('A', x)", "('A' 1)", "(A, 1)", "('', 1)",
                          "('A\", 1)", "('A', 1.5)"}) {
    EXPECT_THROW((void)parse_job_type_key(bad, {}, "k"), InputError) << bad;
  }
}

// Columns counted by hand: in {"v100": {"('A', 1)": {"null": -1}}} the -1 is the 32nd character.
TEST(ThroughputTable, BadInputNamesItsPlace) {
  EXPECT_EQ(error_of("{\"v100\": {\"('A', 1)\": {\"null\": -1}}}"),
            "t.json:1:32: v100[('A', 1)][null]: expected a throughput in steps/s, a number in [0, "
            "1e12], not '-1'");
  EXPECT_EQ(error_of("{\"v100\": {\"('A', 1)\": {\"('B', 1)\": [1, 2]}}}"),
            "t.json:1:23: v100[('A', 1)][null]: missing the job's throughput alone (\"null\")");
  EXPECT_NE(error_of("{\"v100\": {\"A\": {\"null\": 1}}}")
                .find("t.json:1:11: v100[A]: expected a "
                      "job key"),
            std::string::npos)
      << error_of("{\"v100\": {\"A\": {\"null\": 1}}}");
  EXPECT_NE(error_of("{\"v100\": {\"('A', 1)\": {\"null\": 1, \"('B', 1)\": [1]}}}")
                .find("t.json:1:47: v100[('A', 1)][('B', 1)]: expected [this job's steps/s"),
            std::string::npos)
      << error_of("{\"v100\": {\"('A', 1)\": {\"null\": 1, \"('B', 1)\": [1]}}}");
  EXPECT_NE(error_of("{\"v100\": {\"('A', 1)\": {\"null\": 1e400}}}").find("not '1e400'"),
            std::string::npos);
  EXPECT_NE(error_of("{\"v100\": {\"('A', 1)\": {\"null\": null}}}").find("[null]"),
            std::string::npos);
  EXPECT_NE(error_of("").find("t.json"), std::string::npos);
  EXPECT_NE(error_of("{}").find("expected a mapping of GPU types"), std::string::npos);
  EXPECT_NE(error_of("[1]").find("expected a mapping of GPU types"), std::string::npos);
  EXPECT_NE(error_of("{\"v100\": 3}").find("t.json:1:10: v100: expected a mapping of job keys"),
            std::string::npos)
      << error_of("{\"v100\": 3}");
  EXPECT_NE(error_of("{\"v100\": {\"('A', 1)\": {\"null\": 1}, \"('A', 1)\": {\"null\": 2}}}"),
            "");  // a repeated key is refused, never silently one of the two
  EXPECT_NE(error_of("{\"v100\": {").find("t.json:1"), std::string::npos)
      << error_of("{\"v100\": {");
}

TEST(ThroughputTable, MissingOrUselessJobTypesAreErrors) {
  const ThroughputTable t = read_throughput_table(kSmall);
  const SourceLocation at{.file = "trace.txt", .line = 3, .column = 1};
  try {
    (void)t.isolated_row({"D", 1}, {"fast", "slow"}, at, "job_type");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("trace.txt:3:1: job_type: job type ('D', 1) has no "
                                         "throughput on GPU type 'fast'"),
              std::string::npos)
        << e.what();
  }
  try {
    (void)t.isolated_row({"C", 2}, {"slow"}, at, "job_type");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("zero throughput on every GPU type"), std::string::npos);
  }
}

// Values checked against Gavel's scheduler/simulation_throughputs.json (stanford-futuredata/gavel
// @c4fa400) as Python's json module reads it.
TEST(ThroughputTable, ReadsGavelsTable) {
  const std::string path = data_folder() + "/gavel/simulation_throughputs.json";
  TIDESIM_REQUIRE_FILE(path);
  const ThroughputTable t = read_throughput_table(path);
  EXPECT_EQ(t.gpu_types(),
            (std::vector<std::string>{"k80", "k80_unconsolidated", "p100", "p100_unconsolidated",
                                      "v100", "v100_unconsolidated"}));
  for (const char* gpu : {"k80", "p100", "v100"}) {
    EXPECT_EQ(t.keys(gpu).size(), 83U) << gpu;
  }
  EXPECT_EQ(t.keys("k80_unconsolidated").size(), 77U);
  const JobTypeKey r50{"ResNet-50 (batch size 64)", 1};
  EXPECT_DOUBLE_EQ(*t.isolated("v100", r50), 4.394774823323071);
  EXPECT_DOUBLE_EQ(*t.isolated("p100", r50), 2.6194694075770055);
  EXPECT_DOUBLE_EQ(*t.isolated("k80", r50), 0.6190282202246573);
  EXPECT_DOUBLE_EQ(*t.isolated("k80", JobTypeKey{"ResNet-50 (batch size 128)", 2}), 0.0);
  const auto pair =
      t.colocated("k80", {"ResNet-18 (batch size 16)", 1}, {"ResNet-18 (batch size 64)", 1});
  ASSERT_TRUE(pair);
  EXPECT_DOUBLE_EQ(pair->self, 2.7148227082360448);
  EXPECT_DOUBLE_EQ(pair->other, 3.107320793967465);
}

// Shockwave's scheduler/tacc_throughputs.json (uw-mad-dash/shockwave @8a44f4a): the same layout.
TEST(ThroughputTable, ReadsShockwavesTable) {
  const std::string path = data_folder() + "/shockwave/tacc_throughputs.json";
  TIDESIM_REQUIRE_FILE(path);
  const ThroughputTable t = read_throughput_table(path);
  EXPECT_EQ(t.keys("v100").size(), 83U);
  EXPECT_DOUBLE_EQ(*t.isolated("v100", {"ResNet-50 (batch size 64)", 1}), 3.10803185);
  EXPECT_DOUBLE_EQ(*t.isolated("k80", {"ResNet-18 (batch size 16)", 1}), 4.907044539018749);
}

}  // namespace
}  // namespace tidesim::workloads
