// Output folders written all or nothing (tools/lib/staged_dir.hpp, docs/outputs.md "Writing").
#include "tidesim/tools/lib/staged_dir.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "tests/common/cli.hpp"
#include "tests/common/require.hpp"
#include "tests/tools/sample_result.hpp"

namespace tidesim::app {
namespace {

namespace fs = std::filesystem;
using test::read_file;

// Nothing reaches the folder before the commit; after it, every file has.
TEST(StagedDir, FilesAppearOnlyAtTheCommit) {
  const std::string dir = test::temp_dir("staged_commit") + "/out";
  {
    StagedDir staged(dir);
    staged.write("a.txt", [](std::ostream& out) { out << "alpha"; });
    std::ofstream(staged.path("b.txt")) << "beta";
    EXPECT_FALSE(fs::exists(dir + "/a.txt"));
    EXPECT_FALSE(fs::exists(dir + "/b.txt"));
    staged.commit();
  }
  EXPECT_EQ(read_file(dir + "/a.txt"), "alpha");
  EXPECT_EQ(read_file(dir + "/b.txt"), "beta");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 2);
}

// Without a commit (an error in between) the earlier files stay as they were and the staging
// folder is gone; a file that cannot be replaced (a folder of its name) stops the commit before
// anything moves.
TEST(StagedDir, AFailureLeavesTheEarlierFiles) {
  const std::string dir = test::temp_dir("staged_fail") + "/out";
  fs::create_directories(dir + "/b.txt");  // a folder where a file goes
  std::ofstream(dir + "/a.txt") << "old";
  {
    StagedDir staged(dir);
    staged.write("a.txt", [](std::ostream& out) { out << "new"; });
  }
  EXPECT_EQ(read_file(dir + "/a.txt"), "old");
  {
    StagedDir staged(dir);
    staged.write("a.txt", [](std::ostream& out) { out << "new"; });
    staged.write("b.txt", [](std::ostream& out) { out << "new"; });
    EXPECT_THROW(staged.commit(), std::runtime_error);
  }
  EXPECT_EQ(read_file(dir + "/a.txt"), "old");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 2);
}

// `run --output` into a folder where one output cannot be written changes none of its files.
TEST(StagedDir, RunOutputIsAllOrNothing) {
  TIDESIM_REQUIRE_CLI();
  const std::string dir = test::temp_dir("staged_run") + "/out";
  fs::create_directories(dir + "/cards.csv");
  std::ofstream(dir + "/result.json") << "earlier";
  const auto o = test::run("run tests/tools/data/solo.yaml --output " + dir);
  EXPECT_EQ(o.code, 1) << o.out;
  EXPECT_NE(o.out.find("cards.csv: it is a folder; nothing was written"), std::string::npos)
      << o.out;
  EXPECT_EQ(read_file(dir + "/result.json"), "earlier");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 2);
  fs::remove(dir + "/cards.csv");
  EXPECT_EQ(test::run("run tests/tools/data/solo.yaml --output " + dir).code, 0);
  EXPECT_NE(read_file(dir + "/result.json"), "earlier");
  EXPECT_TRUE(fs::exists(dir + "/cards.csv"));
}

}  // namespace
}  // namespace tidesim::app
