#pragma once
/// A sweep's merged result seen as a sweep (docs/sweeps.md): which policy and which values of the
/// swept keys each of its columns ("load-aware [count=8]") is, read from the result's provenance
/// (`sweep.variants` and `policies`), so that it works as well on a result read back from its
/// file. On it: the comparison of the policies within each variant (not every column against the
/// first), and the tidy table of every run's metrics (metrics.csv).
#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "tidesim/tools/lib/result.hpp"
#include "tidesim/tools/lib/table.hpp"

namespace tidesim::app {

/// The columns of a sweep's merged result.
struct SweepView {
  /// One combination of swept values.
  struct Variant {
    std::string label;
    /// Per key (SweepView::keys): its value as written in the sweep file (YAML), or absent when
    /// this variant does not set it (a case that leaves it to the scenario).
    std::vector<std::optional<std::string>> values;
    /// Per policy (SweepView::policies): the label of its column in the result.
    std::vector<std::string> columns;
  };
  /// The swept keys in full (`cluster.node_groups[0].count`), in order of first appearance.
  std::vector<std::string> keys;
  /// The keys as the labels show them (`count`).
  std::vector<std::string> short_keys;
  /// The keys' columns in metrics.csv: the sweep file's `columns:` name, else the key itself.
  std::vector<std::string> column_names;
  /// The policies' own names, in order.
  std::vector<std::string> policies;
  std::vector<Variant> variants;

  /// The variant and policy of the column labelled `column`; absent when none is.
  struct Place {
    std::size_t variant = 0;
    std::size_t policy = 0;
  };
  std::optional<Place> find(const std::string& column) const;
};

/// The sweep view of `result`; absent when it is not a sweep's merged result (no
/// `metadata.provenance.sweep`) or a column matches no variant and policy of it.
std::optional<SweepView> sweep_view(const RunResult& result);

/// Per variant, the comparison of its policies, as build_comparison makes it for a result of that
/// variant's runs alone with each column named by its policy.
struct SweepComparison {
  SweepView view;
  std::vector<ComparisonTable> tables;
};

/// The comparison of `result`'s policies within each variant of `view`. Rows: `options.metrics`,
/// else with `options.headline` the headline metrics present in the result, else the seed's four
/// and every metric present (the same rows for every variant). No reference column.
SweepComparison build_sweep_comparison(const RunResult& result, const SweepView& view,
                                       const TableOptions& options = {});

/// Renders a sweep comparison. Text: per metric, one line per variant with the swept values,
/// each policy's mean (± 95% CI), the difference of each later policy from the first within the
/// variant (paired over seeds, * when significant) and the verdict (mark_text). CSV: the
/// comparison's CSV (render_comparison) of each variant, after one column per swept key. JSON:
/// {"keys", "policies", "variants": [{"label", "values": {KEY: VALUE|null}, "comparison"}]}.
std::string render_sweep_comparison(const SweepComparison& comparison, OutputFormat format);

/// metrics.csv (docs/outputs.md): one row per run (policy and seed; for a sweep per variant,
/// policy and seed), columns `policy`, `seed`, then one per swept key holding its value (a sweep's
/// result only), then one per metric present in any run (present_metric_names order; empty where
/// a run has no value).
void write_metrics_csv(std::ostream& out, const RunResult& result);

}  // namespace tidesim::app
