// The report's chart geometry, with positions derived by hand: error bars centred on their bars,
// heatmap cells (time-weighted column means, levels, run-length merged rectangles), a heatmap of
// thousands of rows in a bounded height, and a shared x range.
#include <gtest/gtest.h>

#include <optional>
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
            (std::vector<std::optional<double>>{0.2, 0.2, 1.0, 1.0}));
  // 0.5 from 1 on; 2 columns of 5: the first has 0.5 for 4 of its 5 units.
  EXPECT_EQ(column_means(HeatmapRow{"n", {1}, {0.5}}, 10, 2),
            (std::vector<std::optional<double>>{0.4, 0.5}));
  EXPECT_EQ(heatmap_level(0.0, 10), 0);
  EXPECT_EQ(heatmap_level(0.05, 10), 1);  // in use: never drawn as idle
  EXPECT_EQ(heatmap_level(0.2, 10), 2);
  EXPECT_EQ(heatmap_level(1.0, 10), 9);
  EXPECT_EQ(heatmap_color(0, 10), "#f7fbff");
  EXPECT_EQ(heatmap_color(9, 10), "#08306b");
}

// A row whose run ended at 6 on an axis to 10 (4 columns of 2.5): the columns before the end are
// averaged over their time, the one the end cuts over its part before the end (1 of its 2.5), and
// the column after it has no mean (drawn grey, not as 0).
TEST(ChartGeometry, ColumnMeansStopWhereTheRowEnds) {
  const auto m = column_means(HeatmapRow{"n", {0, 4}, {0.5, 0.25}, 6.0}, 10, 4);
  ASSERT_EQ(m.size(), 4u);
  ASSERT_TRUE(m[0] && m[1] && m[2]);
  EXPECT_DOUBLE_EQ(*m[0], 0.5);
  EXPECT_DOUBLE_EQ(*m[1], (0.5 * 1.5 + 0.25 * 1.0) / 2.5);  // 0.5 up to 4, then 0.25
  EXPECT_DOUBLE_EQ(*m[2], 0.25);                            // 5 to 6 only
  EXPECT_FALSE(m[3]);
}

// One colour scale per quantity: the top is the largest value of every chart given, rounded up to
// a multiple of 10% (0.61 -> 70%), at least 10%.
TEST(ChartGeometry, HeatmapsOfOneQuantityShareATop) {
  const std::vector<HeatmapRow> a{HeatmapRow{"n1", {0, 1}, {0.1, 0.23}}};
  const std::vector<HeatmapRow> b{HeatmapRow{"n1", {0}, {0.61}}};
  const std::vector<HeatmapRow> idle{HeatmapRow{"n1", {0}, {0.0}}};
  EXPECT_DOUBLE_EQ(heatmap_top({&a}), 0.3);
  EXPECT_DOUBLE_EQ(heatmap_top({&a, &b}), 0.7);
  EXPECT_DOUBLE_EQ(heatmap_top({&idle}), 0.1);
  EXPECT_DOUBLE_EQ(heatmap_top({&b, &a}), heatmap_top({&a, &b}));
}

TEST(ChartGeometry, HeatmapCellsMergeAlongARow) {
  // Rows area x from 110 to 760 - 30 = 730: 4 columns of 155 px; 2 rows of 16 px from y = 34.
  HeatmapOptions o;
  o.chart.width = 760;
  o.x_max = 10;
  o.columns = 4;
  const std::string svg =
      heatmap_svg({HeatmapRow{"n1", {0, 5}, {0.2, 1.0}}, HeatmapRow{"n2", {0}, {0.0}}}, o);
  // Row n1: two cells of level 2 merged into one 310 px rectangle, then two of level 9.
  EXPECT_TRUE(contains(svg,
                       "<rect x=\"110.00\" y=\"34.00\" width=\"310.00\" height=\"16.00\" "
                       "fill=\"" +
                           heatmap_color(2, 10) + "\"/>"))
      << svg;
  EXPECT_TRUE(contains(svg,
                       "<rect x=\"420.00\" y=\"34.00\" width=\"310.00\" height=\"16.00\" "
                       "fill=\"#08306b\"/>"))
      << svg;
  // Row n2 is all 0: the background only, no cell at y = 50.
  EXPECT_FALSE(contains(svg, "y=\"50.00\" width")) << svg;
  // Each row labelled at its middle (34 + 8 + 4 for the text's baseline).
  EXPECT_TRUE(contains(svg, "<text x=\"104\" y=\"46.0\" text-anchor=\"end\">n1</text>")) << svg;
  // Height: 34 above, 2 x 16 rows, 46 for the time axis, 40 for the colour scale.
  EXPECT_TRUE(contains(svg, "height=\"152\""));
  // No row ended early: no grey.
  EXPECT_FALSE(contains(svg, "run ended"));
}

