#include "tidesim/tools/lib/svg_chart.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

namespace tidesim::app {
namespace {

constexpr int kLeft = 70;
constexpr int kRight = 170;  // room for the legend
constexpr int kTop = 34;
constexpr int kBottom = 46;

std::string tick_text(double v, bool percent, double step) {
  if (percent) {
    v *= 100.0;
    step *= 100.0;
  }
  const int decimals = step >= 1.0 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  return fmt::format("{:.{}f}{}", v, std::max(0, decimals), percent ? "%" : "");
}

// Ticks and their labels.
using Ticks = std::vector<std::pair<double, std::string>>;

// About `target` ticks over [lo, hi] (nice_ticks), each labelled with as many decimals as the step
// between ticks needs, as a percentage when `percent`.
Ticks labelled_ticks(double lo, double hi, int target, bool percent) {
  const auto ticks = nice_ticks(lo, hi, target);
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 1.0;
  Ticks out;
  for (const double t : ticks) {
    out.emplace_back(t, tick_text(t, percent, step));
  }
  return out;
}

std::string header(const ChartOptions& o) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
      "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"20\" font-size=\"14\" font-weight=\"bold\">{3}</text>\n",
      o.width, o.height, kLeft, xml_escape(o.title));
}

struct Frame {
  double x0, x1, y0, y1;   // data range
  int px0, px1, py0, py1;  // plot area in pixels (py0 top)
  bool log_x = false;      // x on a log scale (x0 > 0); x at or below x0 at the left end
  double sx(double x) const {
    if (log_x) {
      return px0 + (std::log10(std::max(x, x0)) - std::log10(x0)) /
                       (std::log10(x1) - std::log10(x0)) * (px1 - px0);
    }
    return x1 > x0 ? px0 + (x - x0) / (x1 - x0) * (px1 - px0) : px0;
  }
  double sy(double y) const { return y1 > y0 ? py1 - (y - y0) / (y1 - y0) * (py1 - py0) : py1; }
};

// A power of ten as a tick label: plain from 0.001 to 100000, else "1e6".
std::string decade_text(int exponent) {
  if (exponent >= 0 && exponent <= 5) {
    return fmt::format("{:.0f}", std::pow(10.0, exponent));
  }
  if (exponent < 0 && exponent >= -3) {
    return fmt::format("{:.{}f}", std::pow(10.0, exponent), -exponent);
  }
  return fmt::format("1e{}", exponent);
}

// The x ticks of a log axis from x0 to x1 (powers of ten): one labelled tick per decade and
// unlabelled ones at 2..9 times it.
std::string log_x_ticks(const Frame& f) {
  std::string s;
  const int lo = static_cast<int>(std::lround(std::log10(f.x0)));
  const int hi = static_cast<int>(std::lround(std::log10(f.x1)));
  for (int e = lo; e <= hi; ++e) {
    const double px = f.sx(std::pow(10.0, e));
    s += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#888\"/>\n"
        "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
        px, f.py1, px, f.py1 + 5, px, f.py1 + 18, decade_text(e));
    for (int m = 2; m <= 9 && e < hi; ++m) {
      const double pm = f.sx(m * std::pow(10.0, e));
      s += fmt::format("<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#bbb\"/>\n",
                       pm, f.py1, pm, f.py1 + 3);
    }
  }
  return s;
}

std::string axes(const Frame& f, const ChartOptions& o, bool x_ticks = true, bool y_ticks = true) {
  std::string s;
  for (const auto& [y, label] : y_ticks ? labelled_ticks(f.y0, f.y1, 5, o.y_percent) : Ticks{}) {
    const double py = f.sy(y);
    s += fmt::format(
        "<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#e0e0e0\"/>\n"
        "<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
        f.px0, py, f.px1, py, f.px0 - 6, py + 4, label);
  }
  if (x_ticks && f.log_x) {
    s += log_x_ticks(f);
    x_ticks = false;
  }
  for (const auto& [x, label] : x_ticks ? labelled_ticks(f.x0, f.x1, 8, false) : Ticks{}) {
    const double px = f.sx(x);
    s += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#888\"/>\n"
        "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
        px, f.py1, px, f.py1 + 5, px, f.py1 + 18, label);
  }
  s += fmt::format(
      "<line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" stroke=\"#333\"/>\n"
      "<line x1=\"{0}\" y1=\"{3}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#333\"/>\n"
      "<text x=\"{4}\" y=\"{5}\" text-anchor=\"middle\">{6}</text>\n"
      "<text x=\"16\" y=\"{7}\" text-anchor=\"middle\" transform=\"rotate(-90 16 "
      "{7})\">{8}</text>\n",
      f.px0, f.px1, f.py1, f.py0, (f.px0 + f.px1) / 2, f.py1 + 36, xml_escape(o.x_label),
      (f.py0 + f.py1) / 2, xml_escape(o.y_label));
  return s;
}

