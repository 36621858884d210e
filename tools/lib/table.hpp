#pragma once
/// The comparison table: metrics as rows, one column per policy (mean, and +- the 95% CI
/// half-width when there are several seeds), the relative change of each later policy against
/// the first with the paired difference's CI, and an optional reference column (e.g. the seed's
/// published figures). Rendered as terminal text, JSON or CSV.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tidesim/sim/metrics/catalog.hpp"
#include "tidesim/tools/lib/result.hpp"
#include "tidesim/tools/lib/stats.hpp"

namespace tidesim::app {

/// Output form of the comparison.
enum class OutputFormat { kTable, kJson, kCsv };

/// "table", "json" or "csv"; throws InputError naming `field` otherwise.
OutputFormat parse_output_format(std::string_view text, const std::string& field = "--format");

/// One metric's row of the comparison.
struct ComparisonRow {
  std::string metric;
  /// Catalogue entry; nullptr for a metric unknown to this version (shown as a plain number).
  const metrics::MetricInfo* info = nullptr;
  /// Per policy (in ComparisonTable::policies order): summary over that policy's seeds.
  std::vector<std::optional<Summary>> per_policy;
  /// Per later policy k = 1..: paired difference (policy k - first policy) over the seeds both
  /// ran; index k - 1.
  std::vector<std::optional<PairedDifference>> changes;
  /// Reference values per policy (empty when none).
  std::map<std::string, double> reference;
  /// The policy with the better mean by the metric's direction (an index into the policies);
  /// absent for a neutral or uncatalogued metric, with fewer than two policies, with a policy
  /// without the value, or when two policies share the best mean.
  std::optional<std::size_t> best;
  /// Whether `best` differs significantly from every other policy: the 95% CI of each
  /// difference (seed_difference) excludes 0. Never with one seed.
  bool best_significant = false;
  /// The policies that share the best mean when two or more do and not all.
  std::vector<std::size_t> tied_best;
  /// With three policies or more: the one policy with the worst mean, and whether it differs
  /// significantly from every other.
  std::optional<std::size_t> worst;
  bool worst_significant = false;
  /// Every policy has the same mean (a directed metric, each policy with the value).
  bool tie = false;
};

/// The verdict of a row, the same words in the terminal table and the HTML report: "best: X"
/// (significantly better than every other policy with several seeds), "best: X, Y (tied)",
/// "worst: Z" (three policies or more; significantly worse than every other), both joined by
/// "; ", "no significant difference" (several seeds, neither best nor worst significant), "tie"
/// (every policy the same mean), "-" (no direction, or a policy without the value).
struct ComparisonTable;
std::string mark_text(const ComparisonTable& table, const ComparisonRow& row);

/// The line that explains mark_text's words, for a table of `seeds` seeds.
std::string mark_legend(std::size_t seeds);

/// The row's printed name: its catalogue label, with the queue of a per-queue metric
/// ("<metric>/<queue>": "quota utilisation (team-a)"); the metric's own name when uncatalogued.
std::string label_of(const ComparisonRow& row);

/// The whole comparison.
struct ComparisonTable {
  std::vector<std::string> policies;
  std::vector<ComparisonRow> rows;
  /// Label of the reference column; empty when there is none.
  std::string reference_label;
  /// Largest number of seeds of any policy.
  std::size_t seeds = 0;
};

/// Parameters of build_comparison.
struct TableOptions {
  /// Rows, in order. Empty: the study's headline set (RunMetadata::headline_metrics) or else the
  /// seed's four, then every other catalogued metric present in the result in catalogue order,
  /// then unknown metrics alphabetically.
  std::vector<std::string> metrics;
  /// Reference column; when absent, the result's own reference (if any) is used.
  std::optional<Reference> reference;
  /// Leave the reference column out even when the result has one.
  bool no_reference = false;
  /// When `metrics` is empty: only the study's headline rows (headline_metrics_of(), from
  /// tools/lib/headline_metrics.hpp), instead of every metric.
  bool headline = false;
};

/// The metrics that runs of `result` have, in table order: catalogue order, then per-queue metrics
/// ("<metric>/<queue>") and metrics unknown to this version, alphabetically.
std::vector<std::string> present_metric_names(const RunResult& result);

/// The difference `cur` - `base` of `metric` over two sets of runs: paired over seeds when every
/// run of `base` has a partner with the same seed in `cur` (and both have the value), otherwise
/// Welch's difference of independent samples. std::nullopt when either side has no value.
std::optional<PairedDifference> seed_difference(const std::vector<const SeedRun*>& base,
                                                const std::vector<const SeedRun*>& cur,
                                                const std::string& metric);

/// Computes the comparison of `result`.
ComparisonTable build_comparison(const RunResult& result, const TableOptions& options = {});

/// Formats a value of a metric for people: shares as percentages ("38.2%"), seconds ("423 s"),
/// counts ("7" or "6.4"), and so on.
std::string format_metric_value(const metrics::MetricInfo* info, double value);

/// Formats a CI half-width in the same display unit as format_metric_value, without the unit
/// suffix for percentages ("2.1" percentage points).
std::string format_metric_spread(const metrics::MetricInfo* info, double half_width);

/// The difference of two means of a metric as the table shows it: a share in percentage points
/// ("-25.5 pp"), anything else as format_metric_value.
std::string format_metric_difference(const metrics::MetricInfo* info, double difference);

/// Renders `table` as aligned terminal text, a JSON document, or CSV (one row per metric and
/// policy). Each ends with a newline. The text has a "better" column (lower / higher) after the
/// metric and, with several policies, a "verdict" column (mark_text: best, worst, no significant
/// difference, tied, tie); differences of shares are in percentage points. The reference column is
/// headed "published (LABEL)"; with two policies a row whose measured change runs the other way
/// from the reference's, or whose measured mean is 10 times its published value or more (or less
/// than a tenth of it), is marked ≠, and a line below says why and points to
/// docs/seed-benchmark.md.
std::string render_comparison(const ComparisonTable& table, OutputFormat format);

/// The text of one comparison row as the terminal table shows it, column by column (metric,
/// better, the policies, the changes and differences, the reference, the verdict), and the header
/// of those columns. Used by the sweep table (tools/lib/sweep_view.hpp).
std::vector<std::string> comparison_text_header(const ComparisonTable& table);
std::vector<std::string> comparison_text_row(const ComparisonTable& table,
                                             const ComparisonRow& row);

/// Lines of `grid` in columns padded to their widest cell (numbers right-aligned), a rule under
/// the first line (the header). A line of empty cells is an empty line.
std::string aligned_text(const std::vector<std::vector<std::string>>& grid);

/// `text`'s lines, each broken at spaces into lines of at most `width` characters (code points; a
/// longer word stays whole), so that a table's notes fit a terminal.
std::string wrap_text(const std::string& text, std::size_t width = 100);

/// The lines below the terminal table that explain its marks (seeds, CIs, *, ≠, the verdict).
std::string comparison_text_footer(const ComparisonTable& table);

/// The JSON document of `table` (render_comparison's kJson, as a value).
nlohmann::json comparison_json_value(const ComparisonTable& table);

/// The seed's published figures (SEED-DIGEST section 3.4, labelled "seed doc §3.4") for policies
/// named `default_policy` and `load_aware_policy`: GPU util std-dev 38.2% / 12.7%, mean wait
/// 423 s / 189 s, OOM kills 7 / 0, NVLink contention 64% / 21%.
Reference seed_reference(const std::string& default_policy = "default-k8s",
                         const std::string& load_aware_policy = "load-aware");

}  // namespace tidesim::app
