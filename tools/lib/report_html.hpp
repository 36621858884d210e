#pragma once
/// The HTML report: one self-contained file (no script, no network) with the comparison table
/// and SVG charts embedded as data: URIs. Contents in docs/outputs.md.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/tools/lib/result.hpp"
#include "tidesim/tools/lib/table.hpp"

namespace tidesim::app {

/// One chart of the report: its title (the image's alt text) and its SVG document.
struct ReportFigure {
  std::string title;
  std::string svg;
};

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

/// The report of `result`: metadata, comparison table, per-node GPU utilisation and memory over
/// time per policy, cross-node std-dev and LSCS over time, wait-time CDF (all seeds), OOM /
/// eviction / restart / fallback timeline, NVLink contention rate per policy and NVLink
/// competition index per node over time. Well-formed as HTML and as XML.
std::string render_report_html(const RunResult& result, const ReportOptions& options = {});

/// Standard base64 (RFC 4648) of `bytes`, padded.
std::string base64_encode(const std::string& bytes);

}  // namespace tidesim::app
