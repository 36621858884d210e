// The comparison table in its three forms.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "tests/tools/sample_result.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/tools/lib/table.hpp"

namespace tidesim::app {
namespace {

const ComparisonRow& row_of(const ComparisonTable& t, const std::string& metric) {
  for (const auto& r : t.rows) {
    if (r.metric == metric) {
      return r;
    }
  }
  throw std::runtime_error("no row " + metric);
}

TEST(Table, SeedMetricsFirstWithStatistics) {
  const auto table = build_comparison(test::sample_result());
  ASSERT_GE(table.rows.size(), 4u);
  EXPECT_EQ(table.rows[0].metric, "gpu_util_stddev");
  EXPECT_EQ(table.rows[1].metric, "mean_wait_s");
  EXPECT_EQ(table.rows[2].metric, "oom_kills");
  EXPECT_EQ(table.rows[3].metric, "nvlink_contention_rate");
  EXPECT_EQ(table.seeds, 3u);
  // Mean wait, default-k8s: 111.5, 121.5, 131.5 -> mean 121.5, sd 10,
  // CI half-width t(2) 10 / sqrt(3) = 4.302652730 x 5.7735027 = 24.8414, where t(2) at 0.975 is
  // (2p - 1) / sqrt(2p(1 - p)) = 0.95 / sqrt(0.04875) exactly.
  const auto& wait = row_of(table, "mean_wait_s");
  EXPECT_DOUBLE_EQ(wait.per_policy[0]->mean, 121.5);
  EXPECT_NEAR(*wait.per_policy[0]->ci95_half,
              0.95 / std::sqrt(2 * 0.975 * 0.025) * 10.0 / std::sqrt(3.0), 1e-9);
  // load-aware is 50 s less on every seed: paired difference -50 exactly, relative -50 / 121.5.
  EXPECT_DOUBLE_EQ(wait.changes[0]->mean, -50.0);
  EXPECT_NEAR(*wait.changes[0]->relative, -50.0 / 121.5, 1e-12);
  EXPECT_DOUBLE_EQ(wait.reference.at("default-k8s"), 423.0);
}

// Per-queue metrics ("<metric>/<queue>") get rows after the catalogue's, labelled with their queue:
// quota utilisation of team-a 0.5 on every default-k8s seed and 0.75 on every load-aware seed, so
// the paired difference is +0.25 exactly.
TEST(Table, PerQueueMetricsHaveRowsNamingTheirQueue) {
  auto result = test::sample_result();
  for (auto& run : result.runs) {
    run.metrics["quota_utilisation/team-a"] = run.policy == "default-k8s" ? 0.5 : 0.75;
  }
  const auto table = build_comparison(result);
  const auto& row = row_of(table, "quota_utilisation/team-a");
  EXPECT_EQ(label_of(row), "quota utilisation (team-a)");
  EXPECT_DOUBLE_EQ(row.per_policy[0]->mean, 0.5);
  EXPECT_DOUBLE_EQ(row.changes[0]->mean, 0.25);
  EXPECT_EQ(table.rows.back().metric, "quota_utilisation/team-a");
  EXPECT_NE(render_comparison(table, OutputFormat::kTable).find("quota utilisation (team-a)"),
            std::string::npos);
}

TEST(Table, TerminalText) {
  const auto text =
      render_comparison(build_comparison(test::sample_result()), OutputFormat::kTable);
  // Header, rule, then rows; the numbers worked out in SeedMetricsFirstWithStatistics.
  EXPECT_NE(text.find("default-k8s"), std::string::npos);
  EXPECT_NE(text.find("122 s ± 24.8"), std::string::npos) << text;
  EXPECT_NE(text.find("-41.2%"), std::string::npos) << text;
  EXPECT_NE(text.find("423 s / 189 s (-55.3%)"), std::string::npos) << text;
  // A share's published change is in percentage points: 12.7% - 38.2% = -25.5 pp.
  EXPECT_NE(text.find("38.2% / 12.7% (-25.5 pp)"), std::string::npos) << text;
  EXPECT_NE(text.find("published (seed doc §3.4)"), std::string::npos) << text;
  EXPECT_NE(text.find("3 seeds"), std::string::npos);
}

TEST(Table, CsvAndJson) {
  const auto table = build_comparison(test::sample_result());
  const auto csv = render_comparison(table, OutputFormat::kCsv);
  // One header line and one line per metric and policy.
  const auto lines = std::count(csv.begin(), csv.end(), '\n');
  EXPECT_EQ(static_cast<std::size_t>(lines), 1 + table.rows.size() * 2);
  EXPECT_NE(csv.find("mean_wait_s,s,lower,default-k8s,3,121.5,10,"), std::string::npos) << csv;
  const auto doc = nlohmann::json::parse(render_comparison(table, OutputFormat::kJson));
  EXPECT_EQ(doc["policies"][1], "load-aware");
  EXPECT_EQ(doc["metrics"][1]["name"], "mean_wait_s");
  EXPECT_DOUBLE_EQ(doc["metrics"][1]["changes"][0]["mean_difference"], -50.0);
}

TEST(Table, FormatsAndOptions) {
  EXPECT_EQ(parse_output_format("csv"), OutputFormat::kCsv);
  EXPECT_THROW(parse_output_format("xml"), InputError);
  TableOptions options;
  options.metrics = {"oom_kills"};
  options.no_reference = true;
  const auto table = build_comparison(test::sample_result(), options);
  ASSERT_EQ(table.rows.size(), 1u);
  EXPECT_TRUE(table.reference_label.empty());
  EXPECT_EQ(format_metric_value(metrics::find_metric("gpu_util_stddev"), 0.382), "38.2%");
  EXPECT_EQ(format_metric_value(metrics::find_metric("oom_kills"), 7.0), "7");
  EXPECT_EQ(format_metric_value(metrics::find_metric("mean_wait_s"), 423.0), "423 s");
  // A value that rounds to zero has no sign.
  EXPECT_EQ(format_metric_value(metrics::find_metric("gpu_frag_gpus"), -0.0001), "0.00");
}

TEST(Table, HeadlineRowsWithDirectionsAndDisagreements) {
  TableOptions options;
  options.headline = true;
  const auto table = build_comparison(test::sample_result(), options);
  // Only headline rows, in their order, the seed's four first.
  ASSERT_GE(table.rows.size(), 4u);
  EXPECT_LE(table.rows.size(), metrics::headline_metric_names().size());
  EXPECT_EQ(table.rows[0].metric, "gpu_util_stddev");
  EXPECT_EQ(table.rows[3].metric, "nvlink_contention_rate");
  for (const auto& row : table.rows) {
    const auto names = metrics::headline_metric_names();
    EXPECT_NE(std::find(names.begin(), names.end(), row.metric), names.end()) << row.metric;
  }
  const auto text = render_comparison(table, OutputFormat::kTable);
  EXPECT_NE(text.find("better"), std::string::npos) << text;
  const auto wait_line = text.substr(text.find("mean task wait"));
  EXPECT_NE(wait_line.substr(0, wait_line.find('\n')).find(" lower "), std::string::npos) << text;
  // In the sample every change has the seed's sign (wait, spread and contention all fall).
  EXPECT_EQ(text.find("≠"), std::string::npos) << text;
  // A reference whose wait rises (189 -> 423: +123.8%) disagrees with the measured fall.
  Reference flipped = seed_reference();
  flipped.values["mean_wait_s"] = {{"default-k8s", 189.0}, {"load-aware", 423.0}};
  options.reference = flipped;
  const auto marked =
      render_comparison(build_comparison(test::sample_result(), options), OutputFormat::kTable);
  EXPECT_NE(marked.find("189 s / 423 s (+123.8%) ≠"), std::string::npos) << marked;
  EXPECT_NE(marked.find("docs/seed-benchmark.md"), std::string::npos) << marked;
}

// A result built by hand: policies a and b over seeds 1..3 (or only a), with the values given.
RunResult hand_result(bool two_policies) {
  RunResult r;
  r.metadata.policies = {"a"};
  if (two_policies) {
    r.metadata.policies.push_back("b");
  }
  for (const auto& policy : r.metadata.policies) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      SeedRun run;
      run.policy = policy;
      run.seed = seed;
      const double k = static_cast<double>(seed - 1);
      // Shares: a 30%, 32%, 34% and b 10%, 12%, 14%: b lower by 20 pp on every seed.
      run.metrics["gpu_util_stddev"] = (policy == "a" ? 0.30 : 0.10) + 0.02 * k;
      // Waits equal under both policies: a tie.
      run.metrics["mean_wait_s"] = 100.0 + 10.0 * k;
      // OOM kills: a 299 on every seed, b none.
      run.metrics["oom_kills"] = policy == "a" ? 299.0 : 0.0;
      // Jobs submitted: neutral, no winner.
      run.metrics["jobs_submitted"] = 4.0;
      r.runs.push_back(run);
    }
  }
  return r;
}

