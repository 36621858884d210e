#pragma once
/// Small, dependency-free SVG charts for the HTML report: line (step) charts, event timelines and
/// bar charts, with labelled axes and "nice" ticks. Output is standalone, well-formed SVG 1.1.
#include <optional>
#include <string>
#include <vector>

namespace tidesim::app {

/// One line of a chart. x and y have the same length.
struct ChartSeries {
  std::string name{};
  std::vector<double> x{};
  std::vector<double> y{};
  /// Optional error bars: per point, the half-width drawn as a vertical bar from y - e to y + e
  /// with caps (absent or empty: none for that point).
  std::vector<std::optional<double>> y_error{};
  /// Where the series ends (a run shorter than the chart's axis): a step series holds its last
  /// value until here and stops with an end mark (a short vertical bar), instead of stopping
  /// silently at its last change or being read as 0 afterwards. Absent: it stops at its last x.
  std::optional<double> x_end{};
};

/// A horizontal reference line (a threshold).
struct ChartRule {
  double y = 0.0;
  std::string label{};
};

/// Layout and axes of a chart.
struct ChartOptions {
  std::string title{};
  std::string x_label{};
  std::string y_label{};
  int width = 760;
  int height = 280;
  std::optional<double> y_min{};
  std::optional<double> y_max{};
  /// The x range (default: the data's); charts that share a time axis give the same.
  std::optional<double> x_min{};
  std::optional<double> x_max{};
  /// Draw y values as percentages (values are shares in [0, 1]).
  bool y_percent = false;
  /// Draw each series as a step function (value holds until the next x).
  bool step = false;
  /// A logarithmic x axis: decades from the power of ten at or below the least positive x to the
  /// one at or above the largest (at most 6 decades, the top ones kept; x_min / x_max, when given,
  /// are its ends), ticks at the powers of ten; x values at or below the left end (0 too) are
  /// drawn at the left end.
  bool x_log = false;
  std::vector<ChartRule> rules{};
};

/// A line chart with a legend, each point marked with a dot and its error bar when it has one.
/// Empty series are skipped; with no data, a chart saying so.
std::string line_chart_svg(const std::vector<ChartSeries>& series, const ChartOptions& options);

/// A point on a timeline row.
struct TimelineMarker {
  double x = 0.0;
  /// Row index into the row labels.
  std::size_t row = 0;
  /// Legend category; markers of one category share a colour and shape.
  std::string category{};
  /// Tooltip text (an SVG <title>).
  std::string tooltip{};
};

/// One row per label, markers placed by x; categories in the legend.
std::string timeline_svg(const std::vector<std::string>& rows,
                         const std::vector<TimelineMarker>& markers, double x_max,
                         const ChartOptions& options);

/// A vertical bar per category with its value printed above; optional error bars (+- half),
/// centred on their bar, with caps. `value_labels` (one per category) are the printed values;
/// empty: the value as a percentage (y_percent) or with 3 significant digits. `points` (one list
/// per category, may be empty): values drawn as hollow dots over the bar, spread across its
/// middle half (each seed's value of a mean). The plot area is a `<rect class="plot">` without
/// ink and every bar a `<rect class="bar">` with its value as a tooltip, every dot a `<circle
/// class="point">`: what the report's browser test measures.
std::string bar_chart_svg(const std::vector<std::string>& categories,
                          const std::vector<double>& values,
                          const std::vector<std::optional<double>>& error_half,
                          const ChartOptions& options,
                          const std::vector<std::string>& value_labels = {},
                          const std::vector<std::vector<double>>& points = {});

/// One colour of a grouped bar chart: its value in each group (absent: no bar there), with an
/// optional error bar (+- half), dots (`points`) and printed value (`labels`) per group.
struct BarSeries {
  std::string name{};
  std::vector<std::optional<double>> values{};
  std::vector<std::optional<double>> error_half{};
  std::vector<std::vector<double>> points{};
  std::vector<std::string> labels{};
};

/// Groups side by side (their names under them, cut with an ellipsis to their slot), in each a
/// bar per series in the series' colour (named in a legend on the right), as bar_chart_svg draws
/// them: error bars, dots, classes. A bar's value is printed above it when it fits the bar's
/// width, else it is only in the bar's tooltip. With no value at all, a chart saying so.
std::string grouped_bar_chart_svg(const std::vector<std::string>& groups,
                                  const std::vector<BarSeries>& series,
                                  const ChartOptions& options);

/// Ticks for an axis from lo to hi: about `target` values at 1, 2 or 5 x 10^k steps (at most
/// 4 x target + 2). Just {lo, hi} when no such step is a normal double (a range as small as
/// 5e-324 or wider than DBL_MAX) or lo / step does not fit a 64-bit integer; {lo} when hi <= lo.
std::vector<double> nice_ticks(double lo, double hi, int target = 5);

/// Escapes text for XML and HTML element content and attribute values: & < > " and ' become
/// &amp; &lt; &gt; &quot; and &#39; (the numeric form, valid in both HTML and XML). Used by the
/// charts, the HTML report and the JUnit XML of `tidesim check`.
std::string xml_escape(const std::string& text);

/// The width of `text` in px at `font_px`, estimated for the widest of the fonts the charts name
/// or fall back to (Debian's DejaVu Sans: about 0.55 to 0.7 em a character): 0.64 em a character,
/// 0.35 em for spaces, i, l and narrow punctuation. Used to make room for labels; the browser
/// test (docs/outputs.md) checks the result in a real browser.
double text_width(const std::string& text, double font_px = 12.0);

/// The i-th colour of the chart palette (cycles).
std::string chart_color(std::size_t i);

}  // namespace tidesim::app
