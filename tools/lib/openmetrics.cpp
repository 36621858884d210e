#include "tidesim/tools/lib/openmetrics.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/metrics/node_stats.hpp"
#include "tidesim/tools/lib/result_records.hpp"

namespace tidesim::app {
namespace {

std::string escape_label(const std::string& value) {
  std::string out;
  for (const char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

struct Label {
  const char* name;
  std::string value;
};

std::string labels_text(const std::vector<Label>& labels) {
  std::string out = "{";
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (i > 0) {
      out += ",";
    }
    out += fmt::format("{}=\"{}\"", labels[i].name, escape_label(labels[i].value));
  }
  return out + "}";
}

// Writes one series: `value(i)` for each sample index i with a value.
class SeriesWriter {
 public:
  SeriesWriter(std::ostream& out, std::int64_t epoch) : out_(out), epoch_(epoch) {}

  void write(const std::string& sample_name, const std::vector<Label>& labels,
             const std::vector<double>& t_s,
             const std::function<std::optional<double>(std::size_t)>& value) {
    const std::string prefix = sample_name + labels_text(labels) + " ";
    std::optional<std::int64_t> last;
    for (std::size_t i = 0; i < t_s.size(); ++i) {
      const auto v = value(i);
      if (!v || !std::isfinite(*v)) {
        continue;
      }
      const std::int64_t ts = epoch_ + static_cast<std::int64_t>(std::floor(t_s[i]));
      if (last && ts <= *last) {
        continue;
      }
      last = ts;
      out_ << prefix << fmt::format("{}", *v) << ' ' << ts << '\n';
    }
  }

 private:
  std::ostream& out_;
  std::int64_t epoch_;
};

// The unit a conventional name ends with ("bytes", "seconds", "ratio"), or "" (a count).
std::string unit_of(const std::string& name) {
  for (const char* unit : {"bytes", "seconds", "ratio"}) {
    const std::string suffix = std::string("_") + unit;
    if (name.size() > suffix.size() && name.ends_with(suffix)) {
      return unit;
    }
  }
  return "";
}

// TYPE, UNIT (when the name ends with one) and HELP. A counter's family is named with its
// `_total`, as the Prometheus text format names it: `promtool check metrics` reads the text format
// and would otherwise report the `_total` samples as a family without help; Prometheus' OpenMetrics
// parser reads it either way.
void family_header(std::ostream& out, const std::string& name, const char* type, const char* help) {
  out << "# TYPE " << name << ' ' << type << '\n';
  if (const std::string unit = unit_of(name); !unit.empty()) {
    out << "# UNIT " << name << ' ' << unit << '\n';
  }
  out << "# HELP " << name << ' ' << help << '\n';
}

std::vector<Label> run_labels(const SeedRun& run) {
  return {{"policy", run.policy}, {"seed", std::to_string(run.seed)}};
}

std::vector<Label> with(std::vector<Label> labels, std::vector<Label> more) {
  for (auto& l : more) {
    labels.push_back(std::move(l));
  }
  return labels;
}

// Card-level family: one series per run, node and card.
void card_family(
    std::ostream& out, SeriesWriter& w, const RunResult& result, const std::string& name,
    const char* help,
    const std::function<std::optional<double>(const NodeSeries&, std::size_t, std::size_t)>& value,
    const std::function<std::size_t(const NodeSeries&, std::size_t)>& cards) {
  family_header(out, name, "gauge", help);
  for (const auto& run : result.runs) {
    if (!run.series) {
      continue;
    }
    for (const auto& node : run.series->nodes) {
      std::size_t max_cards = 0;
      for (std::size_t i = 0; i < node.t_s.size(); ++i) {
        max_cards = std::max(max_cards, cards(node, i));
      }
      for (std::size_t card = 0; card < max_cards; ++card) {
        w.write(name,
                with({{"gpu_id", std::to_string(card)}, {"node", node.node}}, run_labels(run)),
                node.t_s, [&](std::size_t i) -> std::optional<double> {
                  if (card >= cards(node, i)) {
                    return std::nullopt;
                  }
                  return value(node, i, card);
                });
      }
    }
  }
}

// Node-level family.
void node_family(
    std::ostream& out, SeriesWriter& w, const RunResult& result, const std::string& name,
    const char* help, std::vector<Label> extra,
    const std::function<std::optional<double>(const NodeSeries&, std::size_t)>& value) {
  family_header(out, name, "gauge", help);
  for (const auto& run : result.runs) {
    if (!run.series) {
      continue;
    }
    for (const auto& node : run.series->nodes) {
      std::vector<Label> labels = extra;
      labels.push_back({"node", node.node});
      w.write(name, with(labels, run_labels(run)), node.t_s,
              [&](std::size_t i) { return value(node, i); });
    }
  }
}

// Cluster-level family (gauge or counter).
void cluster_family(
    std::ostream& out, SeriesWriter& w, const RunResult& result, const std::string& name,
    const char* type, const char* help,
    const std::function<std::optional<double>(const SeedRun&, std::size_t)>& value) {
  family_header(out, name, type, help);
  for (const auto& run : result.runs) {
    if (!run.series) {
      continue;
    }
    w.write(name, run_labels(run), run.series->t_s, [&](std::size_t i) { return value(run, i); });
  }
}

// Cumulative count of events of `kind` at each sample instant of `run` (events are in time order
// as recorded; a merge keeps this linear in samples + events).
std::vector<double> cumulative_counts(const SeedRun& run, const char* kind) {
  std::vector<double> times;
  for (const auto& e : run.events) {
    if (e.kind == kind) {
      times.push_back(e.t_s);
    }
  }
  std::sort(times.begin(), times.end());
  std::vector<double> counts;
  std::size_t next = 0;
  for (const double t : run.series->t_s) {
    while (next < times.size() && times[next] <= t) {
      ++next;
    }
    counts.push_back(static_cast<double>(next));
  }
  return counts;
}

void count_family(std::ostream& out, SeriesWriter& w, const RunResult& result,
                  const std::string& name, const char* help, const char* kind) {
  family_header(out, name, "counter", help);
  for (const auto& run : result.runs) {
    if (!run.series) {
      continue;
    }
    const auto counts = cumulative_counts(run, kind);
    w.write(name, run_labels(run), run.series->t_s, [&counts](std::size_t i) { return counts[i]; });
  }
}

}  // namespace

void write_openmetrics(std::ostream& out, const RunResult& result,
                       const OpenMetricsOptions& options) {
  // The counters (OOM kills, evictions, restarts) count the events: without them they would
  // read 0 throughout.
  require_records(result, "events",
                  "OpenMetrics (its tidesim_oom_kills_total, tidesim_evictions_total and "
                  "tidesim_restarts_total)");
  SeriesWriter w(out, options.epoch_unix_s);
  const auto card_count_mem = [](const NodeSeries& n, std::size_t i) {
    return n.gpu_memory_used_bytes[i].size();
  };
  const auto card_count_util = [](const NodeSeries& n, std::size_t i) {
    return n.gpu_utilization[i].size();
  };
  const auto card_count_nvlink = [](const NodeSeries& n, std::size_t i) {
    return n.nvlink_utilization[i].size();
  };

  // The seed's names.
  card_family(
      out, w, result,
      options.seed_names ? "ai_gpu_memory_utilization" : "ai_gpu_memory_utilization_ratio",
      "GPU memory in use over the card's memory, 0..1 (the seed's node agent metric).",
      [](const NodeSeries& n, std::size_t i, std::size_t card) -> std::optional<double> {
        if (n.gpu_memory_capacity_bytes <= 0) {
          return std::nullopt;
        }
        return static_cast<double>(n.gpu_memory_used_bytes[i][card]) /
               static_cast<double>(n.gpu_memory_capacity_bytes);
      },
      card_count_mem);
  node_family(out, w, result, "ai_nvlink_competition_index",
              "NVLink-requiring tasks on the node over (GPUs x 2) (the seed's definition).", {},
              [](const NodeSeries& n, std::size_t i) { return n.nvlink_competition_index[i]; });
  if (!options.seed_names) {
    node_family(out, w, result, "ai_storage_await_seconds",
                "Await of the node's data storage device, seconds.", {{"device", "data"}},
                [](const NodeSeries& n, std::size_t i) { return n.storage_await_ms[i] / 1000.0; });
  } else {
    node_family(out, w, result, "ai_storage_await_ms",
                "Await of the node's data storage device, milliseconds (the seed's name).",
                {{"device", "data"}},
                [](const NodeSeries& n, std::size_t i) { return n.storage_await_ms[i]; });
  }

  // tidesim series.
  card_family(
      out, w, result, "tidesim_gpu_utilization_ratio", "Share of time the card computes, 0..1.",
      [](const NodeSeries& n, std::size_t i, std::size_t card) -> std::optional<double> {
        return n.gpu_utilization[i][card];
      },
      card_count_util);
  card_family(
      out, w, result, "tidesim_gpu_memory_used_bytes", "GPU memory in use on the card, bytes.",
      [](const NodeSeries& n, std::size_t i, std::size_t card) -> std::optional<double> {
        return static_cast<double>(n.gpu_memory_used_bytes[i][card]);
      },
      card_count_mem);
  card_family(
      out, w, result, "tidesim_nvlink_utilization_ratio",
      "Share of the card's NVLink bandwidth in use, 0..1.",
      [](const NodeSeries& n, std::size_t i, std::size_t card) -> std::optional<double> {
        return n.nvlink_utilization[i][card];
      },
      card_count_nvlink);
  node_family(out, w, result, "tidesim_node_gpu_utilization_ratio",
              "Mean GPU utilisation of the node's cards, 0..1.", {},
              [](const NodeSeries& n, std::size_t i) -> std::optional<double> {
                const auto& u = n.gpu_utilization[i];
                if (u.empty()) {
                  return std::nullopt;
                }
                double sum = 0.0;
                for (const double x : u) {
                  sum += x;
                }
                return sum / static_cast<double>(u.size());
              });
  node_family(out, w, result, "tidesim_node_gpus_allocated",
              "Device-plugin GPU units allocated on the node.", {},
              [](const NodeSeries& n, std::size_t i) { return n.gpus_allocated[i]; });
  node_family(out, w, result, "tidesim_node_gpus_allocatable",
              "Device-plugin GPU units allocatable on the node.", {},
              [](const NodeSeries& n, std::size_t i) { return n.gpus_allocatable[i]; });
  cluster_family(out, w, result, "tidesim_pending_pods", "gauge", "Pods waiting to be scheduled.",
                 [](const SeedRun& r, std::size_t i) { return r.series->pending_pods[i]; });
  cluster_family(out, w, result, "tidesim_running_jobs", "gauge", "Jobs making progress.",
                 [](const SeedRun& r, std::size_t i) { return r.series->running_jobs[i]; });
  cluster_family(out, w, result, "tidesim_gpu_utilization_stddev_ratio", "gauge",
                 "Population std-dev across nodes of node GPU utilisation, 0..1.",
                 [](const SeedRun& r, std::size_t i) { return r.series->gpu_util_stddev[i]; });
  cluster_family(out, w, result, "tidesim_lscs_ratio", "gauge",
                 "Trailing 5-min mean of the cross-node std-dev of GPU memory utilisation, 0..1.",
                 [](const SeedRun& r, std::size_t i) { return r.series->lscs[i]; });
  // Cumulative counts since the start of the run: counters.
  count_family(out, w, result, "tidesim_oom_kills_total", "GPU OOM kills so far.", "oom_killed");
  count_family(out, w, result, "tidesim_evictions_total", "Pod evictions so far.", "evicted");
  count_family(out, w, result, "tidesim_restarts_total", "Pod restarts so far.", "restarted");
  out << "# EOF\n";
}

}  // namespace tidesim::app
