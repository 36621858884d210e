#include "tidesim/tools/lib/sweep.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "tidesim/sim/engine/parallel.hpp"
#include "tidesim/sim/experiments/collector_options.hpp"
#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/tools/lib/headline_metrics.hpp"
#include "tidesim/tools/lib/provenance.hpp"
#include "tidesim/tools/lib/sweep_view.hpp"
#include "tidesim/tools/lib/watchdog.hpp"
#include "tidesim/version.hpp"

namespace tidesim::app {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// The provenance a cell's result carries: that of `tidesim run` with the cell's policy, seed and
// overrides, plus the cell itself.
json cell_provenance(const SweepPlan& plan, const SweepCell& cell) {
  ProvenanceInput input;
  input.command = cell_command(plan, cell);
  for (const auto& o : cell_overrides(plan, cell)) {
    input.overrides.push_back(o.text());
  }
  json p = make_provenance(plan.scenarios[cell.variant], {cell.policy}, {cell.seed}, input);
  p["cell"] = {{"sweep", plan.spec.path},
               {"index", cell.index},
               {"id", cell.id},
               {"label", cell.label},
               {"variant", plan.spec.variants[cell.variant].label}};
  return p;
}

// The first key at which two JSON objects differ, for an error message.
std::string first_difference(const json& a, const json& b) {
  for (const auto& [key, value] : a.items()) {
    if (!b.contains(key) || b.at(key) != value) {
      return key;
    }
  }
  for (const auto& [key, value] : b.items()) {
    if (!a.contains(key)) {
      return key;
    }
  }
  return "";
}

}  // namespace

Shard parse_shard(const std::string& text, const std::string& field) {
  const auto slash = text.find('/');
  Shard s;
  auto number = [&](std::string_view part, std::size_t& out) {
    const auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), out);
    return !part.empty() && ec == std::errc() && p == part.data() + part.size();
  };
  const std::string_view all(text);
  if (slash == std::string::npos || !number(all.substr(0, slash), s.index) ||
      !number(all.substr(slash + 1), s.count) || s.count == 0 || s.index >= s.count) {
    throw InputError(SourceLocation{}, field,
                     "expected I/N with 0 <= I < N (e.g. 0/2 and 1/2 for two halves; with a Slurm "
                     "array, $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT), got '" +
                         text + "'");
  }
  return s;
}

std::optional<RunResult> run_cell(const SweepPlan& plan, const SweepCell& cell, RunMeter* meter,
                                  const std::atomic<bool>* interrupt) {
  const Scenario& s = plan.scenarios[cell.variant];
  const Workload jobs = make_jobs(s, cell.seed);
  RecorderOptions options;
  options.record_series = false;  // a sweep compares metrics; `tidesim run --output` has series
  options.collectors = collector_options(s);
  Recorder recorder(cell.label, cell.seed, options);
  RunSignals signals;
  recorder.attach(signals);
  std::optional<RunProbe> probe;
  if (meter != nullptr) {
    probe.emplace(*meter, jobs.jobs.size(), to_seconds(TimePoint(s.run.until)));
    probe->attach(signals);
  }
  const RunSummary summary = run_policy(s, jobs, cell.policy, cell.seed, signals, interrupt,
                                        meter != nullptr ? &meter->events : nullptr);
  if (probe) {
    probe->finish();
  }
  if (summary.interrupted) {
    return std::nullopt;
  }
  RunResult result;
  result.metadata = make_metadata(s.name, s.path, s.hash, {cell.seed}, {cell.label});
  result.metadata.provenance = cell_provenance(plan, cell);
  result.runs.push_back(recorder.finish(summary.end));
  result.runs.back().metrics.insert(summary.policy_metrics.begin(), summary.policy_metrics.end());
  return result;
}

std::string cell_dir(const std::string& dir, const SweepCell& cell) {
  return (fs::path(dir) / "cells" / cell.id).string();
}

std::string cell_result_path(const std::string& dir, const SweepCell& cell) {
  return (fs::path(cell_dir(dir, cell)) / "result.json").string();
}

bool cell_done(const SweepPlan& plan, const SweepCell& cell, const std::string& dir) {
  const std::string path = cell_result_path(dir, cell);
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    return false;
  }
  const RunResult stored = load_result(path);
  const json expected = cell_provenance(plan, cell);
  if (!stored.metadata.provenance || *stored.metadata.provenance != expected) {
    const std::string key =
        stored.metadata.provenance ? first_difference(*stored.metadata.provenance, expected) : "";
    throw InputError(SourceLocation{path, 0, 0},
                     "metadata.provenance" + (key.empty() ? "" : "." + key),
                     "this cell's stored result comes from another sweep, other inputs or another "
                     "build; remove " +
                         cell_dir(dir, cell) +
                         " (or the whole folder) to run it again, or choose another output folder");
  }
  return true;
}

SweepProgress run_sweep_cells(const SweepPlan& plan, const std::string& dir, Shard shard,
                              int threads, ProgressMode progress, std::optional<Duration> timeout) {
  // The progress line (stderr; docs/outputs.md): cells done, simulated time, events/s, ETA.
  const std::size_t todo = cells_to_run(plan, dir, shard);
  RunMeter meter;
  auto reporter = ProgressReporter::for_stderr(progress);
  ProgressTicker ticker(reporter, "cells", [&meter, todo] { return meter.snapshot(todo); });
  Watchdog watchdog(timeout);
  const auto done = run_cells(plan, dir, shard, thread_count(threads), &meter, watchdog.flag());
  watchdog.stop();
  ticker.stop();
  return done;
}