std::string legend_entry(int x, int y, const std::string& color, const std::string& name) {
  return fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>\n"
      "<text x=\"{}\" y=\"{}\">{}</text>\n",
      x, y - 10, color, x + 18, y, xml_escape(name));
}

std::string no_data(const ChartOptions& o) {
  return header(o) + fmt::format("<text x=\"{}\" y=\"{}\" fill=\"#777\">no data</text>\n</svg>\n",
                                 kLeft, o.height / 2);
}

// The plot area, drawn without ink: what the browser test measures the bars against.
std::string plot_area(const Frame& f) {
  return fmt::format(
      "<rect class=\"plot\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\"/>\n", f.px0,
      f.py0, f.px1 - f.px0, f.py1 - f.py0);
}

// The highest y a bar draws: its value, its error bar's top, its highest point.
double bar_top(double value, const std::optional<double>& error,
               const std::vector<double>& points) {
  double top = value + error.value_or(0.0);
  for (const double p : points) {
    top = std::max(top, p);
  }
  return top;
}

// A bar centred on cx, `width` wide, from the axis to `value`, with a tooltip.
std::string bar(const Frame& f, double cx, double width, double value, const std::string& color,
                const std::string& tooltip) {
  const double top = f.sy(value);
  return fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" "
      "class=\"bar\"><title>{}</title></rect>\n",
      cx - width / 2, top, width, f.py1 - top, color, xml_escape(tooltip));
}

// An error bar (+- half) at cx with caps `cap` either side; nothing without one.
std::string error_bar(const Frame& f, double cx, double value, const std::optional<double>& half,
                      double cap) {
  if (!half) {
    return "";
  }
  const double hi = f.sy(value + *half);
  const double lo = f.sy(std::max(f.y0, value - *half));
  return fmt::format(
      "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#000\"/>\n"
      "<line x1=\"{3:.1f}\" y1=\"{1:.1f}\" x2=\"{4:.1f}\" y2=\"{1:.1f}\" stroke=\"#000\"/>\n"
      "<line x1=\"{3:.1f}\" y1=\"{2:.1f}\" x2=\"{4:.1f}\" y2=\"{2:.1f}\" stroke=\"#000\"/>\n",
      cx, hi, lo, cx - cap, cx + cap);
}

// Each seed's value as a hollow dot, spread evenly over `spread` px around cx (one: at cx).
std::string seed_points(const Frame& f, double cx, double spread,
                        const std::vector<double>& points) {
  std::string s;
  const double n = static_cast<double>(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    const double x = n > 1 ? cx - spread / 2 + spread * static_cast<double>(i) / (n - 1) : cx;
    s += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"white\" stroke=\"#222\" "
        "class=\"point\"/>\n",
        x, f.sy(std::max(f.y0, points[i])));
  }
  return s;
}

template <class T>
T at(const std::vector<T>& v, std::size_t i) {
  return i < v.size() ? v[i] : T{};
}

// `text` cut to `width` px with an ellipsis.
std::string fitted(const std::string& text, double width) {
  std::string out = text;
  while (!out.empty() && text_width(out + (out.size() < text.size() ? "…" : "")) > width) {
    // The last UTF-8 character: its continuation bytes, then its first byte.
    while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) {
      out.pop_back();
    }
    if (!out.empty()) {
      out.pop_back();
    }
  }
  return out.size() < text.size() ? out + "…" : out;
}

}  // namespace

double text_width(const std::string& text, double font_px) {
  double em = 0.0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) == 0x80) {
      continue;  // a UTF-8 continuation byte: counted with its lead byte
    }
    em += c == ' ' || c == '.' || c == ',' || c == ':' || c == '(' || c == ')' || c == 'i' ||
                  c == 'l' || c == '[' || c == ']'
              ? 0.35
              : 0.64;
  }
  return em * font_px;
}

