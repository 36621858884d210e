// The HTML report: self-contained, well-formed (xmllint; skipped without it, failed under CI=true),
// with every chart that has something to draw, the headline charts first and the table last.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/common/require.hpp"
#include "tests/tools/sample_result.hpp"
#include "tidesim/sim/metrics/catalog.hpp"
#include "tidesim/tools/lib/report_headline.hpp"
#include "tidesim/tools/lib/report_html.hpp"
#include "tidesim/tools/lib/svg_chart.hpp"

namespace tidesim::app {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) {
    ++n;
  }
  return n;
}

// Whether some run of `result` has a non-zero value of `metric`: its headline chart is drawn.
bool drawn(const RunResult& result, const std::string& metric) {
  return std::any_of(result.runs.begin(), result.runs.end(), [&](const SeedRun& run) {
    const auto it = run.metrics.find(metric);
    return it != run.metrics.end() && it->second != 0.0;
  });
}

TEST(Report, SelfContainedWithEveryChart) {
  const std::string html = render_report_html(test::sample_result());
  // No script and no network: every image is a data: URI.
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org"));  // none outside SVG base64
  EXPECT_EQ(html.find("https://"), std::string::npos);
  // A bar chart per headline metric some run has with a value other than 0 (the sample has all
  // 11; the busy-window std-dev and "jobs never bound" are 0 in every run, so they are named in
  // the line of charts not drawn).
  const RunResult sample = test::sample_result();
  std::size_t headline = 0;
  std::string skipped;
  for (const auto name : metrics::headline_metric_names()) {
    ASSERT_TRUE(sample.runs.front().metrics.contains(std::string(name))) << name;
    const std::string label = std::string(metrics::find_metric(name)->label);
    const bool shown = drawn(sample, std::string(name));
    headline += shown ? 1 : 0;
    skipped += shown ? "" : (skipped.empty() ? "" : ", ") + label;
    // Its chart's title is the metric's label (the SVG is base64 inside the page).
    EXPECT_EQ(html.find(" alt=\"" + xml_escape(label) + " per policy\"") != std::string::npos,
              shown)
        << name;
  }
  EXPECT_EQ(headline, 9u);
  EXPECT_EQ(skipped, "GPU util std-dev (busy), jobs never bound");
  EXPECT_NE(html.find("<p class=\"not-drawn\">Not drawn, every value zero or absent: " + skipped +
                      ".</p>"),
            std::string::npos);
  // Then the JCT per job class (the sample's jobs have none: one group) but not the slowdown
  // (no job's run time alone is known); then 2 policies x (utilisation + memory heatmaps) +
  // std-dev + LSCS + wait CDF + JCT CDF + timeline + 2 x NVLink index = 11 charts.
  EXPECT_NE(html.find(" alt=\"Mean job completion time per job class\""), std::string::npos);
  EXPECT_EQ(html.find(" alt=\"Mean slowdown"), std::string::npos);
  EXPECT_NE(html.find("Not drawn, every value zero or absent: slowdown per class"),
            std::string::npos);
  EXPECT_EQ(count(html, "<img "), headline + 1 + 11u);
  EXPECT_EQ(count(html, "src=\"data:image/svg+xml;base64,"), headline + 1 + 11u);
  EXPECT_EQ(count(html, " per policy\"/>"), headline);
  // The headline charts come first, with their values and verdicts in a short table; the table
  // of every metric last, folded, after every chart.
  const auto head = html.find("<h2 id=\"headline\">Headline metrics</h2>");
  const auto details = html.find("<details id=\"all-metrics-table\">");
  ASSERT_NE(head, std::string::npos);
  ASSERT_NE(details, std::string::npos);
  EXPECT_LT(head, html.find("<img "));
  EXPECT_LT(html.rfind("<img "), details);
  EXPECT_LT(html.find("<summary>"), html.find("<table>", details));
  EXPECT_EQ(count(html, "<details"), 1u);
  EXPECT_EQ(html.find("<details open"), std::string::npos);
  const std::string headline_part = html.substr(head, html.find("<h2", head + 1) - head);
  EXPECT_NE(headline_part.find("<td>best: load-aware</td>"), std::string::npos);
  // Every metric says which way is better.
  const std::string table = html.substr(details);
  EXPECT_NE(table.find("<th>metric</th><th>better</th>"), std::string::npos);
  EXPECT_NE(table.find("<td>lower ↓</td>"), std::string::npos);
  EXPECT_NE(table.find("mean task wait"), std::string::npos);
  EXPECT_NE(html.find("fnv1a64:"), std::string::npos);
  // The table's marks (as the terminal's): the published column, a share's change in points,
  // and the verdict in the terminal's words (load-aware waits 50 s less on every seed:
  // significantly better).
  EXPECT_NE(table.find("<th>published (seed doc §3.4)</th>"), std::string::npos);
  EXPECT_NE(table.find("<th>verdict</th>"), std::string::npos);
  EXPECT_NE(table.find(" pp"), std::string::npos);
  EXPECT_NE(table.find("<td>best: load-aware</td>"), std::string::npos);
  // Not a sweep's result: no sweep charts.
  EXPECT_EQ(html.find("<h2 id=\"sweep\">Sweep</h2>"), std::string::npos);
}

