#include "tidesim/tools/lib/sweep_view.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "tidesim/sim/metrics/catalog.hpp"
#include "tidesim/tools/lib/csv_out.hpp"
#include "tidesim/tools/lib/headline_metrics.hpp"
#include "tidesim/tools/lib/sweep_spec.hpp"

namespace tidesim::app {
namespace {

using json = nlohmann::json;

// The rows of every variant's table (build_sweep_comparison).
std::vector<std::string> sweep_rows(const RunResult& result, const TableOptions& options) {
  if (!options.metrics.empty()) {
    return options.metrics;
  }
  if (options.headline) {
    return headline_metrics_of(result);  // the study's set (tools/lib/headline_metrics.hpp)
  }
  const auto present = present_metric_names(result);
  std::vector<std::string> names = result.metadata.headline_metrics;
  if (names.empty()) {
    for (const auto name : metrics::seed_metric_names()) {
      names.emplace_back(name);
    }
  }
  for (const auto& name : present) {
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(name);
    }
  }
  return names;
}

// The runs of variant `v`, each under its policy's own name; metrics only (what the table reads).
RunResult variant_result(const RunResult& result, const SweepView& view, std::size_t v) {
  RunResult sub;
  sub.metadata.policies = view.policies;
  for (const auto& run : result.runs) {
    const auto place = view.find(run.policy);
    if (place && place->variant == v) {
      SeedRun copy;
      copy.policy = view.policies[place->policy];
      copy.seed = run.seed;
      copy.end_s = run.end_s;
      copy.metrics = run.metrics;
      sub.runs.push_back(std::move(copy));
    }
  }
  return sub;
}

std::string value_text(const std::optional<std::string>& v) {
  return v ? *v : "-";
}

// The text table (render_sweep_comparison): per metric a block of one line per variant.
std::string sweep_text(const SweepComparison& c) {
  const SweepView& view = c.view;
  const std::size_t n = view.policies.size();
  std::size_t seeds = 0;
  for (const auto& t : c.tables) {
    seeds = std::max(seeds, t.seeds);
  }
  std::vector<std::string> header{"metric", "better"};
  header.insert(header.end(), view.short_keys.begin(), view.short_keys.end());
  header.insert(header.end(), view.policies.begin(), view.policies.end());
  for (std::size_t k = 1; k < n; ++k) {
    const std::string what = seeds > 1 ? "difference, 95% CI" : "change";
    header.push_back(n > 2 ? what + " (" + view.policies[k] + ")" : what);
  }
  if (n > 1) {
    header.push_back("verdict");
  }
  std::vector<std::vector<std::string>> grid{header};
  const std::size_t rows = c.tables.empty() ? 0 : c.tables.front().rows.size();
  for (std::size_t r = 0; r < rows; ++r) {
    if (r > 0) {
      grid.emplace_back(header.size(), "");  // an empty line between metrics
    }
    for (std::size_t v = 0; v < c.tables.size(); ++v) {
      const ComparisonTable& t = c.tables[v];
      // comparison_text_row: metric, better, the policies, per later policy its change (and with
      // several seeds its difference), the verdict.
      const auto cells = comparison_text_row(t, t.rows[r]);
      const std::size_t stride = t.seeds > 1 ? 2 : 1;
      std::vector<std::string> line{v == 0 ? cells[0] : "", v == 0 ? cells[1] : ""};
      for (const auto& value : view.variants[v].values) {
        line.push_back(value_text(value));
      }
      line.insert(line.end(), cells.begin() + 2, cells.begin() + 2 + static_cast<long>(n));
      for (std::size_t k = 0; k + 1 < n; ++k) {
        // The difference when the variant has several seeds, else the change.
        line.push_back(cells[2 + n + k * stride + stride - 1]);
      }
      if (n > 1) {
        line.push_back(cells.back());
      }
      grid.push_back(std::move(line));
    }
  }
  std::string notes;
  notes += seeds > 1 ? fmt::format("{} seeds: mean ± 95% CI half-width (Student t).", seeds)
                     : std::string("1 seed: no confidence intervals.");
  if (n > 1) {
    const std::string later = n > 2 ? "each later policy" : view.policies[1];
    notes += " Policies are compared within each line (the same swept values). ";
    notes += seeds > 1 ? fmt::format(
                             "difference: {} minus {}, paired over seeds, * when its 95% CI "
                             "excludes 0 (shares in percentage points, pp).\n",
                             later, view.policies.front())
                       : fmt::format(
                             "change: {} against {}, relative change of the means "
                             "(shares: difference in percentage points, pp).\n",
                             later, view.policies.front());
    notes += mark_legend(seeds) + " Within its line.\n";
  } else {
    notes += "\n";
  }
  return aligned_text(grid) + wrap_text(notes);
}

std::string sweep_csv(const SweepComparison& c) {
  std::string out;
  for (std::size_t v = 0; v < c.tables.size(); ++v) {
    std::istringstream lines(render_comparison(c.tables[v], OutputFormat::kCsv));
    std::string line;
    std::getline(lines, line);
    if (v == 0) {
      for (const auto& key : c.view.keys) {
        out += csv_field(key) + ",";
      }
      out += line + "\n";
    }
    std::string prefix;
    for (const auto& value : c.view.variants[v].values) {
      prefix += (value ? csv_field(*value) : std::string()) + ",";
    }
    while (std::getline(lines, line)) {
      out += prefix + line + "\n";
    }
  }
  return out;
}

std::string sweep_json(const SweepComparison& c) {
  json doc;
  doc["keys"] = c.view.keys;
  doc["policies"] = c.view.policies;
  doc["variants"] = json::array();
  for (std::size_t v = 0; v < c.tables.size(); ++v) {
    json values = json::object();
    for (std::size_t k = 0; k < c.view.keys.size(); ++k) {
      const auto& value = c.view.variants[v].values[k];
      values[c.view.keys[k]] = value ? json(*value) : json(nullptr);
    }
    doc["variants"].push_back({{"label", c.view.variants[v].label},
                               {"values", std::move(values)},
                               {"comparison", comparison_json_value(c.tables[v])}});
  }
  return doc.dump(2) + "\n";
}

}  // namespace