std::string line_of(const std::string& text, const std::string& start) {
  const auto at = text.find(start);
  return at == std::string::npos ? "" : text.substr(at, text.find('\n', at) - at);
}

TEST(Table, WinnerSharesInPointsAndPublishedMarks) {
  TableOptions options;
  options.metrics = {"gpu_util_stddev", "mean_wait_s", "oom_kills", "jobs_submitted"};
  options.reference = seed_reference("a", "b");
  const auto table = build_comparison(hand_result(true), options);
  // b is lower on every seed by the same amount: best, significantly (a zero-width paired CI).
  ASSERT_TRUE(table.rows[0].best);
  EXPECT_EQ(*table.rows[0].best, 1u);
  EXPECT_TRUE(table.rows[0].best_significant);
  EXPECT_FALSE(table.rows[1].best);  // equal means: a tie
  EXPECT_FALSE(table.rows[3].best);  // neutral
  const auto text = render_comparison(table, OutputFormat::kTable);
  EXPECT_NE(text.find("published (seed doc §3.4)"), std::string::npos) << text;
  EXPECT_NE(text.find("verdict"), std::string::npos) << text;
  const auto spread = line_of(text, "GPU util std-dev");
  // 32.0% -> 12.0%: the change and the difference in percentage points, not -62.5%.
  EXPECT_NE(spread.find("-20.0 pp ± 0.0 *"), std::string::npos) << text;
  EXPECT_NE(spread.find("  -20.0 pp  "), std::string::npos) << text;
  EXPECT_EQ(spread.find("-62.5%"), std::string::npos) << text;
  EXPECT_NE(spread.find("38.2% / 12.7% (-25.5 pp)"), std::string::npos) << text;
  EXPECT_TRUE(spread.ends_with("best: b")) << spread;
  // Neither way nor order is off for the spread (32% vs 38.2%, 12% vs 12.7%).
  EXPECT_EQ(spread.find("≠"), std::string::npos) << text;
  EXPECT_TRUE(line_of(text, "mean task wait").ends_with("tie")) << text;
  // 299 OOM kills against 7 published: the same way (down) but 42 times the published figure.
  const auto oom = line_of(text, "OOM kills");
  EXPECT_NE(oom.find("7 / 0 (-100.0%) ≠"), std::string::npos) << text;
  EXPECT_NE(text.find("≠: a measured mean is 10 times its published value"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("runs the other way"), std::string::npos) << text;
  const auto submitted = line_of(text, "jobs submitted");
  EXPECT_TRUE(submitted.ends_with(" -")) << text;
  const auto doc = nlohmann::json::parse(render_comparison(table, OutputFormat::kJson));
  EXPECT_EQ(doc["metrics"][0]["best"]["policy"], "b");
  EXPECT_EQ(doc["metrics"][0]["best"]["significant"], true);
  EXPECT_TRUE(doc["metrics"][1]["best"].is_null());
  EXPECT_EQ(doc["metrics"][0]["verdict"], "best: b");
  EXPECT_EQ(doc["metrics"][1]["verdict"], "tie");
}

TEST(Table, OneSeedNamesTheWinnerWithoutSignificance) {
  RunResult r = hand_result(true);
  std::erase_if(r.runs, [](const SeedRun& run) { return run.seed != 1; });
  TableOptions options;
  options.metrics = {"gpu_util_stddev"};
  const auto table = build_comparison(r, options);
  ASSERT_TRUE(table.rows[0].best);
  EXPECT_FALSE(table.rows[0].best_significant);
  const auto text = render_comparison(table, OutputFormat::kTable);
  const auto spread = line_of(text, "GPU util std-dev");
  EXPECT_NE(spread.find("  -20.0 pp  "), std::string::npos) << text;
  EXPECT_TRUE(spread.ends_with(" best: b")) << text;
  EXPECT_NE(text.find("one seed: nothing is tested"), std::string::npos) << text;
}

// Three policies: two share the best mean and the third is clearly worse, which is no tie; a best
// mean whose lead is within the noise is "no significant difference".
TEST(Table, VerdictsSayWhatTheyMean) {
  RunResult r;
  r.metadata.policies = {"a", "b", "c"};
  for (const auto& policy : r.metadata.policies) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      SeedRun run;
      run.policy = policy;
      run.seed = seed;
      const double k = static_cast<double>(seed);
      // Waits: a and b 100 s on every seed, c 200 s.
      run.metrics["mean_wait_s"] = policy == "c" ? 200.0 : 100.0;
      // JCT: a 10 s ahead on average but noisy (a 95, 100, 105 + (0, 30, -30); b and c 100 +- 1).
      const double noise[] = {0.0, 30.0, -30.0};
      run.metrics["jct_mean_s"] = policy == "a" ? 85.0 + 5.0 * k + noise[seed - 1]
                                                : 100.0 + (policy == "b" ? k - 2.0 : 2.0 - k);
      // OOM kills: c 5 on every seed, a and b 0 and 1 alternately: c significantly worst.
      run.metrics["oom_kills"] =
          policy == "c" ? 5.0 : static_cast<double>((seed + (policy == "a")) % 2);
      r.runs.push_back(run);
    }
  }
  TableOptions options;
  options.metrics = {"mean_wait_s", "jct_mean_s", "oom_kills"};
  const auto table = build_comparison(r, options);
  EXPECT_EQ(mark_text(table, table.rows[0]), "best: a, b (tied); worst: c");
  EXPECT_EQ(mark_text(table, table.rows[1]), "no significant difference");
  EXPECT_EQ(mark_text(table, table.rows[2]), "worst: c");
  const auto text = render_comparison(table, OutputFormat::kTable);
  EXPECT_TRUE(line_of(text, "mean task wait").ends_with("best: a, b (tied); worst: c")) << text;
  EXPECT_NE(text.find("significantly best or worst"), std::string::npos) << text;
}

