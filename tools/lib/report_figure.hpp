#pragma once
/// How the HTML report embeds a chart: an <img> of its SVG as a data: URI (no script, no
/// network), and where `tidesim report --figures` collects every chart while a report renders.
#include <string>
#include <vector>

namespace tidesim::app {

/// One chart of the report: its title (the image's alt text) and its SVG document.
struct ReportFigure {
  std::string title;
  std::string svg;
};

/// While one lives, every chart the report embeds on this thread is also appended to `figures`
/// (when not null), in report order.
class FigureCollector {
 public:
  explicit FigureCollector(std::vector<ReportFigure>* figures);
  ~FigureCollector();
  FigureCollector(const FigureCollector&) = delete;
  FigureCollector& operator=(const FigureCollector&) = delete;
};

/// An <img> of `svg` (a data: URI), `alt` its alt text and its title among the figures.
std::string report_img(const std::string& svg, const std::string& alt);

/// report_img as a paragraph of its own.
std::string report_image(const std::string& svg, const std::string& alt);

/// The line that stands for charts not drawn because every value is zero or absent: "Not drawn,
/// every value zero or absent: WHAT." (WHAT escaped).
std::string not_drawn_html(const std::string& what);

/// Standard base64 (RFC 4648) of `bytes`, padded.
std::string base64_encode(const std::string& bytes);

}  // namespace tidesim::app
