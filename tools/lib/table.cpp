#include "tidesim/tools/lib/table.hpp"

#include "tidesim/tools/lib/csv_out.hpp"
#include "tidesim/tools/lib/headline_metrics.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "tidesim/sim/input/error.hpp"

namespace tidesim::app {
namespace {

using metrics::MetricInfo;
using metrics::Unit;

std::optional<PairedDifference> paired_by_seed(const std::vector<const SeedRun*>& a_runs,
                                               const std::vector<const SeedRun*>& b_runs,
                                               const std::string& metric) {
  std::vector<double> a;
  std::vector<double> b;
  for (const auto* ra : a_runs) {
    for (const auto* rb : b_runs) {
      if (ra->seed != rb->seed) {
        continue;
      }
      const auto ia = ra->metrics.find(metric);
      const auto ib = rb->metrics.find(metric);
      if (ia != ra->metrics.end() && ib != rb->metrics.end()) {
        a.push_back(ia->second);
        b.push_back(ib->second);
      }
    }
  }
  return paired_difference(a, b);
}

// Decimal places for a value of magnitude |x| shown with about three significant digits.
int decimals_for(double x) {
  const double a = std::fabs(x);
  if (a >= 100.0 || a == 0.0) {
    return 0;
  }
  if (a >= 10.0) {
    return 1;
  }
  if (a >= 1.0) {
    return 2;
  }
  return 3;
}

std::string format_count(double x) {
  if (std::fabs(x - std::round(x)) < 1e-9) {
    return fmt::format("{:.0f}", x);
  }
  return fmt::format("{:.1f}", x);
}

// "-0.00" -> "0.00": a value that rounds to zero shows without a sign.
std::string drop_negative_zero(std::string text) {
  if (!text.empty() && text[0] == '-' && text.find_first_of("123456789") == std::string::npos) {
    text.erase(0, 1);
  }
  return text;
}

std::string pad(const std::string& s, std::size_t width, bool right) {
  // Width in code points (the table uses a few multi-byte characters such as the +- sign).
  std::size_t len = 0;
  for (const unsigned char c : s) {
    if ((c & 0xC0) != 0x80) {
      ++len;
    }
  }
  if (len >= width) {
    return s;
  }
  const std::string fill(width - len, ' ');
  return right ? fill + s : s + fill;
}

std::size_t display_width(const std::string& s) {
  std::size_t len = 0;
  for (const unsigned char c : s) {
    if ((c & 0xC0) != 0x80) {
      ++len;
    }
  }
  return len;
}

std::string cell(const ComparisonRow& row, const std::optional<Summary>& s) {
  if (!s) {
    return "-";
  }
  std::string text = format_metric_value(row.info, s->mean);
  if (s->ci95_half) {
    text += " ± " + format_metric_spread(row.info, *s->ci95_half);
  }
  return text;
}

std::string relative_text(const std::optional<double>& rel) {
  if (!rel) {
    return "n/a";
  }
  return fmt::format("{:+.1f}%", *rel * 100.0);
}

bool is_share(const MetricInfo* info) {
  return info != nullptr && info->unit == Unit::kRatio;
}

// The change column: a share's difference in percentage points ("+2.5 pp"), any other metric's
// relative change of the means.
std::string change_text(const ComparisonRow& row, const PairedDifference& d) {
  if (is_share(row.info)) {
    return drop_negative_zero(fmt::format("{:+.1f} pp", d.mean * 100.0));
  }
  return relative_text(d.relative);
}

// Whether a measured mean and its published value are an order of magnitude apart (one 10 times
// the other or more); a zero on either side has no order, so it never is.
bool magnitude_differs(double measured, double published) {
  const double a = std::fabs(measured);
  const double b = std::fabs(published);
  if (a == 0.0 || b == 0.0) {
    return false;
  }
  return std::max(a, b) >= 10.0 * std::min(a, b);
}

std::string direction_text(const ComparisonRow& row) {
  if (!row.info || row.info->direction == metrics::Direction::kNeutral) {
    return "-";
  }
  return std::string(metrics::to_string(row.info->direction));
}

// True when one value is above 0 and the other below (a zero agrees with anything).
bool opposite_signs(double a, double b) {
  return (a > 0.0 && b < 0.0) || (a < 0.0 && b > 0.0);
}

nlohmann::json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

namespace {
std::string format_metric_value_raw(const MetricInfo* info, double value);
std::string format_metric_spread_raw(const MetricInfo* info, double half_width);
}  // namespace

OutputFormat parse_output_format(std::string_view text, const std::string& field) {
  if (text == "table") {
    return OutputFormat::kTable;
  }
  if (text == "json") {
    return OutputFormat::kJson;
  }
  if (text == "csv") {
    return OutputFormat::kCsv;
  }
  throw InputError(SourceLocation{}, field,
                   "unknown format '" + std::string(text) + "' (expected table, json or csv)");
}

std::string format_metric_value(const MetricInfo* info, double value) {
  return drop_negative_zero(format_metric_value_raw(info, value));
}

namespace {
std::string format_metric_value_raw(const MetricInfo* info, double value) {
  if (!info) {
    return fmt::format("{:.{}f}", value, decimals_for(value));
  }
  switch (info->unit) {
    case Unit::kRatio:
      return fmt::format("{:.1f}%", value * 100.0);
    case Unit::kSeconds:
      return fmt::format("{:.{}f} s", value, decimals_for(value));
    case Unit::kCount:
      return format_count(value);
    case Unit::kPerHour:
      return fmt::format("{:.{}f}/h", value, decimals_for(value));
    case Unit::kGpus:
      return fmt::format("{:.2f}", value);
    case Unit::kFlag:
      return fmt::format("{:.2g}", value);
    case Unit::kPlain:
      return fmt::format("{:.4f}", value);
  }
  return fmt::format("{}", value);
}
}  // namespace

std::string format_metric_spread(const MetricInfo* info, double half_width) {
  return drop_negative_zero(format_metric_spread_raw(info, half_width));
}

std::string format_metric_difference(const MetricInfo* info, double difference) {
  if (is_share(info)) {
    return drop_negative_zero(fmt::format("{:.1f} pp", difference * 100.0));
  }
  return format_metric_value(info, difference);
}

namespace {
std::string format_metric_spread_raw(const MetricInfo* info, double half_width) {
  if (!info) {
    return fmt::format("{:.{}f}", half_width, decimals_for(half_width));
  }
  switch (info->unit) {
    case Unit::kRatio:
      return fmt::format("{:.1f}", half_width * 100.0);
    case Unit::kSeconds:
      return fmt::format("{:.{}f}", half_width, decimals_for(half_width));
    case Unit::kCount:
    case Unit::kFlag:
      return fmt::format("{:.1f}", half_width);
    case Unit::kPerHour:
      return fmt::format("{:.{}f}", half_width, decimals_for(half_width));
    case Unit::kGpus:
      return fmt::format("{:.2f}", half_width);
    case Unit::kPlain:
      return fmt::format("{:.4f}", half_width);
  }
  return fmt::format("{}", half_width);
}
}  // namespace

std::vector<std::string> present_metric_names(const RunResult& result) {
  std::set<std::string> present;
  for (const auto& run : result.runs) {
    for (const auto& [name, value] : run.metrics) {
      present.insert(name);
    }
  }
  std::vector<std::string> names;
  for (const auto& info : metrics::metric_catalog()) {
    const std::string name(info.name);
    if (present.contains(name) && std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(name);
    }
  }
  // Per-queue metrics ("<metric>/<queue>", catalogued by their metric) and metrics unknown to
  // this version, after the catalogue's.
  for (const auto& name : present) {
    if (std::find(names.begin(), names.end(), name) == names.end() &&
        (!metrics::find_metric(name) || name.find('/') != std::string::npos)) {
      names.push_back(name);
    }
  }
  return names;
}

std::optional<PairedDifference> seed_difference(const std::vector<const SeedRun*>& base,
                                                const std::vector<const SeedRun*>& cur,
                                                const std::string& metric) {
  std::vector<double> a;
  std::vector<double> b;
  bool paired = base.size() == cur.size();
  for (const auto* rb : base) {
    const SeedRun* partner = nullptr;
    for (const auto* rc : cur) {
      if (rc->seed == rb->seed) {
        partner = rc;
      }
    }
    if (!partner) {
      paired = false;
      break;
    }
    const auto ib = rb->metrics.find(metric);
    const auto ic = partner->metrics.find(metric);
    if (ib == rb->metrics.end() || ic == partner->metrics.end()) {
      paired = false;
      break;
    }
    a.push_back(ib->second);
    b.push_back(ic->second);
  }
  if (paired && !a.empty()) {
    return paired_difference(a, b);
  }
  return welch_difference(metric_values(base, metric), metric_values(cur, metric));
}

namespace {

// Whether `i`'s mean differs significantly from every other policy's (the 95% CI of each
// difference, paired over seeds or else Welch's, excludes 0).
bool differs_from_all(const ComparisonRow& row,
                      const std::vector<std::vector<const SeedRun*>>& runs, std::size_t i) {
  for (std::size_t k = 0; k < runs.size(); ++k) {
    if (k == i) {
      continue;
    }
    const auto d = seed_difference(runs[k], runs[i], row.metric);
    if (!d || !d->ci95_half || std::fabs(d->mean) <= *d->ci95_half) {
      return false;
    }
  }
  return true;
}

// The policies of `row` with the best and the worst mean by the metric's direction, and whether
// each differs significantly from every other policy (ComparisonRow::best, tied_best, worst).
void mark_best(ComparisonRow& row, const std::vector<std::vector<const SeedRun*>>& runs) {
  if (!row.info || row.info->direction == metrics::Direction::kNeutral || runs.size() < 2) {
    return;
  }
  for (const auto& s : row.per_policy) {
    if (!s) {
      return;  // a policy without the value: no mark
    }
  }
  const bool lower = row.info->direction == metrics::Direction::kLowerIsBetter;
  const auto better = [&](double a, double b) { return lower ? a < b : a > b; };
  std::size_t best = 0;
  std::size_t worst = 0;
  for (std::size_t i = 1; i < row.per_policy.size(); ++i) {
    best = better(row.per_policy[i]->mean, row.per_policy[best]->mean) ? i : best;
    worst = better(row.per_policy[worst]->mean, row.per_policy[i]->mean) ? i : worst;
  }
  std::vector<std::size_t> at_best;
  std::vector<std::size_t> at_worst;
  for (std::size_t i = 0; i < row.per_policy.size(); ++i) {
    if (row.per_policy[i]->mean == row.per_policy[best]->mean) {
      at_best.push_back(i);
    }
    if (row.per_policy[i]->mean == row.per_policy[worst]->mean) {
      at_worst.push_back(i);
    }
  }
  row.tie = at_best.size() == row.per_policy.size();
  if (row.tie) {
    return;
  }
  if (at_best.size() == 1) {
    row.best = best;
    row.best_significant = differs_from_all(row, runs, best);
  } else {
    row.tied_best = at_best;
  }
  if (runs.size() > 2 && at_worst.size() == 1) {
    row.worst = worst;
    row.worst_significant = differs_from_all(row, runs, worst);
  }
}

// The table's rows (TableOptions::metrics): the given ones; the study's headline set; or every
// metric present, led by the study's headline set when the result recorded one and by the seed's
// four otherwise.
std::vector<std::string> row_names(const RunResult& result, const TableOptions& options) {
  if (!options.metrics.empty()) {
    return options.metrics;
  }
  if (options.headline) {
    return headline_metrics_of(result);
  }
  std::vector<std::string> names = result.metadata.headline_metrics;
  if (names.empty()) {
    for (const auto name : metrics::seed_metric_names()) {
      names.emplace_back(name);
    }
  }
  for (auto& name : present_metric_names(result)) {
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(std::move(name));
    }
  }
  return names;
}

}  // namespace

ComparisonTable build_comparison(const RunResult& result, const TableOptions& options) {
  ComparisonTable table;
  table.policies = result.policy_names();
  std::vector<std::vector<const SeedRun*>> runs;
  for (const auto& policy : table.policies) {
    runs.push_back(result.runs_of(policy));
    table.seeds = std::max(table.seeds, runs.back().size());
  }

  const std::vector<std::string> names = row_names(result, options);

  std::optional<Reference> reference = options.reference;
  if (!reference && !options.no_reference) {
    reference = result.reference;
  }
  if (options.no_reference) {
    reference.reset();
  }
  if (reference) {
    table.reference_label = reference->label.empty() ? "reference" : reference->label;
  }

  for (const auto& name : names) {
    ComparisonRow row;
    row.metric = name;
    row.info = metrics::find_metric(name);
    for (const auto& policy_runs : runs) {
      row.per_policy.push_back(summarize(metric_values(policy_runs, name)));
    }
    for (std::size_t k = 1; k < runs.size(); ++k) {
      row.changes.push_back(paired_by_seed(runs[0], runs[k], name));
    }
    if (reference) {
      if (const auto it = reference->values.find(name); it != reference->values.end()) {
        row.reference = it->second;
      }
    }
    mark_best(row, runs);
    table.rows.push_back(std::move(row));
  }
  return table;
}

namespace {

nlohmann::json per_policy_json(const std::optional<Summary>& s) {
  return s ? nlohmann::json{{"n", s->n},
                            {"mean", s->mean},
                            {"sd", optional_json(s->sd)},
                            {"ci95_half", optional_json(s->ci95_half)}}
           : nlohmann::json(nullptr);
}

nlohmann::json row_json(const ComparisonTable& table, const ComparisonRow& row) {
  const auto& policies = table.policies;
  nlohmann::json r;
  r["name"] = row.metric;
  r["label"] = label_of(row);
  r["unit"] = row.info ? std::string(metrics::to_string(row.info->unit)) : "plain";
  r["direction"] = row.info ? std::string(metrics::to_string(row.info->direction)) : "neutral";
  r["policies"] = nlohmann::json::object();
  for (std::size_t i = 0; i < policies.size(); ++i) {
    r["policies"][policies[i]] = per_policy_json(row.per_policy[i]);
  }
  r["changes"] = nlohmann::json::array();
  for (std::size_t k = 0; k < row.changes.size(); ++k) {
    const auto& d = row.changes[k];
    r["changes"].push_back(
        {{"policy", policies[k + 1]},
         {"baseline", policies[0]},
         {"mean_difference", d ? nlohmann::json(d->mean) : nlohmann::json(nullptr)},
         {"ci95_half", d ? optional_json(d->ci95_half) : nlohmann::json(nullptr)},
         {"relative_change", d ? optional_json(d->relative) : nlohmann::json(nullptr)}});
  }
  r["reference"] = row.reference;
  r["best"] = row.best ? nlohmann::json{{"policy", policies[*row.best]},
                                        {"significant", row.best_significant}}
                       : nlohmann::json(nullptr);
  r["verdict"] = mark_text(table, row);
  return r;
}

}  // namespace

nlohmann::json comparison_json_value(const ComparisonTable& table) {
  nlohmann::json doc;
  doc["policies"] = table.policies;
  doc["seeds"] = table.seeds;
  doc["reference_label"] = table.reference_label;
  doc["metrics"] = nlohmann::json::array();
  for (const auto& row : table.rows) {
    doc["metrics"].push_back(row_json(table, row));
  }
  return doc;
}

namespace {

std::string comparison_csv(const ComparisonTable& table) {
  const auto& policies = table.policies;
  std::string out =
      "metric,unit,direction,policy,n,mean,sd,ci95_half,difference_vs_first,"
      "difference_ci95_half,relative_change_vs_first,reference\n";
  for (const auto& row : table.rows) {
    for (std::size_t i = 0; i < policies.size(); ++i) {
      const auto& s = row.per_policy[i];
      std::optional<PairedDifference> d;
      if (i > 0) {
        d = row.changes[i - 1];
      }
      std::optional<double> ref;
      if (const auto it = row.reference.find(policies[i]); it != row.reference.end()) {
        ref = it->second;
      }
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(row.metric),
                         row.info ? metrics::to_string(row.info->unit) : "plain",
                         row.info ? metrics::to_string(row.info->direction) : "neutral",
                         csv_field(policies[i]), s ? fmt::format("{}", s->n) : std::string("0"),
                         csv_number(s ? std::optional<double>(s->mean) : std::nullopt),
                         csv_number(s ? s->sd : std::nullopt),
                         csv_number(s ? s->ci95_half : std::nullopt),
                         csv_number(d ? std::optional<double>(d->mean) : std::nullopt),
                         csv_number(d ? d->ci95_half : std::nullopt),
                         csv_number(d ? d->relative : std::nullopt), csv_number(ref));
    }
  }
  return out;
}

// The terminal table's header: metric, direction, the policies, per later policy its change (and
// with several seeds its paired difference), and the reference's label.
std::vector<std::string> text_header(const ComparisonTable& table) {
  const auto& policies = table.policies;
  std::vector<std::string> header{"metric", "better"};
  for (const auto& p : policies) {
    header.push_back(p);
  }
  for (std::size_t k = 1; k < policies.size(); ++k) {
    header.push_back(policies.size() > 2 ? "change (" + policies[k] + ")" : "change");
    if (table.seeds > 1) {
      header.push_back(policies.size() > 2 ? "difference (" + policies[k] + ")"
                                           : "difference, 95% CI");
    }
  }
  if (!table.reference_label.empty()) {
    header.push_back(table.reference_label == "reference"
                         ? std::string("published")
                         : "published (" + table.reference_label + ")");
  }
  if (policies.size() > 1) {
    header.push_back("verdict");
  }
  return header;
}

// A paired difference with its 95% CI, * when the CI excludes 0.
std::string difference_text(const ComparisonRow& row, const std::optional<PairedDifference>& d) {
  if (d && d->ci95_half) {
    const bool significant = std::fabs(d->mean) > *d->ci95_half;
    return format_metric_difference(row.info, d->mean) + " ± " +
           format_metric_spread(row.info, *d->ci95_half) + (significant ? " *" : "");
  }
  if (d) {
    return format_metric_difference(row.info, d->mean);
  }
  return "-";
}

// What the ≠ marks of a table stand for.
struct Disagreements {
  bool direction = false;
  bool magnitude = false;
};

// The reference values of `row` per policy ("a / b"), with two policies their change (relative,
// or in percentage points for a share) and ≠ when it runs the other way from the measured change
// or a measured mean is an order of magnitude from its published value.
std::string reference_text(const ComparisonRow& row, const std::vector<std::string>& policies,
                           Disagreements& disagrees) {
  std::string ref;
  std::vector<double> ref_values;
  for (std::size_t i = 0; i < policies.size(); ++i) {
    const auto it = row.reference.find(policies[i]);
    if (!ref.empty()) {
      ref += " / ";
    }
    if (it == row.reference.end()) {
      ref += "-";
    } else {
      ref += format_metric_value(row.info, it->second);
      ref_values.push_back(it->second);
    }
  }
  if (row.reference.empty()) {
    ref = "-";
  } else if (policies.size() == 2 && ref_values.size() == 2 && is_share(row.info)) {
    ref += " (" +
           drop_negative_zero(fmt::format("{:+.1f} pp", (ref_values[1] - ref_values[0]) * 100.0)) +
           ")";
  } else if (policies.size() == 2 && ref_values.size() == 2 && ref_values[0] != 0.0) {
    ref += " (" + relative_text((ref_values[1] - ref_values[0]) / std::fabs(ref_values[0])) + ")";
  }
  bool marked = false;
  if (policies.size() == 2 && ref_values.size() == 2 && !row.changes.empty() && row.changes[0] &&
      opposite_signs(row.changes[0]->mean, ref_values[1] - ref_values[0])) {
    marked = true;
    disagrees.direction = true;
  }
  for (std::size_t i = 0; i < policies.size(); ++i) {
    const auto it = row.reference.find(policies[i]);
    if (it != row.reference.end() && row.per_policy[i] &&
        magnitude_differs(row.per_policy[i]->mean, it->second)) {
      marked = true;
      disagrees.magnitude = true;
    }
  }
  if (marked) {
    ref += " ≠";
  }
  return ref;
}

std::vector<std::string> text_row(const ComparisonTable& table, const ComparisonRow& row,
                                  Disagreements& disagrees) {
  std::vector<std::string> line{label_of(row), direction_text(row)};
  for (std::size_t i = 0; i < table.policies.size(); ++i) {
    line.push_back(cell(row, row.per_policy[i]));
  }
  for (const auto& d : row.changes) {
    line.push_back(d ? change_text(row, *d) : "-");
    if (table.seeds > 1) {
      line.push_back(difference_text(row, d));
    }
  }
  if (!table.reference_label.empty()) {
    line.push_back(reference_text(row, table.policies, disagrees));
  }
  if (table.policies.size() > 1) {
    line.push_back(mark_text(table, row));
  }
  return line;
}

// The footer's lines: what the numbers are, then what each mark that the table uses means.
std::string footer_text(const ComparisonTable& table, const Disagreements& disagrees) {
  const bool several = table.policies.size() > 1;
  std::string out =
      table.seeds > 1 ? fmt::format("{} seeds: mean ± 95% CI half-width (Student t).", table.seeds)
                      : std::string("1 seed: no confidence intervals.");
  if (several) {
    out += " change: relative change of the means (shares: difference in percentage points, pp).";
    if (table.seeds > 1) {
      out += " difference: paired over seeds, * when its 95% CI excludes 0.";
    }
  }
  out += "\n";
  if (several) {
    out += mark_legend(table.seeds) + "\n";
  }
  if (disagrees.direction) {
    out +=
        "≠: the change runs the other way from the published one; why: "
        "docs/seed-benchmark.md.\n";
  }
  if (disagrees.magnitude) {
    out +=
        "≠: a measured mean is 10 times its published value or more, or a tenth of it or less; "
        "why: docs/seed-benchmark.md.\n";
  }
  return out;
}

// The grid's lines in columns padded to their widest cell (numbers right-aligned), a rule under
// the header.
std::string aligned(const std::vector<std::vector<std::string>>& grid) {
  std::vector<std::size_t> widths(grid.front().size(), 0);
  for (const auto& line : grid) {
    for (std::size_t c = 0; c < line.size(); ++c) {
      widths[c] = std::max(widths[c], display_width(line[c]));
    }
  }
  std::string out;
  for (std::size_t r = 0; r < grid.size(); ++r) {
    std::string text;
    for (std::size_t c = 0; c < grid[r].size(); ++c) {
      if (c > 0) {
        text += "  ";
      }
      text += pad(grid[r][c], widths[c], c > 0 && r > 0);
    }
    while (!text.empty() && text.back() == ' ') {
      text.pop_back();
    }
    out += text + "\n";
    if (r == 0) {
      std::size_t total = 0;
      for (const auto w : widths) {
        total += w;
      }
      out += std::string(total + 2 * (widths.size() - 1), '-') + "\n";
    }
  }
  return out;
}

std::string comparison_text(const ComparisonTable& table) {
  std::vector<std::vector<std::string>> grid{text_header(table)};
  Disagreements disagrees;
  for (const auto& row : table.rows) {
    grid.push_back(text_row(table, row, disagrees));
  }
  return aligned(grid) + wrap_text(footer_text(table, disagrees));
}

}  // namespace