std::string xml_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string chart_color(std::size_t i) {
  static constexpr std::array<const char*, 10> kPalette{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                                        "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                                                        "#bcbd22", "#17becf"};
  return kPalette[i % kPalette.size()];
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  if (!(hi > lo)) {
    return {lo};
  }
  const double raw = (hi - lo) / std::max(1, target);
  // A step whose power of ten is not a normal double (a range of 5e-324, or one wider than
  // DBL_MAX) would make 10^exponent zero or infinite and the loop below endless: just the ends.
  const double log_step = std::floor(std::log10(raw));
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(log_step >= -300.0 && log_step <= 300.0)) {
    return {lo, hi};
  }
  const int exponent = static_cast<int>(log_step);
  const double mag = std::pow(10.0, exponent);
  double m = 10.0;
  for (const double candidate : {1.0, 2.0, 5.0, 10.0}) {
    if (candidate * mag >= raw) {
      m = candidate;
      break;
    }
  }
  const double step = m * mag;
  // Ticks are k x m x 10^exponent; dividing by 10^-exponent for negative exponents keeps decimal
  // ticks exact (0.6, not 0.6000000000000001).
  const auto value = [&](long long k) {
    const double units = static_cast<double>(k) * m;
    return exponent < 0 ? units / std::pow(10.0, -exponent) : units * mag;
  };
  // |lo / step| is below 10^302 here but may still exceed a long long: then just the ends too.
  const double first = std::ceil(lo / step - 1e-9);
  if (!(std::fabs(first) < 1e18)) {
    return {lo, hi};
  }
  std::vector<double> ticks;
  // At most a few more than `target` ticks; the bound also stops a loop whose value(k) stalls.
  const int most = 4 * std::max(1, target) + 2;
  for (auto k = static_cast<long long>(first);
       value(k) <= hi + step * 1e-9 && static_cast<int>(ticks.size()) < most; ++k) {
    ticks.push_back(value(k));
  }
  return ticks;
}

namespace {

// The data's extent: x and y (y with its error bars) over every series, and the least x above 0.
struct DataRange {
  double x0 = INFINITY;
  double x1 = -INFINITY;
  double y0 = INFINITY;
  double y1 = -INFINITY;
  double least_positive_x = INFINITY;
};

DataRange data_range(const std::vector<ChartSeries>& series) {
  DataRange d;
  for (const auto& s : series) {
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      const double e = i < s.y_error.size() ? s.y_error[i].value_or(0.0) : 0.0;
      d.x0 = std::min(d.x0, s.x[i]);
      d.x1 = std::max(d.x1, s.x[i]);
      d.y0 = std::min(d.y0, s.y[i] - e);
      d.y1 = std::max(d.y1, s.y[i] + e);
      if (s.x[i] > 0) {
        d.least_positive_x = std::min(d.least_positive_x, s.x[i]);
      }
    }
    if (s.x_end && !s.x.empty()) {
      d.x1 = std::max(d.x1, *s.x_end);
    }
  }
  return d;
}

// The line chart's frame over the data (`d`, not empty) and the rules, within the options'
// bounds: y from 0 (or below) to 5 % above the top, rounded out to a tick; x in whole decades on
// a log axis.
Frame line_chart_frame(DataRange d, const ChartOptions& o) {
  for (const auto& r : o.rules) {
    d.y0 = std::min(d.y0, r.y);
    d.y1 = std::max(d.y1, r.y);
  }
  double x0 = d.x0;
  double x1 = d.x1;
  const double y0 = o.y_min.value_or(std::min(0.0, d.y0));
  double y1 = o.y_max.value_or(d.y1 > y0 ? d.y1 * 1.05 : y0 + 1.0);
  if (o.x_log) {
    // Whole decades, at most six of them.
    const double top = o.x_max.value_or(x1);
    x1 = top > 0 ? std::pow(10.0, std::ceil(std::log10(top) - 1e-9)) : 1.0;
    const double least =
        o.x_min.value_or(std::isfinite(d.least_positive_x) ? d.least_positive_x : x1);
    x0 = std::max(std::pow(10.0, std::floor(std::log10(least) + 1e-9)), x1 / 1e6);
    if (x1 <= x0) {
      x1 = x0 * 10.0;
    }
  } else {
    x0 = o.x_min.value_or(x0);
    x1 = o.x_max.value_or(x1);
    if (x1 <= x0) {
      x1 = x0 + 1.0;
    }
  }
  // Round the y range out to ticks so the grid ends at the frame.
  const auto yt = nice_ticks(y0, y1);
  if (yt.size() > 1 && !o.y_max) {
    const double step = yt[1] - yt[0];
    y1 = std::ceil(y1 / step - 1e-9) * step;
  }
  return Frame{x0, x1, y0, y1, kLeft, o.width - kRight, kTop, o.height - kBottom, o.x_log};
}

