#include "tidesim/tools/lib/svg_heatmap.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

namespace tidesim::app {
namespace {

constexpr int kLeft = 110;  // room for row labels
constexpr int kRight = 90;  // room for the colour scale
constexpr int kTop = 34;
constexpr int kBottom = 46;

}  // namespace

int heatmap_level(double v, int levels) {
  if (!(v > 0)) {
    return 0;
  }
  // The tolerance keeps a column mean that rounding left a hair below a level's edge in it.
  return std::clamp(static_cast<int>(std::floor(v * levels + 1e-9)), 1, levels - 1);
}

std::vector<double> column_means(const HeatmapRow& row, double x_max, int columns) {
  std::vector<double> out(static_cast<std::size_t>(columns), 0.0);
  if (!(x_max > 0) || columns <= 0) {
    return out;
  }
  const double width = x_max / columns;
  for (std::size_t i = 0; i < row.x.size() && i < row.value.size(); ++i) {
    const double from = std::clamp(row.x[i], 0.0, x_max);
    const double to = i + 1 < row.x.size() ? std::clamp(row.x[i + 1], 0.0, x_max) : x_max;
    if (!(to > from)) {
      continue;
    }
    // Spread value[i] over the columns [from, to) touches, by overlap.
    auto c = static_cast<int>(std::floor(from / width));
    for (; c < columns && c * width < to; ++c) {
      const double lo = std::max(from, c * width);
      const double hi = std::min(to, (c + 1) * width);
      if (hi > lo) {
        out[static_cast<std::size_t>(c)] += row.value[i] * (hi - lo) / width;
      }
    }
  }
  return out;
}

std::string heatmap_color(int level, int levels) {
  // From #f7fbff (0) to #08306b (the top level), linearly in RGB.
  const double t = levels > 1 ? static_cast<double>(level) / (levels - 1) : 1.0;
  const auto mix = [t](int a, int b) { return static_cast<int>(std::lround(a + (b - a) * t)); };
  return fmt::format("#{:02x}{:02x}{:02x}", mix(0xf7, 0x08), mix(0xfb, 0x30), mix(0xff, 0x6b));
}

std::string heatmap_svg(const std::vector<HeatmapRow>& rows, const HeatmapOptions& o) {
  const ChartOptions& c = o.chart;
  const double row_h = rows.empty() ? 12.0
                                    : std::min(12.0, static_cast<double>(o.max_rows_height) /
                                                         static_cast<double>(rows.size()));
  const double rows_h = row_h * static_cast<double>(rows.size());
  const int height = kTop + static_cast<int>(std::ceil(rows_h - 1e-6)) + kBottom;
  const int px0 = kLeft;
  const int px1 = c.width - kRight;
  const double col_w = static_cast<double>(px1 - px0) / o.columns;
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
      "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"20\" font-size=\"14\" font-weight=\"bold\">{3}</text>\n"
      "<rect x=\"{2}\" y=\"{4}\" width=\"{5}\" height=\"{6:.2f}\" fill=\"{7}\"/>\n",
      c.width, height, px0, xml_escape(c.title), kTop, px1 - px0, rows_h,
      heatmap_color(0, o.levels));
  // Cells: per row, runs of equal level drawn as one rectangle (level 0 is the background).
  for (std::size_t r = 0; r < rows.size(); ++r) {
    auto means = column_means(rows[r], o.x_max, o.columns);
    for (double& m : means) {
      m /= o.value_max > 0 ? o.value_max : 1.0;
    }
    const double y = kTop + row_h * static_cast<double>(r);
    int col = 0;
    while (col < o.columns) {
      const int level = heatmap_level(means[static_cast<std::size_t>(col)], o.levels);
      int end = col + 1;
      while (end < o.columns &&
             heatmap_level(means[static_cast<std::size_t>(end)], o.levels) == level) {
        ++end;
      }
      if (level > 0) {
        s += fmt::format(
            "<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" "
            "fill=\"{}\"/>\n",
            px0 + col * col_w, y, (end - col) * col_w, row_h, heatmap_color(level, o.levels));
      }
      col = end;
    }
    if (rows.size() <= 40) {
      s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", px0 - 6,
                       y + row_h / 2 + 4, xml_escape(rows[r].label));
    }
  }
  if (rows.size() > 40) {
    s += fmt::format(
        "<text x=\"16\" y=\"{0:.0f}\" text-anchor=\"middle\" transform=\"rotate(-90 16 "
        "{0:.0f})\">{1} nodes</text>\n",
        kTop + rows_h / 2, rows.size());
  }
  // The time axis.
  const double py1 = kTop + rows_h;
  const auto ticks = nice_ticks(0.0, o.x_max, 8);
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 1.0;
  const int decimals = step >= 1.0 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  for (const double t : ticks) {
    const double px = px0 + t / o.x_max * (px1 - px0);
    s += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#888\"/>\n"
        "<text x=\"{0:.1f}\" y=\"{3:.1f}\" text-anchor=\"middle\">{4:.{5}f}</text>\n",
        px, py1, py1 + 5, py1 + 18, t, std::max(0, decimals));
  }
  s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
                   (px0 + px1) / 2, py1 + 36, xml_escape(c.x_label));
  // The colour scale: one box per level, 0% at the bottom.
  const double box = std::min(16.0, std::max(4.0, rows_h / o.levels));
  for (int l = 0; l < o.levels; ++l) {
    const double y = kTop + box * (o.levels - 1 - l);
    s += fmt::format(
        "<rect x=\"{}\" y=\"{:.1f}\" width=\"14\" height=\"{:.1f}\" fill=\"{}\" "
        "stroke=\"#ccc\"/>\n",
        px1 + 12, y, box, heatmap_color(l, o.levels));
  }
  s += fmt::format(
      "<text x=\"{0}\" y=\"{1:.1f}\">{3:.0f}%</text>\n<text x=\"{0}\" y=\"{2:.1f}\">0%</text>\n",
      px1 + 30, kTop + 10.0, kTop + box * o.levels, o.value_max * 100.0);
  return s + "</svg>\n";
}

}  // namespace tidesim::app
