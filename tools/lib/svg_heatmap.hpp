#pragma once
/// A heatmap (rows x time) for the HTML report: one row per node, time on x, a share in [0, 1] as
/// colour. Made for thousands of rows: time is averaged into a fixed number of columns and a row's
/// neighbouring cells of one colour are drawn as one rectangle, so its size is bounded by rows x
/// columns whatever the run's length.
#include <optional>
#include <string>
#include <vector>

#include "tidesim/tools/lib/svg_chart.hpp"

namespace tidesim::app {

/// One row: a value that changes at the instants `x` (a change-point series: `value[i]` holds from
/// `x[i]` until `x[i + 1]`, the last until the chart's x_max). Values are shares in [0, 1].
struct HeatmapRow {
  std::string label{};
  std::vector<double> x{};
  std::vector<double> value{};
  /// Where the row's data ends (its run ended before the axis does): the last value holds until
  /// here, and the columns that start at or after it are drawn as "run ended" (grey), not as 0.
  /// Absent: the last value holds until x_max.
  std::optional<double> x_end{};
};

/// Layout of a heatmap.
struct HeatmapOptions {
  ChartOptions chart{};
  /// The time axis: [0, x_max] (in the unit of the rows' x).
  double x_max = 1.0;
  /// Columns the time axis is averaged into.
  int columns = 240;
  /// Colour levels (the scale's steps).
  int levels = 10;
  /// The value of the top of the scale (values are divided by it; 1 for shares).
  double value_max = 1.0;
  /// Height of the rows' area, pixels; each row gets its share (at most 12 px).
  int max_rows_height = 600;
  /// What the colour stands for, printed beside the colour scale.
  std::string scale_label = "colour: value";
};

/// The level of a share v in [0, 1] out of `levels`: floor(v x levels) (to within 1e-9), with 1
/// in the top level; any v above 0 is at least level 1, so a node in use never looks idle.
int heatmap_level(double v, int levels);

/// The time-weighted mean of `row` over each of `columns` equal columns of [0, x_max] (0 before
/// the row's first instant). A row with an x_end is averaged over the part of each column before
/// it; a column that starts at or after it has no mean (std::nullopt).
std::vector<std::optional<double>> column_means(const HeatmapRow& row, double x_max, int columns);

/// The top of a colour scale for `rows` (every chart of one quantity gets the same): their largest
/// value rounded up to a multiple of 10%, between 10% and 100%, so light loads stay visible.
double heatmap_top(const std::vector<const std::vector<HeatmapRow>*>& charts);

/// The colour of level `level` of `levels` (white to dark blue).
std::string heatmap_color(int level, int levels);

/// The heatmap SVG: rows top to bottom in the order given (labelled when there are at most 40),
/// the x axis with ticks, and below it the colour scale: one box per level with the levels'
/// bounds labelled (0, then the lower bound of levels 2 and up, then value_max), its
/// scale_label, and a grey "run ended" box when a row ends before x_max.
std::string heatmap_svg(const std::vector<HeatmapRow>& rows, const HeatmapOptions& options);

}  // namespace tidesim::app