// The dashed horizontal rules, each labelled at its right end.
std::string rules_svg(const Frame& f, const ChartOptions& o) {
  std::string s;
  for (const auto& r : o.rules) {
    const double py = f.sy(r.y);
    s += fmt::format(
        "<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#555\" "
        "stroke-dasharray=\"6 4\"/>\n<text x=\"{}\" y=\"{:.1f}\" fill=\"#555\" "
        "text-anchor=\"end\">{}</text>\n",
        f.px0, py, f.px1, py, f.px1 - 4, py - 4, xml_escape(r.label));
  }
  return s;
}

// The first `n` points of a series as a polyline (steps when `step`), and a short vertical bar
// where it ends before the axis does.
std::string series_line_svg(const ChartSeries& ser, std::size_t n, const Frame& f, bool step,
                            const std::string& color) {
  std::string points;
  for (std::size_t i = 0; i < n; ++i) {
    if (step && i > 0) {
      points += fmt::format("{:.1f},{:.1f} ", f.sx(ser.x[i]), f.sy(ser.y[i - 1]));
    }
    points += fmt::format("{:.1f},{:.1f} ", f.sx(ser.x[i]), f.sy(ser.y[i]));
  }
  // A series that ends before the axis: its last value held to the end (step charts), then a
  // short vertical bar.
  const bool ends = ser.x_end && *ser.x_end >= ser.x[n - 1];
  if (ends && step) {
    points += fmt::format("{:.1f},{:.1f} ", f.sx(*ser.x_end), f.sy(ser.y[n - 1]));
  }
  if (!points.empty()) {
    points.pop_back();
  }
  std::string s = fmt::format(
      "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" points=\"{}\"><title>{}</title>"
      "</polyline>\n",
      color, points, xml_escape(ser.name));
  // The bar only where the series stops before the axis does.
  if (ends && f.sx(*ser.x_end) < f.px1 - 0.5) {
    const double ex = f.sx(step ? *ser.x_end : ser.x[n - 1]);
    const double ey = f.sy(ser.y[n - 1]);
    s += fmt::format(
        "<path d=\"M{0:.1f} {1:.1f}V{2:.1f}\" stroke=\"{3}\" stroke-width=\"2\"><title>{4}: "
        "ends</title></path>\n",
        ex, ey - 6, ey + 6, color, xml_escape(ser.name));
  }
  return s;
}

// A dot per point of the first `n` and its error bar (y - e to y + e) with 8 px caps.
std::string error_bars_svg(const ChartSeries& ser, std::size_t n, const Frame& f,
                           const std::string& color) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    const double px = f.sx(ser.x[i]);
    s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>\n", px,
                     f.sy(ser.y[i]), color);
    if (i >= ser.y_error.size() || !ser.y_error[i]) {
      continue;
    }
    const double lo = f.sy(ser.y[i] - *ser.y_error[i]);
    const double hi = f.sy(ser.y[i] + *ser.y_error[i]);
    s += fmt::format(
        "<path d=\"M{0:.1f} {1:.1f}V{2:.1f}M{3:.1f} {1:.1f}H{4:.1f}M{3:.1f} {2:.1f}H{4:.1f}\" "
        "stroke=\"{5}\" fill=\"none\"/>\n",
        px, lo, hi, px - 4, px + 4, color);
  }
  return s;
}

}  // namespace

