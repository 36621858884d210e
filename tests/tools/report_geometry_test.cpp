// The report's chart geometry, with positions derived by hand: error bars centred on their bars,
// heatmap cells (time-weighted column means, levels, run-length merged rectangles), a heatmap of
// thousands of rows in a bounded height, and a shared x range.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tidesim/tools/lib/svg_chart.hpp"
#include "tidesim/tools/lib/svg_heatmap.hpp"

namespace tidesim::app {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ChartGeometry, ErrorBarsAreCentredOnTheirBars) {
  // Plot area x from 70 to 760 - 170 = 590: two slots of 260 px. Bar 0 is centred at
  // 70 + 130 = 200 and 0.6 x 260 = 156 px wide (x = 122); its error bar is at x = 200 with caps
  // from 200 - 26 to 200 + 26. Bar 1 (centre 460) has no error bar.
  const std::string svg =
      bar_chart_svg({"a", "b"}, {0.5, 0.25}, {0.1, std::nullopt}, ChartOptions{.width = 760});
  EXPECT_TRUE(contains(svg, "<rect x=\"122.0\" ")) << svg;
  EXPECT_TRUE(contains(svg, "<rect x=\"382.0\" ")) << svg;
  EXPECT_TRUE(contains(svg, "<line x1=\"200.0\" ")) << svg;
  EXPECT_TRUE(contains(svg, "<line x1=\"174.0\" ")) << svg;
  EXPECT_TRUE(contains(svg, "x2=\"226.0\"")) << svg;
  EXPECT_FALSE(contains(svg, "<line x1=\"252.0\" ")) << svg;  // where the bar used to be drawn
  EXPECT_FALSE(contains(svg, "<line x1=\"460.0\" ")) << svg;
}

TEST(ChartGeometry, ColumnMeansAreTimeWeighted) {
  // 0.2 from 0 to 5, then 1.0 to the end (10); 4 columns of 2.5.
  EXPECT_EQ(column_means(HeatmapRow{"n", {0, 5}, {0.2, 1.0}}, 10, 4),
            (std::vector<double>{0.2, 0.2, 1.0, 1.0}));
  // 0.5 from 1 on; 2 columns of 5: the first has 0.5 for 4 of its 5 units.
  EXPECT_EQ(column_means(HeatmapRow{"n", {1}, {0.5}}, 10, 2), (std::vector<double>{0.4, 0.5}));
  EXPECT_EQ(heatmap_level(0.0, 10), 0);
  EXPECT_EQ(heatmap_level(0.05, 10), 1);  // in use: never drawn as idle
  EXPECT_EQ(heatmap_level(0.2, 10), 2);
  EXPECT_EQ(heatmap_level(1.0, 10), 9);
  EXPECT_EQ(heatmap_color(0, 10), "#f7fbff");
  EXPECT_EQ(heatmap_color(9, 10), "#08306b");
}

TEST(ChartGeometry, HeatmapCellsMergeAlongARow) {
  // Rows area x from 110 to 760 - 90 = 670: 4 columns of 140 px; 2 rows of 12 px from y = 34.
  HeatmapOptions o;
  o.chart.width = 760;
  o.x_max = 10;
  o.columns = 4;
  const std::string svg =
      heatmap_svg({HeatmapRow{"n1", {0, 5}, {0.2, 1.0}}, HeatmapRow{"n2", {0}, {0.0}}}, o);
  // Row n1: two cells of level 2 merged into one 280 px rectangle, then two of level 9.
  EXPECT_TRUE(contains(svg,
                       "<rect x=\"110.00\" y=\"34.00\" width=\"280.00\" height=\"12.00\" "
                       "fill=\"" +
                           heatmap_color(2, 10) + "\"/>"))
      << svg;
  EXPECT_TRUE(contains(svg,
                       "<rect x=\"390.00\" y=\"34.00\" width=\"280.00\" height=\"12.00\" "
                       "fill=\"#08306b\"/>"))
      << svg;
  // Row n2 is all 0: the background only, no cell at y = 46.
  EXPECT_FALSE(contains(svg, "y=\"46.00\" width")) << svg;
  EXPECT_TRUE(contains(svg, ">n1</text>"));
  // Height: 34 above, 2 x 12 rows, 46 below.
  EXPECT_TRUE(contains(svg, "height=\"104\""));
}

TEST(ChartGeometry, ThousandsOfRowsFitABoundedHeight) {
  std::vector<HeatmapRow> rows(1523, HeatmapRow{"n", {0}, {0.5}});
  HeatmapOptions o;
  o.x_max = 100;
  const std::string svg = heatmap_svg(rows, o);
  // 600 px of rows (0.39 px each) + 34 + 46, one rectangle per row (all one level), no labels.
  EXPECT_TRUE(contains(svg, "height=\"680\""));
  EXPECT_TRUE(contains(svg, "1523 nodes"));
  std::size_t cells = 0;
  for (auto pos = svg.find("fill=\"" + heatmap_color(5, 10)); pos != std::string::npos;
       pos = svg.find("fill=\"" + heatmap_color(5, 10), pos + 1)) {
    ++cells;
  }
  EXPECT_EQ(cells, 1523u + 1u);  // + the scale's box of level 5
}

TEST(ChartGeometry, ChartsShareAGivenTimeAxis) {
  // Data up to 5 on an axis to 10: the last tick is 10, at the right end of the plot (590).
  const std::string svg = line_chart_svg({ChartSeries{"a", {0, 5}, {1, 2}}},
                                         ChartOptions{.width = 760, .x_min = 0.0, .x_max = 10.0});
  EXPECT_TRUE(contains(svg, "<text x=\"590.0\" y=\"252\" text-anchor=\"middle\">10</text>")) << svg;
}

// A line's points with their 95% CI (the sweep report): on a 0..4 axis over 200 px (y from 234
// at 0 up to 34 at 4: 50 px per unit) and x 0..10 over 70..590, the point (0, 1) is a dot at
// (70, 184) with a bar from y = 0.5 (209) to 1.5 (159) and 8 px caps; (10, 2) has no interval.
TEST(ChartGeometry, LinePointsCarryTheirErrorBars) {
  const std::string svg =
      line_chart_svg({ChartSeries{"a", {0, 10}, {1, 2}, {0.5, std::nullopt}}},
                     ChartOptions{.width = 760, .height = 280, .y_min = 0.0, .y_max = 4.0});
  EXPECT_TRUE(contains(svg, "<circle cx=\"70.0\" cy=\"184.0\" r=\"3\"")) << svg;
  EXPECT_TRUE(contains(svg, "<circle cx=\"590.0\" cy=\"134.0\" r=\"3\"")) << svg;
  EXPECT_TRUE(contains(svg, "d=\"M70.0 209.0V159.0M66.0 209.0H74.0M66.0 159.0H74.0\"")) << svg;
  EXPECT_FALSE(contains(svg, "d=\"M590.0")) << svg;
  // Without intervals a line has no dots (the time charts).
  EXPECT_FALSE(
      contains(line_chart_svg({ChartSeries{"a", {0, 10}, {1, 2}}}, ChartOptions{}), "<circle"));
}

}  // namespace
}  // namespace tidesim::app