// The colour scale under the time axis (from y = 34 + 32 + 46 = 112): a 40 px box per level from
// x = 110, labelled 0 under the first, then the lower bound of levels 2 to 9 at their left edges
// (level l at 110 + 40 l, l x 3% of a 30% top) and the top at the right end (510); level 1 (above
// 0, below 6%) has no label of its own. A row that ended at 6 of 10 has grey cells after it.
TEST(ChartGeometry, HeatmapScaleLabelsItsSteps) {
  HeatmapOptions o;
  o.chart.width = 760;
  o.x_max = 10;
  o.columns = 4;
  o.value_max = 0.3;
  o.scale_label = "colour: utilisation";
  const std::string svg =
      heatmap_svg({HeatmapRow{"n1", {0}, {0.3}}, HeatmapRow{"n2", {0}, {0.15}, 6.0}}, o);
  EXPECT_TRUE(contains(
      svg, "<rect x=\"110\" y=\"112.0\" width=\"40\" height=\"12\" fill=\"" + heatmap_color(0, 10)))
      << svg;
  EXPECT_TRUE(contains(
      svg, "<rect x=\"470\" y=\"112.0\" width=\"40\" height=\"12\" fill=\"" + heatmap_color(9, 10)))
      << svg;
  EXPECT_TRUE(contains(svg, "<text x=\"130\" y=\"138.0\" text-anchor=\"middle\">0</text>"));
  EXPECT_TRUE(contains(svg, "<text x=\"190\" y=\"138.0\" text-anchor=\"middle\">6%</text>"));
  EXPECT_TRUE(contains(svg, "<text x=\"470\" y=\"138.0\" text-anchor=\"middle\">27%</text>"));
  EXPECT_TRUE(contains(svg, "<text x=\"510\" y=\"138.0\" text-anchor=\"middle\">30%</text>"));
  EXPECT_FALSE(contains(svg, ">3%</text>")) << svg;
  EXPECT_TRUE(contains(svg, ">colour: utilisation</text>"));
  // Row n2 (y = 50): 0.15 of a 0.3 top is level 5 up to its end at 6 (columns 0 and 1, and
  // column 2's part before 6), then grey (column 3, from x = 110 + 3 x 155 = 575).
  EXPECT_TRUE(contains(svg,
                       "<rect x=\"110.00\" y=\"50.00\" width=\"465.00\" height=\"16.00\" "
                       "fill=\"" +
                           heatmap_color(5, 10)))
      << svg;
  EXPECT_TRUE(contains(
      svg, "<rect x=\"575.00\" y=\"50.00\" width=\"155.00\" height=\"16.00\" fill=\"#d9d9d9\""))
      << svg;
  EXPECT_TRUE(contains(svg, ">run ended</text>"));
}