// Times in the unit a reader expects by the size of the largest mean (s up to 10 min, then min,
// then h from 1 h), shares in percent, other units as they are.
TEST(Report, ValueScales) {
  using metrics::Unit;
  EXPECT_EQ(value_scale(Unit::kSeconds, 599.0).axis, "seconds");
  EXPECT_EQ(value_scale(Unit::kSeconds, 600.0).axis, "minutes");
  EXPECT_EQ(value_scale(Unit::kSeconds, 3600.0).axis, "hours");
  EXPECT_EQ(scaled_text(value_scale(Unit::kSeconds, 9000.0), Unit::kSeconds, 9000.0), "2.50 h");
  EXPECT_EQ(scaled_text(value_scale(Unit::kSeconds, 9000.0), Unit::kSeconds, 1800.0), "0.50 h");
  EXPECT_EQ(scaled_text(value_scale(Unit::kSeconds, 900.0), Unit::kSeconds, 900.0), "15.0 min");
  EXPECT_EQ(scaled_text(value_scale(Unit::kSeconds, 50.2), Unit::kSeconds, 50.2), "50.2 s");
  EXPECT_EQ(scaled_text(value_scale(Unit::kSeconds, 360000.0), Unit::kSeconds, 360000.0), "100 h");
  EXPECT_TRUE(value_scale(Unit::kRatio, 0.5).percent);
  EXPECT_EQ(scaled_text(value_scale(Unit::kRatio, 0.5), Unit::kRatio, 0.166), "16.6%");
  EXPECT_EQ(value_scale(Unit::kCount, 3.0).axis, "count");
  EXPECT_EQ(scaled_text(value_scale(Unit::kCount, 3.0), Unit::kCount, 302.5), "302");
}

// JCT and slowdown per job class from the per-job records: one group per class, a bar per policy
// at the mean over seeds of each seed's class mean, each seed's as a dot; JCT in hours here.
TEST(Report, JctAndSlowdownPerJobClass) {
  RunResult result = test::sample_result();
  for (auto& run : result.runs) {
    for (std::size_t j = 0; j < run.jobs.size(); ++j) {
      auto& job = run.jobs[j];
      job.job_class = j < 2 ? "gangs" : "singles";
      job.ideal_s = 100.0;
      // Succeeded jobs take hours: submitted at 0, finished at 2 h (+ the job's index in s).
      if (job.finish_s) {
        job.finish_s = 7200.0 + static_cast<double>(j);
      }
    }
  }
  std::vector<ReportFigure> figures;
  ReportOptions options;
  options.figures = &figures;
  const std::string html = render_report_html(result, options);
  const auto chart = [&](const std::string& title) {
    const auto it = std::find_if(figures.begin(), figures.end(),
                                 [&](const ReportFigure& f) { return f.title == title; });
    return it == figures.end() ? std::string() : it->svg;
  };
  const std::string jct = chart("Mean job completion time per job class");
  const std::string slowdown = chart("Mean slowdown (JCT / run time alone) per job class");
  ASSERT_FALSE(jct.empty());
  ASSERT_FALSE(slowdown.empty());
  // The groups, in order of first appearance, and the policies in the legend.
  EXPECT_LT(jct.find(">gangs</text>"), jct.find(">singles</text>"));
  EXPECT_NE(jct.find(">default-k8s</text>"), std::string::npos);
  EXPECT_NE(jct.find(">hours</text>"), std::string::npos);
  // gangs (jobs 0 and 1, succeeded in every run) took (7200 + 0.5) s on average: 2.00 h, printed
  // without the unit, which the axis names. A bar per policy and class (2 x 2) and a dot per seed
  // (3) on each.
  EXPECT_NE(jct.find("<title>load-aware, gangs: 2.00</title>"), std::string::npos) << jct;
  EXPECT_EQ(count(jct, "class=\"bar\""), 4u);
  EXPECT_EQ(count(jct, "class=\"point\""), 12u);
  // Slowdown: 7200.5 / 100 = 72.0 for the gangs.
  EXPECT_NE(slowdown.find("<title>load-aware, gangs: 72.0</title>"), std::string::npos) << slowdown;
  // Both come after the headline charts and before the time series.
  EXPECT_LT(html.find("<h2 id=\"headline\">"), html.find("<h2 id=\"classes\">"));
  EXPECT_LT(html.find("<h2 id=\"classes\">"), html.find("<h2>Per-node GPU utilisation"));
}