std::vector<std::string> comparison_text_header(const ComparisonTable& table) {
  return text_header(table);
}

std::vector<std::string> comparison_text_row(const ComparisonTable& table,
                                             const ComparisonRow& row) {
  Disagreements ignored;
  return text_row(table, row, ignored);
}

std::string aligned_text(const std::vector<std::vector<std::string>>& grid) {
  return aligned(grid);
}

std::string comparison_text_footer(const ComparisonTable& table) {
  Disagreements disagrees;
  for (const auto& row : table.rows) {
    (void)text_row(table, row, disagrees);
  }
  return footer_text(table, disagrees);
}

std::string wrap_text(const std::string& text, std::size_t width) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string line;
    std::size_t at = start;
    while (at < end) {
      std::size_t space = text.find(' ', at);
      if (space == std::string::npos || space > end) {
        space = end;
      }
      const std::string word = text.substr(at, space - at);
      if (!line.empty() && display_width(line) + 1 + display_width(word) > width) {
        out += line + "\n";
        line.clear();
      }
      line += (line.empty() ? "" : " ") + word;
      at = space + 1;
    }
    out += line + "\n";
    start = end + 1;
  }
  return out;
}

std::string render_comparison(const ComparisonTable& table, OutputFormat format) {
  if (format == OutputFormat::kJson) {
    return comparison_json_value(table).dump(2) + "\n";
  }
  if (format == OutputFormat::kCsv) {
    return comparison_csv(table);
  }
  return comparison_text(table);
}

