// The data folder (sim/input/data_folder.hpp, docs/data.md): a scenario path that begins with
// $TIDESIM_DATA is read from the folder the environment variable TIDESIM_DATA names, or from
// ../shared/data beside the source tree when it is unset; every other path as before.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <unistd.h>

#include "tidesim/sim/input/data_folder.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/sim/scenario/scenario.hpp"

namespace tidesim {
namespace {

namespace fs = std::filesystem;

// Sets TIDESIM_DATA (or unsets it) for one test and puts the previous value back.
class DataVariable {
 public:
  explicit DataVariable(const std::optional<std::string>& value) {
    if (const char* old = std::getenv("TIDESIM_DATA")) {
      old_ = old;
    }
    if (value) {
      ::setenv("TIDESIM_DATA", value->c_str(), 1);
    } else {
      ::unsetenv("TIDESIM_DATA");
    }
  }
  ~DataVariable() {
    if (old_) {
      ::setenv("TIDESIM_DATA", old_->c_str(), 1);
    } else {
      ::unsetenv("TIDESIM_DATA");
    }
  }
  DataVariable(const DataVariable&) = delete;
  DataVariable& operator=(const DataVariable&) = delete;

 private:
  std::optional<std::string> old_;
};

const std::string kDefault =
    (fs::path(TIDESIM_SOURCE_DIR) / ".." / "shared" / "data").lexically_normal().string();

TEST(ScenarioDataFolder, DefaultsToSharedDataBesideTheRepository) {
  {
    const DataVariable unset(std::nullopt);
    EXPECT_EQ(data_folder(), kDefault);
    EXPECT_EQ(input_path("scenarios", "$TIDESIM_DATA/traces/a.csv"), kDefault + "/traces/a.csv");
  }
  const DataVariable empty("");
  EXPECT_EQ(data_folder(), kDefault);
}

TEST(ScenarioDataFolder, TheVariableNamesTheFolder) {
  const DataVariable set("/data/tidesim/");
  EXPECT_EQ(data_folder(), "/data/tidesim/");
  EXPECT_EQ(input_path("scenarios", "$TIDESIM_DATA/traces/a.csv"), "/data/tidesim/traces/a.csv");
  EXPECT_EQ(input_path("scenarios", "$TIDESIM_DATA/pollux"), "/data/tidesim/pollux");
  EXPECT_EQ(input_path("scenarios", "$TIDESIM_DATA"), "/data/tidesim/");
  // Any other path as before: relative to the scenario's folder, absolute as given.
  EXPECT_EQ(input_path("scenarios", "../tests/a.csv"), "tests/a.csv");
  EXPECT_EQ(input_path("scenarios", "$TIDESIM_DATASET/a.csv"), "scenarios/$TIDESIM_DATASET/a.csv");
  EXPECT_EQ(input_path("scenarios", "/abs/a.csv"), "/abs/a.csv");
  EXPECT_EQ(input_path("", "a.csv"), "a.csv");
}

// A scenario outside the data folder reads its node list and trace from it: the same cluster and
// workload as the fixture's own scenario beside them (tests/tools/data/openb/scenario.yaml).
TEST(ScenarioDataFolder, AScenarioReadsItsTracesFromTheDataFolder) {
  const std::string data = std::string(TIDESIM_SOURCE_DIR) + "/tests/tools/data/openb";
  const DataVariable set(data);
  const auto file =
      fs::temp_directory_path() / ("tidesim-data-folder-" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(file) << "name: openb-tiny\n"
                         "cluster:\n"
                         "  nodes_from:\n"
                         "    file: $TIDESIM_DATA/nodes.csv\n"
                         "    format: openb\n"
                         "    sharing: {mode: fractional}\n"
                         "workload:\n"
                         "  trace:\n"
                         "    file: $TIDESIM_DATA/pods.csv\n"
                         "    format: openb\n"
                         "    model: resnet50\n"
                         "    batch_size: 8\n"
                         "    checkpoint_interval: 0s\n"
                         "policies: [first-fit]\n";
  const Scenario s = load_scenario(file.string());
  fs::remove(file);
  const Scenario beside = load_scenario(data + "/scenario.yaml");
  ASSERT_TRUE(s.cluster.nodes_from);
  EXPECT_EQ(s.cluster.nodes_from->file, data + "/nodes.csv");
  EXPECT_EQ(s.cluster.nodes_from->nodes, beside.cluster.nodes_from->nodes);
  ASSERT_TRUE(s.workload.trace);
  EXPECT_EQ(s.workload.trace->file, data + "/pods.csv");
  EXPECT_EQ(s.workload.trace->file, beside.workload.trace->file);
}

// A missing file says where it looked.
TEST(ScenarioDataFolder, AMissingFileNamesTheDataFolder) {
  const DataVariable set("/no/such/folder");
  const auto file = fs::temp_directory_path() /
                    ("tidesim-data-folder-missing-" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(file) << "cluster:\n"
                         "  nodes_from: {file: $TIDESIM_DATA/nodes.csv, format: openb}\n"
                         "workload: {trace: {file: $TIDESIM_DATA/pods.csv}}\n";
  try {
    load_scenario(file.string());
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("looked at /no/such/folder/nodes.csv"), std::string::npos)
        << e.what();
  }
  fs::remove(file);
}

}  // namespace
}  // namespace tidesim