std::optional<SweepView::Place> SweepView::find(const std::string& column) const {
  for (std::size_t v = 0; v < variants.size(); ++v) {
    for (std::size_t p = 0; p < variants[v].columns.size(); ++p) {
      if (variants[v].columns[p] == column) {
        return Place{v, p};
      }
    }
  }
  return std::nullopt;
}

std::optional<SweepView> sweep_view(const RunResult& result) {
  const auto& prov = result.metadata.provenance;
  if (!prov || !prov->is_object() || !prov->contains("sweep") || !prov->contains("policies")) {
    return std::nullopt;
  }
  const json& sweep = prov->at("sweep");
  if (!sweep.is_object() || !sweep.contains("variants") || !sweep.at("variants").is_array() ||
      sweep.at("variants").empty() || !prov->at("policies").is_array()) {
    return std::nullopt;
  }
  SweepView view;
  for (const auto& p : prov->at("policies")) {
    if (!p.is_object() || !p.contains("name") || !p.at("name").is_string()) {
      return std::nullopt;
    }
    view.policies.push_back(p.at("name").get<std::string>());
  }
  // Each variant's overrides as (key, value), and the keys in order of first appearance.
  std::vector<std::vector<std::pair<std::string, std::string>>> overrides;
  for (const auto& v : sweep.at("variants")) {
    if (!v.is_object() || !v.contains("label") || !v.at("label").is_string() ||
        !v.contains("overrides") || !v.at("overrides").is_array()) {
      return std::nullopt;
    }
    auto& own = overrides.emplace_back();
    for (const auto& o : v.at("overrides")) {
      const std::string text = o.is_string() ? o.get<std::string>() : "";
      const auto eq = text.find('=');
      if (eq == std::string::npos || eq == 0) {
        return std::nullopt;
      }
      own.emplace_back(text.substr(0, eq), text.substr(eq + 1));
      if (std::find(view.keys.begin(), view.keys.end(), own.back().first) == view.keys.end()) {
        view.keys.push_back(own.back().first);
      }
    }
    view.variants.push_back(SweepView::Variant{v.at("label").get<std::string>(), {}, {}});
  }
  const std::set<std::string> key_set(view.keys.begin(), view.keys.end());
  const json* names =
      sweep.contains("columns") && sweep.at("columns").is_object() ? &sweep.at("columns") : nullptr;
  for (const auto& key : view.keys) {
    view.short_keys.push_back(short_key(key, key_set));
    const bool named = names != nullptr && names->contains(key) && names->at(key).is_string();
    view.column_names.push_back(named ? names->at(key).get<std::string>() : key);
  }
  // Columns are labelled as plan_sweep labels cells: the policy alone for a sweep of one variant
  // without overrides, else "POLICY [VARIANT LABEL]".
  const bool labelled = view.variants.size() > 1 || !overrides.front().empty();
  for (std::size_t v = 0; v < view.variants.size(); ++v) {
    auto& variant = view.variants[v];
    for (const auto& key : view.keys) {
      std::optional<std::string> value;
      for (const auto& [k, text] : overrides[v]) {
        if (k == key) {
          value = text;
        }
      }
      variant.values.push_back(value);
    }
    for (const auto& p : view.policies) {
      variant.columns.push_back(labelled ? p + " [" + variant.label + "]" : p);
    }
  }
  for (const auto& column : result.policy_names()) {
    if (!view.find(column)) {
      return std::nullopt;
    }
  }
  return view;
}

SweepComparison build_sweep_comparison(const RunResult& result, const SweepView& view,
                                       const TableOptions& options) {
  SweepComparison c;
  c.view = view;
  TableOptions each;
  each.metrics = sweep_rows(result, options);
  each.no_reference = true;
  for (std::size_t v = 0; v < view.variants.size(); ++v) {
    c.tables.push_back(build_comparison(variant_result(result, view, v), each));
  }
  return c;
}

std::string render_sweep_comparison(const SweepComparison& comparison, OutputFormat format) {
  if (format == OutputFormat::kJson) {
    return sweep_json(comparison);
  }
  if (format == OutputFormat::kCsv) {
    return sweep_csv(comparison);
  }
  return sweep_text(comparison);
}

void write_metrics_csv(std::ostream& out, const RunResult& result) {
  const auto view = sweep_view(result);
  const auto names = present_metric_names(result);
  out << "policy,seed";
  if (view) {
    for (const auto& name : view->column_names) {
      out << ',' << csv_field(name);
    }
  }
  for (const auto& name : names) {
    out << ',' << csv_field(name);
  }
  out << '\n';
  for (const auto& run : result.runs) {
    std::optional<SweepView::Place> place;
    if (view) {
      place = view->find(run.policy);
    }
    out << csv_field(place ? view->policies[place->policy] : run.policy) << ',' << run.seed;
    if (view) {
      for (const auto& value : view->variants[place->variant].values) {
        out << ',' << (value ? csv_field(*value) : std::string());
      }
    }
    for (const auto& name : names) {
      const auto it = run.metrics.find(name);
      out << ','
          << csv_number(it == run.metrics.end() ? std::nullopt : std::optional<double>(it->second));
    }
    out << '\n';
  }
}

}  // namespace tidesim::app