std::string line_chart_svg(const std::vector<ChartSeries>& series, const ChartOptions& o) {
  const DataRange d = data_range(series);
  if (!std::isfinite(d.x0)) {
    return no_data(o);
  }
  const Frame f = line_chart_frame(d, o);
  std::string s = header(o) + axes(f, o) + rules_svg(f, o);
  int legend_y = kTop + 10;
  for (std::size_t k = 0; k < series.size(); ++k) {
    const auto& ser = series[k];
    const std::size_t n = std::min(ser.x.size(), ser.y.size());
    if (n == 0) {
      continue;
    }
    const std::string color = chart_color(k);
    s += series_line_svg(ser, n, f, o.step, color);
    if (!ser.y_error.empty()) {
      s += error_bars_svg(ser, n, f, color);
    }
    if (legend_y < o.height - 10) {
      s += legend_entry(o.width - kRight + 14, legend_y, color, ser.name);
      legend_y += 18;
    }
  }
  return s + "</svg>\n";
}

std::string timeline_svg(const std::vector<std::string>& rows,
                         const std::vector<TimelineMarker>& markers, double x_max,
                         const ChartOptions& o) {
  if (rows.empty()) {
    return no_data(o);
  }
  // Room on the left for the longest row label.
  double label_w = 0.0;
  for (const auto& r : rows) {
    label_w = std::max(label_w, text_width(r));
  }
  const int px0 = std::max(kLeft + 60, static_cast<int>(std::ceil(label_w)) + 16);
  const Frame f{0.0, x_max > 0 ? x_max : 1.0, 0.0,  static_cast<double>(rows.size()),
                px0, o.width - kRight,        kTop, o.height - kBottom};
  std::string s = header(o);
  // Axes without y ticks: row labels instead.
  ChartOptions plain = o;
  plain.y_label = "";
  s += axes(Frame{f.x0, f.x1, 0.0, 0.0, f.px0, f.px1, f.py0, f.py1}, plain, true, false);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const double py = f.sy(static_cast<double>(rows.size() - r) - 0.5);
    s += fmt::format(
        "<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#e0e0e0\"/>\n"
        "<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
        f.px0, py, f.px1, py, f.px0 - 6, py + 4, xml_escape(rows[r]));
  }
  std::map<std::string, std::size_t> categories;
  // The categories of each row, in order of first appearance.
  std::vector<std::vector<std::string>> in_row(rows.size());
  for (const auto& m : markers) {
    categories.try_emplace(m.category, categories.size());
    if (m.row < rows.size() &&
        std::find(in_row[m.row].begin(), in_row[m.row].end(), m.category) == in_row[m.row].end()) {
      in_row[m.row].push_back(m.category);
    }
  }
  for (const auto& m : markers) {
    if (m.row >= rows.size()) {
      continue;
    }
    const std::size_t c = categories[m.category];
    const double px = f.sx(m.x);
    // A row's categories are spread vertically inside it so coincident events stay visible (one
    // category: on the row's line).
    const auto& here = in_row[m.row];
    const auto rank =
        static_cast<double>(std::find(here.begin(), here.end(), m.category) - here.begin());
    const double band = (f.py1 - f.py0) / static_cast<double>(rows.size());
    const double offset = (rank + 1.0) / (static_cast<double>(here.size()) + 1.0) - 0.5;
    const double py = f.sy(static_cast<double>(rows.size() - m.row) - 0.5) + offset * band * 0.8;
    s += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\" fill-opacity=\"0.8\"><title>{}"
        "</title></circle>\n",
        px, py, chart_color(c + 1), xml_escape(m.tooltip));
  }
  int legend_y = kTop + 10;
  for (const auto& [name, c] : categories) {
    s += legend_entry(o.width - kRight + 14, legend_y, chart_color(c + 1), name);
    legend_y += 18;
  }
  if (markers.empty()) {
    s += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"#777\">no events</text>\n", f.px0 + 10,
                     kTop + 16);
  }
  return s + "</svg>\n";
}