TEST(Report, Base64) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64_encode(std::string("\x00\xff\xfe", 3)),
            "AP/+");  // "+" and "/", the last two of the alphabet
}

TEST(Report, Base64OfALongInput) {
  // Past the 3 MiB chunks base64_encode hands to OpenSSL: "fff" is "ZmZm", so 3 MiB + 4 bytes of
  // 'f' are 2^20 + 1 "ZmZm" and then "Zg==", with no padding where the chunks meet.
  const std::size_t triples = (std::size_t{1} << 20) + 1;
  std::string expected;
  for (std::size_t i = 0; i < triples; ++i) {
    expected += "ZmZm";
  }
  expected += "Zg==";
  EXPECT_EQ(base64_encode(std::string(3 * triples + 1, 'f')), expected);
}

TEST(Report, NiceTicks) {
  EXPECT_EQ(nice_ticks(0, 1, 5), (std::vector<double>{0, 0.2, 0.4, 0.6, 0.8, 1.0}));
  EXPECT_EQ(nice_ticks(0, 600, 5), (std::vector<double>{0, 200, 400, 600}));
}

TEST(Report, NiceTicksOnExtremeRangesEnd) {
  // 5e-324 (the least subnormal) used to make 10^exponent zero and the tick loop endless.
  EXPECT_EQ(nice_ticks(0, 5e-324), (std::vector<double>{0, 5e-324}));
  EXPECT_EQ(nice_ticks(-1e308, 1e308), (std::vector<double>{-1e308, 1e308}));
  EXPECT_EQ(nice_ticks(0, INFINITY), (std::vector<double>{0, INFINITY}));
  EXPECT_EQ(nice_ticks(1e-290, 3e-290, 2).size(), 3U);  // 1, 2 and 3 x 10^-290, rounded
  EXPECT_EQ(nice_ticks(0, 1e300, 2), (std::vector<double>{0, 5e299, 1e300}));
}

TEST(Report, WellFormedForXmllint) {
  TIDESIM_REQUIRE_TOOL("xmllint", "libxml2-utils");
  const std::string dir = test::temp_dir("report");
  std::ofstream(dir + "/report.html") << render_report_html(test::sample_result());
  // HTML parser: no message (xmllint exits 0 even on HTML errors, so check the output) but the
  // two its HTML 4 parser gives for HTML5's <details> and <summary>, which fold the table of every
  // metric: each a message line, the source line and a caret line.
  EXPECT_EQ(
      std::system(
          ("xmllint --html --noout " + dir + "/report.html > " + dir + "/html.log 2>&1").c_str()),
      0);
  std::istringstream log(read_file(dir + "/html.log"));
  std::string line;
  std::string other;
  std::size_t html5 = 0;
  while (std::getline(log, line)) {
    if (line.ends_with("HTML parser error : Tag details invalid") ||
        line.ends_with("HTML parser error : Tag summary invalid")) {
      ++html5;
      std::getline(log, line);  // the source line
      std::getline(log, line);  // the caret
      continue;
    }
    other += line + "\n";
  }
  EXPECT_EQ(other, "");
  EXPECT_EQ(html5, 2u);
  // XML parser: the page is also well-formed XML.
  EXPECT_EQ(
      std::system(("xmllint --noout " + dir + "/report.html > " + dir + "/xml.log 2>&1").c_str()),
      0)
      << read_file(dir + "/xml.log");
  // And so are the charts themselves.
  std::ofstream(dir + "/chart.svg") << line_chart_svg(
      {ChartSeries{"a <&> b", {0, 1, 2}, {0.1, 0.5, 0.3}}},
      ChartOptions{.title = "t", .x_label = "x (s)", .y_label = "y", .y_percent = true});
  std::ofstream(dir + "/timeline.svg") << timeline_svg(
      {"p1", "p2"}, {TimelineMarker{.x = 1, .row = 0, .category = "oom", .tooltip = "x"}}, 10,
      ChartOptions{.title = "t"});
  EXPECT_EQ(std::system(("xmllint --noout " + dir + "/chart.svg " + dir + "/timeline.svg > " + dir +
                         "/svg.log 2>&1")
                            .c_str()),
            0)
      << read_file(dir + "/svg.log");
}

}  // namespace
}  // namespace tidesim::app
