#include "tidesim/tools/lib/report_table.hpp"

#include <fmt/core.h>

#include <cmath>

#include "tidesim/tools/lib/svg_chart.hpp"

namespace tidesim::app {

std::string comparison_table_html(const ComparisonTable& table) {
  std::string out = "<table>\n<thead><tr><th>metric</th><th>better</th>";
  for (const auto& p : table.policies) {
    out += "<th>" + xml_escape(p) + "</th>";
  }
  for (std::size_t k = 1; k < table.policies.size(); ++k) {
    out += "<th>change (" + xml_escape(table.policies[k]) + ")</th>";
  }
  if (!table.reference_label.empty()) {
    out += "<th>published (" + xml_escape(table.reference_label) + ")</th>";
  }
  if (table.policies.size() > 1) {
    out += "<th>verdict</th>";
  }
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : table.rows) {
    out += "<tr><td title=\"" + xml_escape(row.info ? std::string(row.info->description) : "") +
           "\">" + xml_escape(label_of(row)) + "</td>";
    // Which way is an improvement (docs/metrics.md): lower, higher, or neither.
    const std::string direction =
        row.info ? std::string(metrics::to_string(row.info->direction)) : std::string("-");
    out += "<td>" +
           xml_escape(direction == "lower"    ? "lower ↓"
                      : direction == "higher" ? "higher ↑"
                                              : direction) +
           "</td>";
    for (const auto& s : row.per_policy) {
      std::string text = "-";
      if (s) {
        text = format_metric_value(row.info, s->mean);
        if (s->ci95_half) {
          text += " ± " + format_metric_spread(row.info, *s->ci95_half);
        }
      }
      out += "<td class=\"num\">" + xml_escape(text) + "</td>";
    }
    for (const auto& d : row.changes) {
      std::string text = "-";
      if (d && row.info && row.info->unit == metrics::Unit::kRatio) {
        text = fmt::format("{:+.1f} pp", d->mean * 100.0);  // a share's change in points
      } else if (d && d->relative) {
        text = fmt::format("{:+.1f}%", *d->relative * 100.0);
      } else if (d) {
        text = "n/a";
      }
      if (d && d->ci95_half && std::fabs(d->mean) > *d->ci95_half) {
        text += " *";
      }
      out += "<td class=\"num\">" + xml_escape(text) + "</td>";
    }
    if (!table.reference_label.empty()) {
      std::string text;
      for (const auto& p : table.policies) {
        const auto it = row.reference.find(p);
        text += (text.empty() ? "" : " / ") + (it == row.reference.end()
                                                   ? std::string("-")
                                                   : format_metric_value(row.info, it->second));
      }
      out += "<td class=\"num\">" + xml_escape(row.reference.empty() ? "-" : text) + "</td>";
    }
    if (table.policies.size() > 1) {
      // The terminal table's words: best, worst, no significant difference, tied, tie.
      out += "<td>" + xml_escape(mark_text(table, row)) + "</td>";
    }
    out += "</tr>\n";
  }
  out += "</tbody>\n</table>\n";
  return out;
}

}  // namespace tidesim::app
