#pragma once
/// The HTML report: one self-contained file (no script, no network) with SVG charts embedded as
/// data: URIs, the headline charts first and the long comparison table last, folded. Contents in
/// docs/outputs.md.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/tools/lib/report_figure.hpp"
#include "tidesim/tools/lib/result.hpp"
#include "tidesim/tools/lib/table.hpp"

namespace tidesim::app {

/// Parameters of render_report_html.
struct ReportOptions {
  /// The seed whose time series are charted; by default each policy's first run with series.
  std::optional<std::uint64_t> seed;
  /// Rows and reference column of the comparison table.
  TableOptions table;
  /// When set, every chart of the report is also appended here, in report order
  /// (`tidesim report --figures DIR`).
  std::vector<ReportFigure>* figures = nullptr;
};

/// The report of `result`: metadata; the headline metrics as bar charts with each seed's value
/// and their verdicts (a sweep: each against the swept keys); JCT and slowdown per job class;
/// per-node GPU utilisation and memory over time per policy, cross-node std-dev and LSCS over
/// time, wait-time and JCT CDFs (all seeds), the OOM / eviction / restart / fallback timeline,
/// the NVLink competition index per node over time; last, folded in a <details>, the table of
/// every metric (a sweep: one per variant). A chart whose values are all zero or absent is not
/// drawn; a line says so. Well-formed as HTML and as XML.
std::string render_report_html(const RunResult& result, const ReportOptions& options = {});

}  // namespace tidesim::app
