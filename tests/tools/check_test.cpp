// The CI regression check.
#include <gtest/gtest.h>

#include "tests/tools/sample_result.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/tools/lib/check.hpp"

namespace tidesim::app {
namespace {

const MetricVerdict& verdict(const CheckReport& r, const std::string& policy,
                             const std::string& metric) {
  for (const auto& v : r.verdicts) {
    if (v.policy == policy && v.metric == metric) {
      return v;
    }
  }
  throw std::runtime_error("no verdict " + policy + " " + metric);
}

TEST(Check, PassesOnItsOwnRun) {
  const auto result = test::sample_result();
  const auto report = check_against_baseline(result, result, CheckOptions{});
  EXPECT_FALSE(report.failed()) << format_check_report(report);
  EXPECT_EQ(verdict(report, "load-aware", "mean_wait_s").status, "pass");
  EXPECT_EQ(verdict(report, "load-aware", "jobs_submitted").status, "skipped");
}

TEST(Check, FailsOnADoctoredBaseline) {
  const auto result = test::sample_result();
  RunResult baseline = result;
  // The baseline claims default-k8s waited 20% less on every seed: the result's wait grew by
  // 25% of the baseline with a zero-width paired CI -> regressed beyond the 5% tolerance.
  for (auto& run : baseline.runs) {
    if (run.policy == "default-k8s") {
      run.metrics["mean_wait_s"] *= 0.8;
    }
  }
  const auto report = check_against_baseline(result, baseline, CheckOptions{});
  EXPECT_TRUE(report.failed());
  const auto& v = verdict(report, "default-k8s", "mean_wait_s");
  EXPECT_EQ(v.status, "regressed");
  EXPECT_NEAR(*v.difference, 0.2 * 121.5, 1e-9);
  EXPECT_NE(format_check_report(report).find("REGRESSED default-k8s mean_wait_s"),
            std::string::npos);
  // A 30% tolerance lets it through.
  CheckOptions loose;
  loose.tolerance_pct["mean_wait_s"] = 30.0;
  EXPECT_FALSE(check_against_baseline(result, baseline, loose).failed());
  // The other direction is an improvement, not a failure.
  const auto reverse = check_against_baseline(baseline, result, CheckOptions{});
  EXPECT_FALSE(reverse.failed());
  EXPECT_EQ(verdict(reverse, "default-k8s", "mean_wait_s").status, "improved");
}

TEST(Check, ConfidenceIntervalAbsorbsNoise) {
  const auto result = test::sample_result();
  RunResult baseline = result;
  // Worse by 15 s on seed 1 only: paired differences {15, 0, 0}, mean 5 s. Even with 0%
  // tolerance the 95% CI, t(2) x sd / sqrt(3) = 4.3027 x 8.660 / 1.732 = 21.5 s, absorbs it.
  for (auto& run : baseline.runs) {
    if (run.policy == "default-k8s" && run.seed == 1) {
      run.metrics["mean_wait_s"] -= 15.0;
    }
  }
  CheckOptions strict;
  strict.default_tolerance_pct = 0.0;
  const auto report = check_against_baseline(result, baseline, strict);
  EXPECT_EQ(verdict(report, "default-k8s", "mean_wait_s").status, "pass");
}

TEST(Check, MissingMetricOrPolicyFails) {
  const auto result = test::sample_result();
  RunResult current = result;
  for (auto& run : current.runs) {
    run.metrics.erase("makespan_s");
  }
  const auto report = check_against_baseline(current, result, CheckOptions{});
  EXPECT_TRUE(report.failed());
  RunResult one_policy = result;
  std::erase_if(one_policy.runs, [](const SeedRun& r) { return r.policy == "load-aware"; });
  EXPECT_TRUE(check_against_baseline(one_policy, result, CheckOptions{}).failed());
}

TEST(Check, JunitXml) {
  const auto result = test::sample_result();
  RunResult baseline = result;
  for (auto& run : baseline.runs) {
    run.metrics["oom_kills"] = 0.0;  // the result has 1 OOM kill per default-k8s seed
  }
  const auto report = check_against_baseline(result, baseline, CheckOptions{});
  const auto xml = junit_xml(report);
  EXPECT_NE(xml.find("<testsuite name=\"tidesim check\""), std::string::npos);
  EXPECT_NE(xml.find("failures=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("classname=\"default-k8s\" name=\"oom_kills\""), std::string::npos);
  EXPECT_NE(xml.find("<failure type=\"regressed\""), std::string::npos);
}

// A policy gone from the result is one line, not one per metric; a policy the baseline lacks is
// named, not checked.
TEST(Check, MissingAndExtraPoliciesAreOneLineEach) {
  const auto result = test::sample_result();
  RunResult current = result;
  for (auto& run : current.runs) {
    if (run.policy == "load-aware") {
      run.policy = "tuned";
    }
  }
  current.metadata.policies = {"default-k8s", "tuned"};
  const auto report = check_against_baseline(current, result, CheckOptions{});
  EXPECT_TRUE(report.failed());
  EXPECT_EQ(report.missing_policies, std::vector<std::string>{"load-aware"});
  EXPECT_EQ(report.extra_policies, std::vector<std::string>{"tuned"});
  const std::string text = format_check_report(report);
  std::size_t missing_lines = 0;
  for (std::size_t at = text.find("MISSING"); at != std::string::npos;
       at = text.find("MISSING", at + 1)) {
    ++missing_lines;
  }
  EXPECT_EQ(missing_lines, 1u) << text;
  EXPECT_NE(text.find("MISSING   load-aware: policy missing from the result ("), std::string::npos)
      << text;
  EXPECT_NE(text.find("not in the baseline, not checked: policy tuned"), std::string::npos) << text;
}

// NVLink variance mean (4 decimals, lower is better) from 0 to 1e-9: a worsening beyond a 0%
// tolerance of a zero baseline, but 0.0000 -> 0.0000 as printed, so not a regression.
TEST(Check, AChangeThePrintDoesNotShowIsNoRegression) {
  const auto result = test::sample_result();
  RunResult baseline = result;
  RunResult current = result;
  for (auto& run : baseline.runs) {
    run.metrics["nvlink_variance_mean"] = 0.0;
  }
  for (auto& run : current.runs) {
    run.metrics["nvlink_variance_mean"] = 1e-9;
  }
  const auto report = check_against_baseline(current, baseline, CheckOptions{});
  EXPECT_EQ(verdict(report, "default-k8s", "nvlink_variance_mean").status, "pass");
  EXPECT_EQ(format_check_report(report).find("0.0000 -> 0.0000"), std::string::npos);
  // 0 -> 0.001 shows (0.0000 -> 0.0010): a regression.
  for (auto& run : current.runs) {
    run.metrics["nvlink_variance_mean"] = 0.001;
  }
  EXPECT_EQ(verdict(check_against_baseline(current, baseline, CheckOptions{}), "default-k8s",
                    "nvlink_variance_mean")
                .status,
            "regressed");
}

TEST(Check, ProvenanceDifferencesAreNamed) {
  RunResult baseline = test::sample_result();
  RunResult current = baseline;
  EXPECT_TRUE(provenance_warnings(current, baseline).empty());
  baseline.metadata.provenance = nlohmann::json{
      {"overrides", {"run.until=2h"}},
      {"policies",
       {{{"name", "default-k8s"}, {"scheduler", "default-k8s"}, {"sha256", nullptr}},
        {{"name", "load-aware"}, {"scheduler", "my/la.yaml"}, {"sha256", "sha256:aa"}}}}};
  current.metadata.provenance = baseline.metadata.provenance;
  EXPECT_TRUE(provenance_warnings(current, baseline).empty());
  (*current.metadata.provenance)["overrides"] = {"run.until=3h"};
  (*current.metadata.provenance)["policies"][1]["sha256"] = "sha256:bb";
  current.metadata.seeds = {1, 2};
  const auto warnings = provenance_warnings(current, baseline);
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_EQ(warnings[0], "the seeds differ: 1, 2 in the result, 1, 2, 3 in the baseline");
  EXPECT_EQ(warnings[1],
            "the --set overrides differ: run.until=3h in the result, run.until=2h in the "
            "baseline");
  EXPECT_EQ(warnings[2],
            "policy 'load-aware' is defined otherwise: my/la.yaml (sha256:bb) in the result, "
            "my/la.yaml (sha256:aa) in the baseline");
}

TEST(Check, ToleranceParsing) {
  EXPECT_EQ(parse_tolerance("mean_wait_s=10"), (std::pair<std::string, double>{"mean_wait_s", 10}));
  EXPECT_EQ(parse_tolerance("oom_kills=2.5%").second, 2.5);
  EXPECT_THROW(parse_tolerance("mean_wait_s"), InputError);
  EXPECT_THROW(parse_tolerance("no_such_metric=5"), InputError);
  EXPECT_THROW(parse_tolerance("mean_wait_s=-1"), InputError);
  EXPECT_THROW(parse_tolerance("mean_wait_s=abc"), InputError);
}

}  // namespace
}  // namespace tidesim::app
