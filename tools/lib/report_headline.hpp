#pragma once
/// The HTML report's first charts: the study's headline metrics, a bar per policy at its mean
/// over seeds with each seed's value as a dot, in the unit a reader expects (times in s, min or
/// h by their size, shares in %), and the JCT and slowdown of each job class from the per-job
/// records. docs/outputs.md, "HTML report".
#include <string>

#include "tidesim/sim/metrics/catalog.hpp"
#include "tidesim/tools/lib/result.hpp"
#include "tidesim/tools/lib/table.hpp"

namespace tidesim::app {

/// How a chart shows a metric's values: divided by `divisor`, the axis named `axis`, a value
/// printed with `suffix` ("2.35 h"), or as a percentage (`percent`: a share).
struct ValueScale {
  double divisor = 1.0;
  std::string axis{};
  std::string suffix{};
  bool percent = false;
};

/// The scale of values of `unit` whose largest mean is `largest`: seconds in hours from 1 h, in
/// minutes from 10 min, else in seconds; a share in percent; any other unit as it is.
ValueScale value_scale(metrics::Unit unit, double largest);

/// `value` (in the metric's own unit) printed on `scale`: "2.35 h", "16.6%", "12".
std::string scaled_text(const ValueScale& scale, metrics::Unit unit, double value);

/// The headline section: one bar chart per headline metric of `table` (built with
/// TableOptions::headline), a bar per policy at its mean over seeds, its 95% CI as an error
/// bar and each seed's value as a dot; metrics whose every value is zero or absent named in one
/// line instead; then the table itself (values and verdicts).
std::string headline_section_html(const RunResult& result, const ComparisonTable& table);

/// The per-class section: the mean JCT and the mean slowdown of each job class (JobRecord's
/// job_class), one group per class and a bar per policy at the mean over seeds of each seed's
/// class mean, each seed's as a dot. At most 12 classes, those with the most jobs; a line for a
/// chart with nothing to draw. Empty when no run has job records.
std::string class_section_html(const RunResult& result);

}  // namespace tidesim::app