std::string bar_chart_svg(const std::vector<std::string>& categories,
                          const std::vector<double>& values,
                          const std::vector<std::optional<double>>& error_half,
                          const ChartOptions& o, const std::vector<std::string>& value_labels,
                          const std::vector<std::vector<double>>& points) {
  if (categories.empty() || values.size() != categories.size()) {
    return no_data(o);
  }
  double y1 = 0.0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    y1 = std::max(y1, bar_top(values[i], at(error_half, i), at(points, i)));
  }
  y1 = o.y_max.value_or(y1 > 0 ? y1 * 1.15 : 1.0);
  const Frame f{0.0,
                static_cast<double>(categories.size()),
                o.y_min.value_or(0.0),
                y1,
                kLeft,
                o.width - kRight,
                kTop,
                o.height - kBottom};
  std::string s = header(o) + axes(f, o, false) + plot_area(f);
  const double slot = (f.px1 - f.px0) / static_cast<double>(categories.size());
  // Names under their bars when every one fits its slot, else in a legend on the right.
  bool names_fit = true;
  for (const auto& c : categories) {
    names_fit = names_fit && text_width(c) <= slot - 8;
  }
  for (std::size_t i = 0; i < categories.size(); ++i) {
    const double cx = f.px0 + slot * (static_cast<double>(i) + 0.5);
    const std::optional<double> error = at(error_half, i);
    const std::vector<double> seeds = at(points, i);
    const std::string label = i < value_labels.size() ? value_labels[i]
                              : o.y_percent           ? fmt::format("{:.1f}%", values[i] * 100.0)
                                                      : fmt::format("{:.3g}", values[i]);
    s += bar(f, cx, slot * 0.6, values[i], chart_color(i), categories[i] + ": " + label);
    if (names_fit) {
      s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", cx,
                       f.py1 + 18, xml_escape(categories[i]));
    } else if (kTop + 10 + 18 * static_cast<int>(i) < o.height - 10) {
      s += legend_entry(o.width - kRight + 14, kTop + 10 + 18 * static_cast<int>(i), chart_color(i),
                        categories[i]);
    }
    // The value is printed above the bar, its error bar and its seeds' points.
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", cx,
                     f.sy(bar_top(values[i], error, seeds)) - 6, xml_escape(label));
    s += error_bar(f, cx, values[i], error, slot * 0.1) + seed_points(f, cx, slot * 0.3, seeds);
  }
  return s + "</svg>\n";
}

std::string grouped_bar_chart_svg(const std::vector<std::string>& groups,
                                  const std::vector<BarSeries>& series, const ChartOptions& o) {
  double y1 = 0.0;
  bool any = false;
  for (const auto& ser : series) {
    for (std::size_t g = 0; g < groups.size() && g < ser.values.size(); ++g) {
      if (ser.values[g]) {
        any = true;
        y1 = std::max(y1, bar_top(*ser.values[g], at(ser.error_half, g), at(ser.points, g)));
      }
    }
  }
  if (!any) {
    return no_data(o);
  }
  y1 = o.y_max.value_or(y1 > 0 ? y1 * 1.15 : 1.0);
  const Frame f{0.0,
                static_cast<double>(groups.size()),
                o.y_min.value_or(0.0),
                y1,
                kLeft,
                o.width - kRight,
                kTop,
                o.height - kBottom};
  std::string s = header(o) + axes(f, o, false) + plot_area(f);
  const double slot = (f.px1 - f.px0) / static_cast<double>(groups.size());
  const double width = slot * 0.8 / static_cast<double>(series.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const double left = f.px0 + slot * (static_cast<double>(g) + 0.1);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     left + slot * 0.4, f.py1 + 18, xml_escape(fitted(groups[g], slot - 6)));
    for (std::size_t k = 0; k < series.size(); ++k) {
      const auto& ser = series[k];
      if (g >= ser.values.size() || !ser.values[g]) {
        continue;
      }
      const double v = *ser.values[g];
      const double cx = left + width * (static_cast<double>(k) + 0.5);
      const std::string label =
          at(ser.labels, g).empty() ? fmt::format("{:.3g}", v) : ser.labels[g];
      s += bar(f, cx, width * 0.9, v, chart_color(k), ser.name + ", " + groups[g] + ": " + label);
      s += error_bar(f, cx, v, at(ser.error_half, g), width * 0.15) +
           seed_points(f, cx, width * 0.45, at(ser.points, g));
      // The value above the bar when it fits the bar's width (in a smaller font); else only in
      // the bar's tooltip.
      if (text_width(label, 10.0) <= width - 2) {
        s += fmt::format(
            "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" font-size=\"10\">{}</text>\n",
            cx, f.sy(bar_top(v, at(ser.error_half, g), at(ser.points, g))) - 5, xml_escape(label));
      }
    }
  }
  for (std::size_t k = 0; k < series.size(); ++k) {
    if (kTop + 10 + 18 * static_cast<int>(k) < o.height - 10) {
      s += legend_entry(o.width - kRight + 14, kTop + 10 + 18 * static_cast<int>(k), chart_color(k),
                        series[k].name);
    }
  }
  return s + "</svg>\n";
}

}  // namespace tidesim::app