// The rows follow the study's headline set when the result records one: only those in the
// headline table, those first in the full one.
TEST(Table, RowsFollowTheStudysHeadlineSet) {
  RunResult r = hand_result(true);
  TableOptions headline;
  headline.headline = true;
  // No set recorded: the catalogue's headline rows the result has.
  auto table = build_comparison(r, headline);
  ASSERT_EQ(table.rows.size(), 3u);
  EXPECT_EQ(table.rows[0].metric, "gpu_util_stddev");
  r.metadata.headline_metrics = {"oom_kills", "mean_wait_s"};
  table = build_comparison(r, headline);
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_EQ(table.rows[0].metric, "oom_kills");
  EXPECT_EQ(table.rows[1].metric, "mean_wait_s");
  table = build_comparison(r);
  ASSERT_EQ(table.rows.size(), 4u);
  EXPECT_EQ(table.rows[0].metric, "oom_kills");
  EXPECT_EQ(table.rows[1].metric, "mean_wait_s");
  EXPECT_EQ(table.rows[2].metric, "gpu_util_stddev");
}

TEST(Table, OnePolicyFooterNamesOnlyItsColumns) {
  TableOptions options;
  options.metrics = {"gpu_util_stddev", "mean_wait_s"};
  const auto text =
      render_comparison(build_comparison(hand_result(false), options), OutputFormat::kTable);
  EXPECT_NE(text.find("3 seeds: mean ± 95% CI half-width (Student t).\n"), std::string::npos)
      << text;
  for (const char* absent : {"change", "difference", "verdict", "*"}) {
    EXPECT_EQ(text.find(absent), std::string::npos) << absent << "\n" << text;
  }
}

TEST(Table, SingleSeedHasNoIntervals) {
  RunResult r = test::sample_result();
  std::erase_if(r.runs, [](const SeedRun& run) { return run.seed != 1; });
  const auto text = render_comparison(build_comparison(r), OutputFormat::kTable);
  EXPECT_EQ(text.find("±"), std::string::npos) << text;
  EXPECT_NE(text.find("1 seed"), std::string::npos);
}

}  // namespace
}  // namespace tidesim::app
