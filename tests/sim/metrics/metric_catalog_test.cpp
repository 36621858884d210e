// The metric catalogue against the names its families are built from, the metrics whole runs of
// shipped scenarios emit, and the metrics docs/metrics.md documents.
#include <gtest/gtest.h>

#include <algorithm>

#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "tidesim/sim/experiments/collector_options.hpp"
#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/sim/metrics/catalog.hpp"
#include "tidesim/sim/metrics/metric_names.hpp"
#include "tidesim/sim/metrics/standard_collectors.hpp"
#include "tidesim/sim/scenario/scenario.hpp"
#include "tidesim/sim/scenario/scenario_override.hpp"

namespace tidesim::metrics {
namespace {

std::set<std::string> catalogue_names() {
  std::set<std::string> names;
  for (const MetricInfo& info : metric_catalog()) {
    names.emplace(info.name);
  }
  return names;
}

bool in_interruption_family(std::string_view name) {
  for (const std::string_view cause : kInterruptionCauses) {
    if (name == interruptions_metric(cause) || name == jobs_interrupted_metric(cause)) {
      return true;
    }
  }
  return false;
}

bool in_forecast_family(std::string_view name) {
  return name.starts_with("forecast_");
}

TEST(MetricNames, FamiliesAreBuiltFromTheirFactors) {
  EXPECT_EQ(interruptions_metric("card_failure"), "interruptions_card_failure");
  EXPECT_EQ(jobs_interrupted_metric("drain"), "jobs_interrupted_drain");
  // The predictor's '-' becomes '_'.
  EXPECT_EQ(forecast_stem("job-aware"), "job_aware");
  EXPECT_EQ(forecast_metric("job-aware", "io_await", ForecastScore::kMape),
            "forecast_job_aware_io_await_mape");
  EXPECT_EQ(forecast_metric("last", "gpu_util", ForecastScore::kMae), "forecast_last_gpu_util_mae");
  EXPECT_EQ(per_queue_metric("queue_wait_p99_s", "team-a"), "queue_wait_p99_s/team-a");
  EXPECT_EQ(per_queue_base("queue_wait_p99_s/team-a"), "queue_wait_p99_s");
  EXPECT_EQ(per_queue_base("goodput"), "goodput");
}

TEST(Catalog, NamesAreUniqueAndFamiliesComplete) {
  const auto catalogue = metric_catalog();
  EXPECT_EQ(catalogue_names().size(), catalogue.size());
  // Both counts of every cause, each right after its family's total.
  for (const std::string_view cause : kInterruptionCauses) {
    const MetricInfo* attempts = find_metric(interruptions_metric(cause));
    const MetricInfo* jobs = find_metric(jobs_interrupted_metric(cause));
    ASSERT_NE(attempts, nullptr) << cause;
    ASSERT_NE(jobs, nullptr) << cause;
    EXPECT_EQ(attempts->unit, Unit::kCount);
    EXPECT_EQ(jobs->unit, Unit::kCount);
  }
  const MetricInfo* total = find_metric("interruptions");
  ASSERT_NE(total, nullptr);
  for (std::size_t i = 0; i < kInterruptionCauses.size(); ++i) {
    EXPECT_EQ(total[1 + i].name, interruptions_metric(kInterruptionCauses[i]));
  }
  // Forecasts: 5 predictors x 4 quantities x MAE and MAPE; every MAPE is a ratio.
  int forecasts = 0;
  for (const MetricInfo& info : catalogue) {
    if (in_forecast_family(info.name)) {
      ++forecasts;
      if (info.name.ends_with("_mape")) {
        EXPECT_EQ(info.unit, Unit::kRatio) << info.name;
      }
    }
  }
  EXPECT_EQ(forecasts, 5 * 4 * 2);
  // A per-queue name is its metric's entry; an unknown metric stays unknown behind a queue.
  EXPECT_EQ(find_metric("queue_admitted/team-a"), find_metric("queue_admitted"));
  EXPECT_EQ(find_metric("no_such_metric/team-a"), nullptr);
}

// Every metric one run of the shipped scenario `file` emits: its first policy and first seed,
// every collector attached as `tidesim run` attaches them (forecasts and quota events too).
MetricValues run_metrics(
    const std::string& file, const std::function<void(ConfigNode&)>& edit = [](ConfigNode&) {},
    std::size_t policy = 0) {
  const Scenario s = load_scenario(std::string(TIDESIM_SOURCE_DIR) + "/scenarios/" + file, edit);
  const std::uint64_t seed = s.seeds.front();
  const Workload w = make_jobs(s, seed);
  RunSignals signals;
  StandardCollectors c(collector_options(s));
  c.attach(signals);
  signals.forecast.connect([&](const LoadForecastBatch& b) { c.on_forecast(b); });
  signals.quota.connect([&](const QuotaEvent& e) { c.on_quota(e); });
  signals.topology.connect([&](const TopologyEvent& e) { c.on_topology(e); });
  const RunSummary r = run_policy(s, w, s.policies.at(policy), seed, signals);
  MetricValues m;
  c.finish(r.end, m);
  m.insert(r.policy_metrics.begin(), r.policy_metrics.end());  // as tidesim run adds them
  return m;
}

TEST(Catalog, MatchesTheMetricsOfShippedScenarios) {
  // Between them these runs reach every section of the catalogue: the seed's cluster with load
  // prediction (the five predictors scored), a descheduler that migrates (the interruption
  // family and the migration costs), queues with quotas (the per-queue metrics), and gangs
  // with preemption, and LLM jobs on a fabric (the placement metrics).
  std::map<std::string, MetricValues> runs;
  runs["prediction.yaml"] = run_metrics("prediction.yaml");
  runs["descheduling.yaml"] = run_metrics("descheduling.yaml");
  runs["teams-quotas.yaml"] = run_metrics("teams-quotas.yaml");
  runs["gangs-and-priorities.yaml"] = run_metrics("gangs-and-priorities.yaml");
  // With a third tier above the spines (the fabric's per-tier metrics go up to tier 2).
  runs["llm-fabric.yaml"] = run_metrics("llm-fabric.yaml", [](ConfigNode& root) {
    apply_override(root, parse_override("cluster.fabric.tiers=[{name: leaf, nodes: 2}, {name: "
                                        "spine, nodes: 4, oversubscription: 7}, {name: core, "
                                        "nodes: 8, oversubscription: 2}]"));
  });
  // Gangs under failures by component (faults.gang): Llama 3 405B's 16,384-GPU job, and the
  // LLM scenario's small gangs with a faulty-GPU rate high enough to interrupt them.
  // Three days of the 54 (each interruption stops and restarts the 2,048-pod job in the run).
  runs["llama3-405b-failures.yaml"] =
      run_metrics("llama3-405b-failures.yaml",
                  [](ConfigNode& root) { apply_override(root, parse_override("run.until=3d")); });
  runs["llm-fabric.yaml, faults.gang"] = run_metrics("llm-fabric.yaml", [](ConfigNode& root) {
    apply_override(root, parse_override("faults={gang: {components: {faulty_gpu: {rate: 0.05}}}}"));
  });
  // Kueue's topology-aware scheduling in a run (the tas_ metrics).
  runs["topology-llm-required.yaml"] = run_metrics(
      "study/topology-llm-required.yaml", [](ConfigNode&) {}, 1);  // kueue-tas-required

  // Gavel's rounds (the lease metrics) on the two jobs of a small trace and table of the tests,
  // under min_total_duration (the scenario's second policy: Shockwave, the first, plans the
  // epochs of Shockwave's own trace rows, which this small Gavel-layout trace has not).
  runs["shockwave-tacc-32gpus.yaml, small trace"] = run_metrics(
      "shockwave-tacc-32gpus.yaml",
      [](ConfigNode& root) {
        const std::string data = std::string(TIDESIM_SOURCE_DIR) + "/tests/workloads/data/gavel/";
        apply_override(root,
                       parse_override("workload.gavel.trace=" + data + "physical_small.trace"));
        apply_override(
            root, parse_override("workload.gavel.throughputs=" + data + "throughputs_small.json"));
        apply_override(root, parse_override("workload.gavel.gpu_types={V100-SXM2-16: fast}"));
      },
      1);
  std::set<std::string> emitted;
  for (const auto& [file, metrics] : runs) {
    for (const auto& [name, value] : metrics) {
      const MetricInfo* info = find_metric(name);
      EXPECT_NE(info, nullptr) << file << ": " << name;
      if (name.find('/') != std::string::npos) {
        // Only the queue metrics come per ClusterQueue, the topology ones per tier or level.
        EXPECT_TRUE(info == nullptr || info->name.starts_with("quota_") ||
                    info->name.starts_with("queue_") || info->name.starts_with("stranded_") ||
                    info->name.starts_with("tas_span"))
            << name;
      }
      emitted.emplace(per_queue_base(name));
    }
  }
  for (const std::string& name : catalogue_names()) {
    EXPECT_TRUE(emitted.contains(name)) << name << " is catalogued but no run emitted it";
  }
  // A run with prediction emits the whole forecast family: the catalogue's predictors are the
  // ones a run scores.
  std::set<std::string> forecasts;
  for (const auto& [name, value] : runs["prediction.yaml"]) {
    if (in_forecast_family(name)) {
      forecasts.insert(name);
    }
  }
  std::set<std::string> catalogued;
  for (const std::string& name : catalogue_names()) {
    if (in_forecast_family(name)) {
      catalogued.insert(name);
    }
  }
  EXPECT_EQ(forecasts, catalogued);
}

std::string read_doc(const std::string& relative) {
  std::ifstream in(std::string(TIDESIM_SOURCE_DIR) + "/" + relative);
  EXPECT_TRUE(in) << relative;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The text of the section titled `title` ("## <title>" to the next "## ").
std::string section(const std::string& doc, const std::string& title) {
  const auto start = doc.find("\n## " + title);
  if (start == std::string::npos) {
    ADD_FAILURE() << "no section " << title;
    return "";
  }
  const auto end = doc.find("\n## ", start + 1);
  return doc.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

std::vector<std::string> split_cells(const std::string& row) {
  std::vector<std::string> cells;
  std::string cell;
  for (std::size_t i = 1; i < row.size(); ++i) {  // row[0] is the leading '|'
    if (row[i] == '|') {
      cells.push_back(cell);
      cell.clear();
    } else {
      cell += row[i];
    }
  }
  return cells;
}

// The backquoted words of `text` ("`a`, `b`" -> a, b).
std::vector<std::string> quoted(const std::string& text) {
  std::vector<std::string> words;
  for (auto open = text.find('`'); open != std::string::npos; open = text.find('`', open + 1)) {
    const auto close = text.find('`', open + 1);
    if (close == std::string::npos) {
      break;
    }
    words.push_back(text.substr(open + 1, close - open - 1));
    open = close;
  }
  return words;
}

TEST(Catalog, DocTablesNameCataloguedMetrics) {
  const std::string doc = read_doc("docs/metrics.md");
  std::istringstream lines(doc);
  std::vector<std::string> header;
  int rows = 0;
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("|")) {
      header.clear();
      continue;
    }
    const auto cells = split_cells(line);
    if (header.empty()) {
      header = cells;
      continue;
    }
    if (cells.empty() || cells[0].starts_with("---") || header[0] != " name ") {
      continue;
    }
    // A metrics table: its first column names catalogued metrics, its "better" column (where it
    // has one) gives each one's direction.
    const auto names = quoted(cells[0]);
    EXPECT_FALSE(names.empty()) << line;
    for (const std::string& name : names) {
      const MetricInfo* info = find_metric(name);
      ASSERT_NE(info, nullptr) << "docs/metrics.md table row " << name;
      EXPECT_EQ(info->name, name);
      for (std::size_t c = 1; c < header.size() && c < cells.size(); ++c) {
        if (header[c] == " better ") {
          EXPECT_EQ(" " + std::string(to_string(info->direction)) + " ", cells[c]) << name;
        }
      }
      ++rows;
    }
  }
  // The seed's four, the other readings (8), LSCS (5), NVLink variance (4), job timing (7),
  // SLOs (3), finish-time fairness (5), cluster state (4) and fragmentation (2).
  EXPECT_EQ(rows, 4 + 8 + 5 + 4 + 7 + 3 + 5 + 4 + 2);
}

TEST(Catalog, EveryCataloguedMetricIsDocumented) {
  const std::string doc = read_doc("docs/metrics.md");
  std::set<std::string> words;
  for (const std::string& w : quoted(doc)) {
    words.insert(w);
  }
  // Families are documented by their pattern and the values of its factors.
  const std::string interruptions = section(doc, "Interruptions");
  const auto interruption_words = quoted(interruptions);
  const std::set<std::string> interruption_set(interruption_words.begin(),
                                               interruption_words.end());
  EXPECT_TRUE(interruption_set.contains("interruptions_<cause>"));
  EXPECT_TRUE(interruption_set.contains("jobs_interrupted_<cause>"));
  for (const std::string_view cause : kInterruptionCauses) {
    EXPECT_TRUE(interruption_set.contains(std::string(cause))) << cause;
  }
  // The gangs' interruptions by component: interruptions_<component>, each component named.
  const auto gang_words = quoted(section(doc, "Gangs under failures"));
  const std::set<std::string> gang_set(gang_words.begin(), gang_words.end());
  EXPECT_TRUE(gang_set.contains("interruptions_<component>"));
  for (const std::string_view component : kFailureComponents) {
    EXPECT_TRUE(gang_set.contains(std::string(component))) << component;
  }
  const std::string forecasts = section(doc, "Load prediction accuracy");
  const auto forecast_words = quoted(forecasts);
  const std::set<std::string> forecast_set(forecast_words.begin(), forecast_words.end());
  EXPECT_TRUE(forecast_set.contains("forecast_<model>_<quantity>_mae"));
  EXPECT_TRUE(forecast_set.contains("_mape"));
  for (const std::string_view quantity : kForecastQuantities) {
    EXPECT_TRUE(forecast_set.contains(std::string(quantity))) << quantity;
  }
  int documented_forecasts = 0;
  for (const MetricInfo& info : metric_catalog()) {
    const std::string name(info.name);
    if (in_interruption_family(name) ||
        std::any_of(kFailureComponents.begin(), kFailureComponents.end(),
                    [&name](std::string_view c) { return name == interruptions_metric(c); })) {
      continue;  // checked above
    }
    if (in_forecast_family(name)) {
      // forecast_<model>_<quantity>_<score>: the model must be one the section lists.
      for (const std::string_view quantity : kForecastQuantities) {
        for (const auto score : {ForecastScore::kMae, ForecastScore::kMape}) {
          for (const std::string& model : forecast_set) {
            if (name == forecast_metric(model, quantity, score)) {
              ++documented_forecasts;
            }
          }
        }
      }
      continue;
    }
    // Per-queue metrics are written "`<metric>/q`" or "`<metric>/<q>`", per tier or level
    // "`<metric>/<tier>`", "`<metric>/<level>`".
    EXPECT_TRUE(words.contains(name) || words.contains(name + "/q") ||
                words.contains(name + "/<q>") || words.contains(name + "/<tier>") ||
                words.contains(name + "/<level>"))
        << name << " is not in docs/metrics.md";
  }
  EXPECT_EQ(documented_forecasts, 5 * 4 * 2);
}

}  // namespace
}  // namespace tidesim::metrics