Reference seed_reference(const std::string& default_policy, const std::string& load_aware_policy) {
  Reference ref;
  ref.label = "seed doc §3.4";
  ref.values["gpu_util_stddev"] = {{default_policy, 0.382}, {load_aware_policy, 0.127}};
  ref.values["mean_wait_s"] = {{default_policy, 423.0}, {load_aware_policy, 189.0}};
  ref.values["oom_kills"] = {{default_policy, 7.0}, {load_aware_policy, 0.0}};
  ref.values["nvlink_contention_rate"] = {{default_policy, 0.64}, {load_aware_policy, 0.21}};
  return ref;
}

std::string mark_text(const ComparisonTable& table, const ComparisonRow& row) {
  if (row.tie) {
    return "tie";
  }
  const bool tested = table.seeds > 1;
  std::vector<std::string> parts;
  if (row.best && (!tested || row.best_significant)) {
    parts.push_back("best: " + table.policies[*row.best]);
  }
  if (!row.tied_best.empty()) {
    std::string names;
    for (const auto i : row.tied_best) {
      names += (names.empty() ? "" : ", ") + table.policies[i];
    }
    parts.push_back("best: " + names + " (tied)");
  }
  if (row.worst && (!tested || row.worst_significant)) {
    parts.push_back("worst: " + table.policies[*row.worst]);
  }
  if (!parts.empty()) {
    std::string out = parts.front();
    for (std::size_t i = 1; i < parts.size(); ++i) {
      out += "; " + parts[i];
    }
    return out;
  }
  return row.best || row.worst ? "no significant difference" : "-";
}

std::string mark_legend(std::size_t seeds) {
  if (seeds > 1) {
    return "verdict: best: the better mean, significantly better than every other policy (the 95% "
           "CI of each difference, paired over seeds or else Welch's, excludes 0); worst (three "
           "policies or more): the worse mean, significantly worse than every other; no "
           "significant difference: no policy is significantly best or worst; tied: policies "
           "that share the best mean; tie: every policy has the same mean.";
  }
  return "verdict (one seed: nothing is tested for significance): best: the better mean; worst "
         "(three policies or more): the worse mean; tied: policies that share the best mean; "
         "tie: every policy has the same mean.";
}

std::string label_of(const ComparisonRow& row) {
  if (!row.info) {
    return row.metric;
  }
  std::string label(row.info->label);
  if (const auto slash = row.metric.find('/'); slash != std::string::npos) {
    label += " (" + row.metric.substr(slash + 1) + ")";
  }
  return label;
}

}  // namespace tidesim::app
