#include "tests/common/require.hpp"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace {

using tidesim::test::Requirement;
using tidesim::test::requirement;

TEST(Requirement, RunsWhenPresentWhateverCiSays) {
  EXPECT_EQ(requirement(nullptr, true), Requirement::run);
  EXPECT_EQ(requirement("true", true), Requirement::run);
  EXPECT_EQ(requirement("false", true), Requirement::run);
  EXPECT_EQ(requirement("", true), Requirement::run);
}

TEST(Requirement, SkipsWhenAbsentOutsideCi) {
  EXPECT_EQ(requirement(nullptr, false), Requirement::skip);
  EXPECT_EQ(requirement("", false), Requirement::skip);
  EXPECT_EQ(requirement("false", false), Requirement::skip);
  EXPECT_EQ(requirement("0", false), Requirement::skip);
}

TEST(Requirement, FailsWhenAbsentUnderCi) {
  EXPECT_EQ(requirement("true", false), Requirement::fail);
}

TEST(Requirement, OnlyTheExactValueTrueIsCi) {
  EXPECT_EQ(requirement("TRUE", false), Requirement::skip);
  EXPECT_EQ(requirement("1", false), Requirement::skip);
  EXPECT_EQ(requirement("true ", false), Requirement::skip);
}

TEST(Requirement, IsAConstantExpression) {
  static_assert(requirement("true", false) == Requirement::fail);
  static_assert(requirement(nullptr, false) == Requirement::skip);
}

/// Sets CI for one test and restores the value the process had.
class RequireMacro : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* ci = std::getenv("CI")) {
      saved_ = ci;
    }
  }
  void TearDown() override {
    if (saved_) {
      setenv("CI", saved_->c_str(), 1);
    } else {
      unsetenv("CI");
    }
  }

  /// The results TIDESIM_REQUIRE(present, "the reason") records, caught before they reach the
  /// current test.
  static std::vector<::testing::TestPartResult> outcome_of(bool present) {
    return outcome_of_call([present] { require(present); });
  }

  /// The results TIDESIM_REQUIRE_TOOL(tool, "the-package") records.
  static std::vector<::testing::TestPartResult> tool_outcome_of(const char* tool) {
    return outcome_of_call([tool] { require_tool(tool); });
  }

 private:
  template <typename F>
  static std::vector<::testing::TestPartResult> outcome_of_call(F call) {
    ::testing::TestPartResultArray results;
    {
      const ::testing::ScopedFakeTestPartResultReporter reporter(
          ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
      call();
    }
    std::vector<::testing::TestPartResult> out;
    for (int i = 0; i < results.size(); ++i) {
      out.push_back(results.GetTestPartResult(i));
    }
    return out;
  }

  static void require(bool present) { TIDESIM_REQUIRE(present, "the reason"); }
  static void require_tool(const char* tool) { TIDESIM_REQUIRE_TOOL(tool, "the-package"); }

  std::optional<std::string> saved_;
};

TEST_F(RequireMacro, SkipsWithTheReasonOutsideCi) {
  unsetenv("CI");
  const auto results = outcome_of(false);
  ASSERT_EQ(results.size(), 1U);
  EXPECT_TRUE(results[0].skipped());
  EXPECT_STREQ(results[0].message(), "the reason");
}

TEST_F(RequireMacro, FailsWithTheReasonUnderCi) {
  setenv("CI", "true", 1);
  const auto results = outcome_of(false);
  ASSERT_EQ(results.size(), 1U);
  EXPECT_TRUE(results[0].fatally_failed());
  const std::string message = results[0].message();
  EXPECT_NE(message.find("the reason"), std::string::npos) << message;
  EXPECT_NE(message.find("CI=true"), std::string::npos) << message;
}

TEST_F(RequireMacro, RecordsNothingWhenPresent) {
  setenv("CI", "true", 1);
  EXPECT_TRUE(outcome_of(true).empty());
  unsetenv("CI");
  EXPECT_TRUE(outcome_of(true).empty());
}

TEST_F(RequireMacro, MissingToolSkipsOutsideCiAndFailsUnderCi) {
  constexpr const char* kMissing = "tidesim-test-no-such-command";
  unsetenv("CI");
  auto results = tool_outcome_of(kMissing);
  ASSERT_EQ(results.size(), 1U);
  EXPECT_TRUE(results[0].skipped());
  EXPECT_STREQ(results[0].message(),
               "tidesim-test-no-such-command not installed (Debian package the-package)");
  setenv("CI", "true", 1);
  results = tool_outcome_of(kMissing);
  ASSERT_EQ(results.size(), 1U);
  EXPECT_TRUE(results[0].fatally_failed());
  const std::string message = results[0].message();
  EXPECT_NE(message.find("tidesim-test-no-such-command not installed"), std::string::npos)
      << message;
  EXPECT_NE(message.find("CI=true"), std::string::npos) << message;
}

TEST_F(RequireMacro, PresentToolRecordsNothing) {
  // `sh` is on PATH wherever the tests run (std::system needs it).
  setenv("CI", "true", 1);
  EXPECT_TRUE(tool_outcome_of("sh").empty());
}

}  // namespace
