#pragma once
/// Preconditions of tests that need something outside the test program: the `tidesim` CLI binary,
/// a file of the shared data folder (`../shared/data`), or a command-line tool from a Debian
/// package that tools/deps.sh installs (`promtool`, `xmllint`). On a developer's clone a missing
/// one skips the test with the reason; under CI (`CI=true`, docs/ci.md) it fails the test, because
/// CI builds the CLI, has the shared data beside the repository and installs tools/deps.sh's
/// packages, so a missing one there is a broken pipeline, not an optional extra. Header-only.
///
///   TEST(Trace, ReadsOpenb) {
///     const std::string path = TIDESIM_SHARED_DATA_DIR "/traces/openb_pod_list_default.csv";
///     TIDESIM_REQUIRE_FILE(path);
///     ...
///   }
///
/// The macros return from the enclosing function, so they belong in a TEST body or a fixture's
/// SetUp() (a fatal failure or a skip in SetUp() stops the test before its body runs).
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "tests/common/cli.hpp"

namespace tidesim::test {

/// What a test does about one precondition.
enum class Requirement {
  run,   ///< the precondition holds: the test runs
  skip,  ///< it does not, outside CI: the test is skipped with the reason
  fail,  ///< it does not, under CI: the test fails with the reason
};

/// The decision for a precondition that holds when `present` is true, given the value of the
/// environment variable CI (`ci`, nullptr when unset). Only the exact value "true" (what GitHub
/// Actions, GitLab CI and this project's `.ci/run` set) counts as CI.
constexpr Requirement requirement(const char* ci, bool present) {
  if (present) {
    return Requirement::run;
  }
  return ci != nullptr && std::string_view(ci) == "true" ? Requirement::fail : Requirement::skip;
}

/// requirement() for this process's CI environment variable.
inline Requirement requirement(bool present) {
  return requirement(std::getenv("CI"), present);
}

/// True when `command` is found on PATH (`command -v`).
inline bool have_command(const std::string& command) {
  return std::system(("command -v " + command + " >/dev/null 2>&1").c_str()) == 0;
}

}  // namespace tidesim::test

/// Skips (outside CI) or fails (CI=true) the current test with `reason` (anything that can be
/// streamed into a gtest message) unless `present` is true; returns from the enclosing function
/// when it does not run.
#define TIDESIM_REQUIRE(present, reason)                                                        \
  do {                                                                                          \
    switch (::tidesim::test::requirement(present)) {                                            \
      case ::tidesim::test::Requirement::run:                                                   \
        break;                                                                                  \
      case ::tidesim::test::Requirement::skip:                                                  \
        GTEST_SKIP() << reason;                                                                 \
      case ::tidesim::test::Requirement::fail:                                                  \
        GTEST_FAIL() << reason                                                                  \
                     << " (CI=true: CI must build the CLI, provide ../shared/data and install " \
                        "tools/deps.sh's packages)";                                            \
    }                                                                                           \
  } while (false)

/// Requires the `tidesim` CLI binary (TIDESIM_CLI, defined by tidesim_add_test) to be built.
#define TIDESIM_REQUIRE_CLI() \
  TIDESIM_REQUIRE(::tidesim::test::have_cli(), "tidesim CLI not built: " << TIDESIM_CLI)

/// Requires the file or folder `path` (a std::string, std::filesystem::path or C string) to exist,
/// e.g. a file of ../shared/data.
#define TIDESIM_REQUIRE_FILE(path) \
  TIDESIM_REQUIRE(::std::filesystem::exists(path), "required file absent: " << (path))

/// Requires the command `tool` (a C string) on PATH; `package` names the Debian package that
/// provides it (tools/deps.sh installs it).
#define TIDESIM_REQUIRE_TOOL(tool, package)            \
  TIDESIM_REQUIRE(::tidesim::test::have_command(tool), \
                  (tool) << " not installed (Debian package " << (package) << ")")
