// The HTML report: self-contained, well-formed (xmllint; skipped without it, failed under CI=true),
// with every chart.
#include <gtest/gtest.h>

#include <cmath>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/common/require.hpp"
#include "tests/tools/sample_result.hpp"
#include "tidesim/sim/metrics/catalog.hpp"
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

TEST(Report, SelfContainedWithEveryChart) {
  const std::string html = render_report_html(test::sample_result());
  // No script and no network: every image is a data: URI.
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org"));  // none outside SVG base64
  EXPECT_EQ(html.find("https://"), std::string::npos);
  // A bar chart per headline metric the result has (the sample has all 11), then 2 policies x
  // (utilisation + memory heatmaps) + std-dev + LSCS + wait CDF + JCT CDF + timeline + 2 x NVLink
  // index = 11 charts.
  const RunResult sample = test::sample_result();
  std::size_t headline = 0;
  for (const auto name : metrics::headline_metric_names()) {
    headline += sample.runs.front().metrics.contains(std::string(name)) ? 1 : 0;
    // Its chart's title is the metric's label (the SVG is base64 inside the page).
    EXPECT_NE(html.find(" alt=\"" + xml_escape(std::string(metrics::find_metric(name)->label)) +
                        " per policy\""),
              std::string::npos)
        << name;
  }
  EXPECT_EQ(headline, 11u);
  EXPECT_EQ(count(html, "<img "), headline + 11u);
  EXPECT_EQ(count(html, "src=\"data:image/svg+xml;base64,"), headline + 11u);
  EXPECT_EQ(count(html, " per policy\"/>"), headline);
  EXPECT_NE(html.find("<h2>Headline metrics</h2>"), std::string::npos);
  // Every metric says which way is better.
  EXPECT_NE(html.find("<th>metric</th><th>better</th>"), std::string::npos);
  EXPECT_NE(html.find("<td>lower ↓</td>"), std::string::npos);
  EXPECT_NE(html.find("mean task wait"), std::string::npos);
  EXPECT_NE(html.find("fnv1a64:"), std::string::npos);
  // The table's marks (as the terminal's): the published column, a share's change in points,
  // and the verdict in the terminal's words (load-aware waits 50 s less on every seed:
  // significantly better).
  const std::string table = html.substr(0, html.find("<img "));
  EXPECT_NE(table.find("<th>published (seed doc §3.4)</th>"), std::string::npos);
  EXPECT_NE(table.find("<th>verdict</th>"), std::string::npos);
  EXPECT_NE(table.find(" pp"), std::string::npos);
  EXPECT_NE(table.find("<td>best: load-aware</td>"), std::string::npos);
  // Not a sweep's result: no sweep charts.
  EXPECT_EQ(html.find("<h2>Sweep</h2>"), std::string::npos);
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
  // HTML parser: no message at all (xmllint exits 0 even on HTML errors, so check the output).
  EXPECT_EQ(
      std::system(
          ("xmllint --html --noout " + dir + "/report.html > " + dir + "/html.log 2>&1").c_str()),
      0);
  EXPECT_EQ(read_file(dir + "/html.log"), "");
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