std::vector<const SweepCell*> missing_cells(const SweepPlan& plan, const std::string& dir) {
  std::vector<const SweepCell*> out;
  for (const auto& cell : plan.cells) {
    if (!cell_done(plan, cell, dir)) {
      out.push_back(&cell);
    }
  }
  return out;
}

namespace {

// Writes the file `path` atomically: `write` fills a temporary file beside it (its name given),
// which then replaces `path`. The pid keeps two processes that were (wrongly) given one file from
// writing one temporary file.
void write_atomically(const std::string& path,
                      const std::function<void(const std::string&)>& write) {
  const fs::path target(path);
  fs::create_directories(target.parent_path());
  const fs::path tmp = target.string() + fmt::format(".tmp{}", static_cast<long>(::getpid()));
  write(tmp.string());
  fs::rename(tmp, target);
}

}  // namespace

void save_result_atomically(const RunResult& result, const std::string& path) {
  write_atomically(path, [&result](const std::string& tmp) { save_result(result, tmp); });
}

std::pair<std::string, std::string> write_merged(const RunResult& merged, const std::string& dir) {
  const std::string json = (fs::path(dir) / "result.json").string();
  save_result_atomically(merged, json);
  const std::string csv = (fs::path(dir) / "metrics.csv").string();
  write_atomically(csv, [&merged](const std::string& tmp) {
    std::ofstream out(tmp);
    write_metrics_csv(out, merged);
    if (!out) {
      throw std::runtime_error("failed writing " + tmp);
    }
  });
  return {json, csv};
}

std::size_t cells_to_run(const SweepPlan& plan, const std::string& dir, Shard shard) {
  std::size_t n = 0;
  for (const auto& cell : plan.cells) {
    n += cell.index % shard.count == shard.index && !cell_done(plan, cell, dir);
  }
  return n;
}

SweepProgress run_cells(const SweepPlan& plan, const std::string& dir, Shard shard, int threads,
                        RunMeter* meter, const std::atomic<bool>* interrupt) {
  std::vector<const SweepCell*> todo;
  SweepProgress progress;
  for (const auto& cell : plan.cells) {
    if (cell.index % shard.count != shard.index) {
      continue;
    }
    if (cell_done(plan, cell, dir)) {
      ++progress.skipped;
    } else {
      todo.push_back(&cell);
    }
  }
  std::atomic<std::size_t> done{0};
  std::atomic<std::size_t> cut{0};
  parallel_for(todo.size(), threads, [&](std::size_t k) {
    if (interrupt != nullptr && interrupt->load()) {
      ++cut;  // no cell starts after the deadline
      return;
    }
    const auto result = run_cell(plan, *todo[k], meter, interrupt);
    if (!result) {
      ++cut;
      return;
    }
    save_result_atomically(*result, cell_result_path(dir, *todo[k]));
    ++done;
  });
  progress.ran = done;
  progress.cut = cut;
  return progress;
}

RunResult merge_cells(const SweepPlan& plan, const std::string& dir) {
  const auto missing = missing_cells(plan, dir);
  if (!missing.empty()) {
    throw std::runtime_error(fmt::format(
        "{} of {} cells have no result yet under {} (the first: {}); run the sweep (or its "
        "remaining shards) first",
        missing.size(), plan.cells.size(), dir, missing.front()->id));
  }
  RunResult merged;
  std::vector<std::uint64_t> seeds;
  std::vector<std::string> labels;
  for (const auto& cell : plan.cells) {
    RunResult r = load_result(cell_result_path(dir, cell));
    if (std::find(labels.begin(), labels.end(), cell.label) == labels.end()) {
      labels.push_back(cell.label);
    }
    if (std::find(seeds.begin(), seeds.end(), cell.seed) == seeds.end()) {
      seeds.push_back(cell.seed);
    }
    for (auto& run : r.runs) {
      merged.runs.push_back(std::move(run));
    }
  }
  const Scenario& s = plan.scenarios.front();
  merged.metadata = make_metadata(s.name, s.path, s.hash, seeds, labels);
  merged.metadata.headline_metrics = study_headline_metrics(s, plan.policies.front());
  ProvenanceInput input;
  input.command = shell_command({"tidesim", "sweep", plan.spec.path});
  for (const auto& o : plan.spec.common) {
    input.overrides.push_back(o.text());
  }
  json p = make_provenance(s, plan.policies.front(), seeds, input);
  json variants = json::array();
  for (const auto& v : plan.spec.variants) {
    json overrides = json::array();
    for (const auto& o : v.overrides) {
      overrides.push_back(o.text());
    }
    variants.push_back({{"label", v.label}, {"overrides", std::move(overrides)}});
  }
  p["sweep"] = {{"path", plan.spec.path},
                {"sha256", file_sha256(plan.spec.path)},
                {"variants", std::move(variants)},
                {"cells", plan.cells.size()}};
  if (!plan.spec.columns.empty()) {
    p["sweep"]["columns"] = plan.spec.columns;
  }
  merged.metadata.provenance = std::move(p);
  return merged;
}

}  // namespace tidesim::app
