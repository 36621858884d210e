// The CI regression check.
#include <gtest/gtest.h>

#include "tests/tools/sample_result.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/tools/lib/check.hpp"
#include "tidesim/tools/lib/multiple_testing.hpp"

#include <cmath>

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

// Every catalogued metric the baseline has, as `check --all-metrics` tests them.
CheckOptions every_metric() {
  CheckOptions o;
  o.all_metrics = true;
  return o;
}

TEST(Check, PassesOnItsOwnRun) {
  const auto result = test::sample_result();
  const auto report = check_against_baseline(result, result, every_metric());
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
  const auto report = check_against_baseline(current, result, every_metric());
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
  const auto report = check_against_baseline(current, baseline, every_metric());
  EXPECT_EQ(verdict(report, "default-k8s", "nvlink_variance_mean").status, "pass");
  EXPECT_EQ(format_check_report(report).find("0.0000 -> 0.0000"), std::string::npos);
  // 0 -> 0.001 shows (0.0000 -> 0.0010): a regression.
  for (auto& run : current.runs) {
    run.metrics["nvlink_variance_mean"] = 0.001;
  }
  EXPECT_EQ(verdict(check_against_baseline(current, baseline, every_metric()), "default-k8s",
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

// Without a list, check tests the result's headline set (the rows its table leads with); a list
// replaces it, and a listed metric the baseline lacks is named, not tested.
TEST(Check, TestsTheHeadlineSetOrTheListGiven) {
  RunResult result = test::sample_result();
  auto report = check_against_baseline(result, result, CheckOptions{});
  for (const auto& v : report.verdicts) {
    EXPECT_NE(v.metric, "jobs_submitted");  // not a headline metric
  }
  EXPECT_EQ(report.metrics.front(), "gpu_util_stddev");
  result.metadata.headline_metrics = {"makespan_s", "mean_wait_s"};
  report = check_against_baseline(result, result, CheckOptions{});
  EXPECT_EQ(report.metrics, (std::vector<std::string>{"makespan_s", "mean_wait_s"}));
  EXPECT_EQ(report.verdicts.size(), 4u);  // two metrics x two policies
  CheckOptions listed;
  listed.metrics = {"oom_kills", "gang_wait_mean_s"};
  report = check_against_baseline(result, result, listed);
  EXPECT_EQ(report.metrics, std::vector<std::string>{"oom_kills"});
  EXPECT_EQ(report.untested, std::vector<std::string>{"gang_wait_mean_s"});
  const std::string text = format_check_report(report);
  EXPECT_NE(text.find("tested: oom_kills\n"), std::string::npos) << text;
  EXPECT_NE(text.find("not in the baseline, not tested: gang_wait_mean_s\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("multiple comparisons: Holm over 2 tests (family-wise error rate 0.05)"),
            std::string::npos)
      << text;
  const std::string xml = junit_xml(report);
  EXPECT_NE(xml.find("<property name=\"metrics\" value=\"oom_kills\"/>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<property name=\"correction\" value=\"Holm\"/>"), std::string::npos);
}

// Adjusted p-values by the definitions of R's p.adjust (stats/R/p.adjust.R), worked by hand for
// p = (0.01, 0.04, 0.03, 0.005): sorted 0.005, 0.01, 0.03, 0.04.
//   Holm: 4 x 0.005 = 0.02, 3 x 0.01 = 0.03, 2 x 0.03 = 0.06, 1 x 0.04 = 0.04 -> running max
//         0.02, 0.03, 0.06, 0.06.
//   BH:   4/1 x 0.005 = 0.02, 4/2 x 0.01 = 0.02, 4/3 x 0.03 = 0.04, 4/4 x 0.04 = 0.04 -> running
//         min from the largest 0.02, 0.02, 0.04, 0.04.
TEST(MultipleTesting, HolmAndBenjaminiHochberg) {
  const std::vector<double> p{0.01, 0.04, 0.03, 0.005};
  const auto holm = adjust_p_values(p, Correction::kHolm);
  const auto bh = adjust_p_values(p, Correction::kBenjaminiHochberg);
  const std::vector<double> holm_expected{0.03, 0.06, 0.06, 0.02};
  const std::vector<double> bh_expected{0.02, 0.04, 0.04, 0.02};
  for (std::size_t i = 0; i < p.size(); ++i) {
    EXPECT_NEAR(holm[i], holm_expected[i], 1e-12) << i;
    EXPECT_NEAR(bh[i], bh_expected[i], 1e-12) << i;
  }
  EXPECT_EQ(adjust_p_values(p, Correction::kNone), p);
  // Capped at 1.
  EXPECT_EQ(adjust_p_values(std::vector<double>{0.6, 0.7}, Correction::kHolm),
            (std::vector<double>{1.0, 1.0}));
  EXPECT_EQ(parse_correction("bh"), Correction::kBenjaminiHochberg);
  EXPECT_THROW(parse_correction("bonferroni"), InputError);
}

// One p-value of 0.01 among many tests is a regression uncorrected, not after Holm's correction.
TEST(Check, TheCorrectionAbsorbsOneChanceResultAmongMany) {
  RunResult baseline = test::sample_result();
  RunResult current = baseline;
  // default-k8s's wait worse on every seed by 30, 40, 50 s: paired differences mean 40, sd 10,
  // t = 40 / (10 / sqrt 3) = 6.93 over 2 df, p = 1 - t / sqrt(t^2 + 2) = 0.0202.
  const double extra[] = {30.0, 40.0, 50.0};
  std::size_t k = 0;
  for (auto& run : current.runs) {
    if (run.policy == "default-k8s") {
      run.metrics["mean_wait_s"] += extra[k++];
    }
  }
  CheckOptions none;
  none.correction = Correction::kNone;
  const auto raw = check_against_baseline(current, baseline, none);
  const auto& v = verdict(raw, "default-k8s", "mean_wait_s");
  EXPECT_NEAR(*v.p_value, 1.0 - 6.9282032 / std::sqrt(48.0 + 2.0), 1e-6);
  EXPECT_EQ(v.status, "regressed");
  const auto holm = check_against_baseline(current, baseline, CheckOptions{});
  EXPECT_GT(holm.tests, 2u);
  EXPECT_EQ(verdict(holm, "default-k8s", "mean_wait_s").status, "pass")
      << format_check_report(holm);
  EXPECT_FALSE(holm.failed());
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
