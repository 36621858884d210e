#include "tidesim/tools/lib/svg_heatmap.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <optional>

namespace tidesim::app {
namespace {

constexpr int kLeft = 110;  // room for row labels
constexpr int kRight = 30;
constexpr int kTop = 34;
constexpr int kBottom = 46;            // the time axis: ticks, their labels and its label
constexpr int kScale = 40;             // the colour scale under it: boxes and their labels
constexpr double kRowMax = 16.0;       // the height of a row, at most
constexpr double kLabelledRow = 15.0;  // a row at least this high gets its label (a line of text)
constexpr int kBox = 40;               // width of a level's box in the colour scale
constexpr const char* kEndedColor = "#d9d9d9";

std::string percent_text(double share, double step) {
  return fmt::format("{:.{}f}%", share * 100.0, step * 100.0 >= 1.0 - 1e-9 ? 0 : 1);
}

// The colour scale from (`left`, `top`): a box per level, left to right from level 0, labelled with
// 0 under the first, the lower bound of level l (l / levels of the top) at the left edge of each
// box from level 2 on (level 1 holds everything above 0 and below level 2), and the top at the
// right end; then the scale's label and, when a row ended early, the grey box of "run ended".
std::string colour_scale(const HeatmapOptions& o, int left, double top, bool ended) {
  std::string s;
  const double step = o.value_max / o.levels;
  const double label_y = top + 12 + 14;
  for (int l = 0; l < o.levels; ++l) {
    const int x = left + kBox * l;
    s += fmt::format(
        "<rect x=\"{}\" y=\"{:.1f}\" width=\"{}\" height=\"12\" fill=\"{}\" "
        "stroke=\"#ccc\"/>\n",
        x, top, kBox, heatmap_color(l, o.levels));
    if (l == 0) {
      s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"middle\">0</text>\n",
                       x + kBox / 2, label_y);
    } else if (l >= 2) {
      s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", x, label_y,
                       percent_text(step * l, step));
    }
  }
  const int right = left + kBox * o.levels;
  s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", right, label_y,
                   percent_text(o.value_max, step));
  s += fmt::format("<text x=\"{}\" y=\"{:.1f}\">{}</text>\n", right + 24, top + 11,
                   xml_escape(o.scale_label));
  if (ended) {
    s += fmt::format(
        "<rect x=\"{}\" y=\"{:.1f}\" width=\"14\" height=\"12\" fill=\"{}\"/>\n<text x=\"{}\" "
        "y=\"{:.1f}\">run ended</text>\n",
        right + 24, label_y - 11, kEndedColor, right + 44, label_y);
  }
  return s;
}

}  // namespace

int heatmap_level(double v, int levels) {
  if (!(v > 0)) {
    return 0;
  }
  // The tolerance keeps a column mean that rounding left a hair below a level's edge in it.
  return std::clamp(static_cast<int>(std::floor(v * levels + 1e-9)), 1, levels - 1);
}

std::vector<std::optional<double>> column_means(const HeatmapRow& row, double x_max, int columns) {
  std::vector<std::optional<double>> out(static_cast<std::size_t>(std::max(0, columns)), 0.0);
  if (!(x_max > 0) || columns <= 0) {
    return out;
  }
  const double width = x_max / columns;
  const double end = std::clamp(row.x_end.value_or(x_max), 0.0, x_max);
  for (std::size_t i = 0; i < row.x.size() && i < row.value.size(); ++i) {
    const double from = std::clamp(row.x[i], 0.0, end);
    const double to = i + 1 < row.x.size() ? std::clamp(row.x[i + 1], 0.0, end) : end;
    if (!(to > from)) {
      continue;
    }
    // Spread value[i] over the columns [from, to) touches, by overlap.
    auto c = static_cast<int>(std::floor(from / width));
    for (; c < columns && c * width < to; ++c) {
      const double lo = std::max(from, c * width);
      const double hi = std::min(to, (c + 1) * width);
      if (hi > lo) {
        *out[static_cast<std::size_t>(c)] += row.value[i] * (hi - lo) / width;
      }
    }
  }
  if (row.x_end) {
    // Columns after the end have no value; the one the end cuts is averaged over its part.
    for (int c = 0; c < columns; ++c) {
      const double covered = std::min(end - c * width, width);
      auto& m = out[static_cast<std::size_t>(c)];
      if (!(covered > 1e-12 * width)) {
        m.reset();
      } else if (covered < width) {
        *m *= width / covered;
      }
    }
  }
  return out;
}

double heatmap_top(const std::vector<const std::vector<HeatmapRow>*>& charts) {
  double most = 0.0;
  for (const auto* rows : charts) {
    for (const auto& r : *rows) {
      for (const double v : r.value) {
        most = std::max(most, v);
      }
    }
  }
  return std::clamp(std::ceil(most * 10.0 - 1e-9) / 10.0, 0.1, 1.0);
}

std::string heatmap_color(int level, int levels) {
  // From #f7fbff (0) to #08306b (the top level), linearly in RGB.
  const double t = levels > 1 ? static_cast<double>(level) / (levels - 1) : 1.0;
  const auto mix = [t](int a, int b) { return static_cast<int>(std::lround(a + (b - a) * t)); };
  return fmt::format("#{:02x}{:02x}{:02x}", mix(0xf7, 0x08), mix(0xfb, 0x30), mix(0xff, 0x6b));
}

std::string heatmap_svg(const std::vector<HeatmapRow>& rows, const HeatmapOptions& o) {
  const ChartOptions& c = o.chart;
  const double row_h = rows.empty() ? kRowMax
                                    : std::min(kRowMax, static_cast<double>(o.max_rows_height) /
                                                            static_cast<double>(rows.size()));
  const double rows_h = row_h * static_cast<double>(rows.size());
  const int height = kTop + static_cast<int>(std::ceil(rows_h - 1e-6)) + kBottom + kScale;
  // Rows are labelled when each is high enough for a line of text; the labels get the room the
  // longest needs.
  const bool labelled = !rows.empty() && row_h >= kLabelledRow;
  double label_w = 0.0;
  for (const auto& r : labelled ? rows : std::vector<HeatmapRow>{}) {
    label_w = std::max(label_w, text_width(r.label));
  }
  const int px0 = std::max(kLeft, static_cast<int>(std::ceil(label_w)) + 16);
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
  // Cells: per row, runs of equal level drawn as one rectangle (level 0 is the background; -1,
  // after the row's end, is grey).
  bool ended = false;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const auto means = column_means(rows[r], o.x_max, o.columns);
    const auto level_at = [&](int col) {
      const auto& m = means[static_cast<std::size_t>(col)];
      return m ? heatmap_level(*m / (o.value_max > 0 ? o.value_max : 1.0), o.levels) : -1;
    };
    const double y = kTop + row_h * static_cast<double>(r);
    int col = 0;
    while (col < o.columns) {
      const int level = level_at(col);
      int end = col + 1;
      while (end < o.columns && level_at(end) == level) {
        ++end;
      }
      if (level != 0) {
        ended = ended || level < 0;
        s += fmt::format(
            "<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" "
            "fill=\"{}\"/>\n",
            px0 + col * col_w, y, (end - col) * col_w, row_h,
            level < 0 ? kEndedColor : heatmap_color(level, o.levels));
      }
      col = end;
    }
    if (labelled) {
      s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", px0 - 6,
                       y + row_h / 2 + 4, xml_escape(rows[r].label));
    }
  }
  if (!labelled && !rows.empty()) {
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
  return s + colour_scale(o, px0, py1 + kBottom, ended) + "</svg>\n";
}

}  // namespace tidesim::app