TEST(ChartGeometry, ThousandsOfRowsFitABoundedHeight) {
  std::vector<HeatmapRow> rows(1523, HeatmapRow{"n", {0}, {0.5}});
  HeatmapOptions o;
  o.x_max = 100;
  const std::string svg = heatmap_svg(rows, o);
  // 600 px of rows (0.39 px each) + 34 + 46 + 40, one rectangle per row (all one level), no
  // labels.
  EXPECT_TRUE(contains(svg, "height=\"720\""));
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

// A log x axis (the wait CDF): waits 0, 3 and 250 s span the decades 1 to 1000, three over the
// 520 px from 70 to 590 (173.3 px each), labelled at each power of ten (x = 70 + 173.3 k); the
// wait of 0 is drawn at the left end.
TEST(ChartGeometry, LogAxisHasADecadePerTick) {
  const std::string svg = line_chart_svg(
      {ChartSeries{"a", {0, 3, 250}, {0.2, 0.5, 1.0}}},
      ChartOptions{
          .width = 760, .height = 280, .y_min = 0.0, .y_max = 1.0, .step = true, .x_log = true});
  for (const auto& [x, label] : std::vector<std::pair<std::string, std::string>>{
           {"70.0", "1"}, {"243.3", "10"}, {"416.7", "100"}, {"590.0", "1000"}}) {
    EXPECT_TRUE(contains(
        svg, "<text x=\"" + x + "\" y=\"252\" text-anchor=\"middle\">" + label + "</text>"))
        << label << "\n"
        << svg;
  }
  // 3 s is log10(3) = 0.477 of a decade from 1: x = 70 + 82.7; y from 234 (0) to 34 (100%).
  EXPECT_TRUE(contains(svg, "points=\"70.0,194.0 152.7,194.0 152.7,134.0 ")) << svg;
  EXPECT_FALSE(contains(svg, ">0</text>")) << svg;  // no linear ticks
}

// A step series that ends at 8 on an axis to 10 holds its last value to 8 (x = 70 + 0.8 x 520 =
// 486) and stops there with a 12 px bar; the series that runs to the axis' end has no bar.
TEST(ChartGeometry, ASeriesThatEndsIsDrawnAsEnding) {
  const std::string svg =
      line_chart_svg({ChartSeries{.name = "short", .x = {0, 5}, .y = {1, 2}, .x_end = 8.0},
                      ChartSeries{.name = "long", .x = {0, 5}, .y = {1, 2}, .x_end = 10.0}},
                     ChartOptions{.width = 760,
                                  .height = 280,
                                  .y_min = 0.0,
                                  .y_max = 4.0,
                                  .x_min = 0.0,
                                  .x_max = 10.0,
                                  .step = true});
  // y: 234 - 50 per unit (0..4 over 200 px).
  EXPECT_TRUE(contains(svg, "points=\"70.0,184.0 330.0,184.0 330.0,134.0 486.0,134.0\"")) << svg;
  EXPECT_TRUE(contains(svg, "<path d=\"M486.0 128.0V140.0\"")) << svg;
  EXPECT_TRUE(contains(svg, "points=\"70.0,184.0 330.0,184.0 330.0,134.0 590.0,134.0\"")) << svg;
  EXPECT_FALSE(contains(svg, "<path d=\"M590.0")) << svg;
}

// Bar names go under their bars when each fits its slot (8 px to spare), else into a legend at
// the right (x = 760 - 170 + 14 = 604, 18 px apart from y = 44).
TEST(ChartGeometry, BarNamesThatDoNotFitGoToALegend) {
  const std::vector<std::string> names(6, "a-rather-long-policy-name");
  const std::string svg = bar_chart_svg(names, std::vector<double>(6, 1.0),
                                        std::vector<std::optional<double>>(6, std::nullopt),
                                        ChartOptions{.width = 760}, {"1 s", "2 s", "", "", "", ""});
  EXPECT_TRUE(contains(svg, "<text x=\"622\" y=\"44\">a-rather-long-policy-name</text>")) << svg;
  EXPECT_TRUE(contains(svg, "<text x=\"622\" y=\"134\">a-rather-long-policy-name</text>")) << svg;
  EXPECT_FALSE(contains(svg, "text-anchor=\"middle\">a-rather-long-policy-name")) << svg;
  EXPECT_TRUE(contains(svg, ">1 s</text>")) << svg;  // the printed values given
  // Two short names fit: under their bars (centres 200 and 460, y = 234 + 18).
  const std::string two = bar_chart_svg({"a", "b"}, {1.0, 2.0}, {std::nullopt, std::nullopt},
                                        ChartOptions{.width = 760});
  EXPECT_TRUE(contains(two, "<text x=\"200.0\" y=\"252\" text-anchor=\"middle\">a</text>")) << two;
}

// Timeline rows are labelled at their middles (2 rows over 34..154: 60 px each, so y = 64 + 4 and
// 124 + 4); a label longer than the default margin (130 px) widens it: 30 characters of 0.64 em
// at 12 px are 230.4 px, so the plot starts at 231 + 16 = 247 and the labels end at 241.
TEST(ChartGeometry, TimelineRowsAreLabelled) {
  const std::string label(30, 'x');
  const std::string svg =
      timeline_svg({"p: OOM kills (1)", label},
                   {TimelineMarker{.x = 5, .row = 0, .category = "OOM kills", .tooltip = "t"}}, 10,
                   ChartOptions{.width = 760, .height = 200});
  EXPECT_TRUE(
      contains(svg, "<text x=\"241\" y=\"68.0\" text-anchor=\"end\">p: OOM kills (1)</text>"))
      << svg;
  EXPECT_TRUE(contains(svg, "<text x=\"241\" y=\"128.0\" text-anchor=\"end\">" + label)) << svg;
  // The one category of row 0 sits on the row's line; x = 247 + (590 - 247) / 2 = 418.5.
  EXPECT_TRUE(contains(svg, "<circle cx=\"418.5\" cy=\"64.0\"")) << svg;
}

// A grouped bar chart (width 760, height 280): plot x from 70 to 590 (520 px), two groups of
// 260 px, each with 80% of its slot for 2 series: 104 px per bar slot, the bar 90% of it
// (93.6 px). Group 0 starts at 70 + 26 = 96: series 0 centred at 148 (x = 101.2), series 1 at 200
// (x = 153.2), the group's name under its middle (200, y = 234 + 18). y from 0 to 1.15 x the
// highest value drawn (4, series 1 in group 1): 4.6 over 200 px, so sy(v) = 234 - v x 200 / 4.6.
// Series 0's bar in group 0 (1.0) tops at 190.5; its seeds' dots (0.5, 1.5) are spread over
// 0.45 x 104 = 46.8 px around its centre: x 124.6 and 171.4, y 212.3 and 168.8, and its value
// (printed, "1", fits the bar) above the highest dot at 168.8 - 5 = 163.8.
TEST(ChartGeometry, GroupedBarsWithEachSeedsDot) {
  const std::string svg = grouped_bar_chart_svg(
      {"a", "a-very-long-job-class-name-that-does-not-fit-its-slot-at-all"},
      {BarSeries{.name = "s0", .values = {1.0, 2.0}, .points = {{0.5, 1.5}, {}}},
       BarSeries{.name = "s1", .values = {std::nullopt, 4.0}}},
      ChartOptions{.width = 760});
  EXPECT_TRUE(contains(svg, "<rect class=\"plot\" x=\"70\" y=\"34\" width=\"520\" height=\"200\""))
      << svg;
  EXPECT_TRUE(contains(svg, "<rect x=\"101.2\" y=\"190.5\" width=\"93.6\" height=\"43.5\"")) << svg;
  EXPECT_FALSE(contains(svg, "<rect x=\"153.2\" ")) << svg;  // series 1 has no value in group 0
  EXPECT_TRUE(contains(svg, "<circle cx=\"124.6\" cy=\"212.3\" r=\"3\"")) << svg;
  EXPECT_TRUE(contains(svg, "<circle cx=\"171.4\" cy=\"168.8\" r=\"3\"")) << svg;
  EXPECT_TRUE(contains(svg,
                       "<text x=\"148.0\" y=\"163.8\" text-anchor=\"middle\" "
                       "font-size=\"10\">1</text>"))
      << svg;
  EXPECT_TRUE(contains(svg, "<text x=\"200.0\" y=\"252\" text-anchor=\"middle\">a</text>")) << svg;
  // Group 1 (x from 356) in series 1's colour at 356 + 156 = 512, 4.0 tall: up to y 60.1.
  EXPECT_TRUE(contains(svg, "<rect x=\"465.2\" y=\"60.1\" width=\"93.6\"")) << svg;
  // A name longer than its slot (260 - 6 px) is cut with an ellipsis; the series in a legend.
  EXPECT_TRUE(contains(svg, "…</text>")) << svg;
  EXPECT_FALSE(contains(svg, "at-all</text>")) << svg;
  EXPECT_TRUE(contains(svg, "<text x=\"622\" y=\"44\">s0</text>")) << svg;
  EXPECT_TRUE(contains(svg, "<text x=\"622\" y=\"62\">s1</text>")) << svg;
  EXPECT_EQ(svg.find("class=\"bar\""), svg.find("class=\"bar\"><title>s0, a: 1</title>"));
}

// A bar chart's seeds' dots: two bars (slots of 260 px), dots over the middle 30% of the slot
// (78 px): bar 0 (value 1, dots 0.5 and 1.5) at 200 -/+ 39; y to 1.15 x 1.5 = 1.725.
TEST(ChartGeometry, BarsCarryEachSeedsDot) {
  const std::string svg = bar_chart_svg({"a", "b"}, {1.0, 0.5}, {std::nullopt, std::nullopt},
                                        ChartOptions{.width = 760}, {}, {{0.5, 1.5}, {0.5}});
  // sy(v) = 234 - v x 200 / 1.725: 0.5 -> 176.0, 1.5 -> 60.1.
  EXPECT_TRUE(contains(svg, "<circle cx=\"161.0\" cy=\"176.0\"")) << svg;
  EXPECT_TRUE(contains(svg, "<circle cx=\"239.0\" cy=\"60.1\"")) << svg;
  EXPECT_TRUE(contains(svg, "<circle cx=\"460.0\" cy=\"176.0\"")) << svg;  // one dot: centred
  // The value above the highest dot.
  EXPECT_TRUE(contains(svg, "<text x=\"200.0\" y=\"54.1\" text-anchor=\"middle\">1</text>")) << svg;
}

}  // namespace
}  // namespace tidesim::app
