// `tidesim sweep SWEEP.yaml`: every cell of a sweep (docs/sweeps.md) on a thread pool, one shard of
// them (--shard I/N), the cells of this rank under mpirun, or only the merge of stored cells
// (--merge).
#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "tidesim/sim/engine/time.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/tools/cli/commands.hpp"
#include "tidesim/tools/cli/mpi_session.hpp"
#include "tidesim/tools/cli/options.hpp"
#include "tidesim/tools/lib/progress.hpp"
#include "tidesim/tools/lib/sweep.hpp"
#include "tidesim/tools/lib/sweep_view.hpp"
#include "tidesim/tools/lib/table.hpp"
#include "tidesim/tools/lib/watchdog.hpp"

namespace tidesim::cli {
namespace {

namespace fs = std::filesystem;

struct SweepArgs {
  /// The command line's plugin registry (Context::registry).
  policies::RegistryPtr registry;
  std::string file;
  std::string output;
  int threads = 0;
  std::string shard;
  bool merge_only = false;
  std::string format = "table";
  std::string timeout;
  bool progress = false;
  bool quiet = false;
  bool all_metrics = false;
};

// DIR given, else "<sweep file's name less its extension>.results" in the working folder (where
// the sweep is run, never beside a sweep file that sits in the source tree).
std::string output_dir(const SweepArgs& args) {
  if (!args.output.empty()) {
    return args.output;
  }
  return fs::path(args.file).stem().string() + ".results";
}

// The merged result.json and metrics.csv, each written atomically.
void write_merged(const app::RunResult& merged, const std::string& dir, bool quiet) {
  const auto [path, csv] = app::write_merged(merged, dir);
  if (!quiet) {
    std::cerr << "tidesim: wrote " << path << " and " << csv << "\n";
  }
}

// What a --timeout that cut cells says: the finished cells are stored, and the same command
// resumes from them.
std::string timeout_message(Duration timeout, const app::SweepProgress& done,
                            const std::string& file, const std::string& dir) {
  return fmt::format(
      "--timeout {} reached: {} cell{} ran and {} stored, {} cut or not started; rerun (tidesim "
      "sweep {} --output {}) to resume; no merged result written",
      format_duration(timeout), done.ran, done.ran == 1 ? "" : "s", done.ran == 1 ? "is" : "are",
      done.cut, file, dir);
}

int run_sweep(const SweepArgs& args) {
  const MpiSession mpi;
  if (mpi.active() && !args.shard.empty()) {
    throw InputError(SourceLocation{}, "--shard",
                     "under mpirun the ranks are the shards; leave --shard out");
  }
  app::SweepSpec spec = app::load_sweep(args.file);
  spec.registry = args.registry;
  const app::Shard shard = mpi.active()         ? mpi.shard()
                           : args.shard.empty() ? app::Shard{}
                                                : app::parse_shard(args.shard);
  const std::string dir = output_dir(args);
  const auto format = app::parse_output_format(args.format);
  const std::optional<Duration> timeout = parse_timeout(args.timeout);
  // Bad input fails here, before any cell runs (a merge builds nothing).
  const app::SweepPlan plan = app::plan_sweep(spec, !args.merge_only);
  const std::size_t policies = plan.policies.front().size();
  const std::size_t seeds = plan.scenarios.front().seeds.size();
  if (mpi.root() && !args.quiet) {
    std::cerr << fmt::format(
        "tidesim: sweep {}: {} cells ({} variant{} x {} polic{} x {} seed{}) in {}\n", args.file,
        plan.cells.size(), spec.variants.size(), spec.variants.size() == 1 ? "" : "s", policies,
        policies == 1 ? "y" : "ies", seeds, seeds == 1 ? "" : "s", dir);
  }
  if (mpi.active()) {
    // Every rank runs its cells; an error on one is reported by it, and no rank merges.
    bool ok = true;
    try {
      app::Watchdog watchdog(timeout);
      const auto done =
          app::run_cells(plan, dir, shard, std::max(1, args.threads), nullptr, watchdog.flag());
      if (done.cut > 0) {
        throw std::runtime_error(timeout_message(*timeout, done, args.file, dir));
      }
    } catch (const std::exception& e) {
      std::cerr << fmt::format("tidesim: rank {} failed: {}\n", shard.index, e.what());
      ok = false;
    }
    if (!mpi.all_ok(ok)) {
      return 1;
    }
    if (!mpi.root()) {
      return 0;
    }
  } else if (!args.merge_only) {
    const auto done = app::run_sweep_cells(plan, dir, shard, args.threads,
                                           args.quiet      ? app::ProgressMode::kNever
                                           : args.progress ? app::ProgressMode::kAlways
                                                           : app::ProgressMode::kAuto,
                                           timeout);
    if (done.cut > 0) {
      throw std::runtime_error(timeout_message(*timeout, done, args.file, dir));
    }
    if (!args.quiet) {
      std::cerr << fmt::format("tidesim: {}ran {} cell{}, {} already done\n",
                               args.shard.empty() ? "" : "shard " + args.shard + ": ", done.ran,
                               done.ran == 1 ? "" : "s", done.skipped);
    }
    if (shard.count > 1) {
      const auto missing = app::missing_cells(plan, dir);
      if (!missing.empty()) {
        std::cerr << fmt::format(
            "tidesim: {} cell{} of other shards not done yet; when every shard has finished: "
            "tidesim sweep {} --output {} --merge\n",
            missing.size(), missing.size() == 1 ? "" : "s", args.file, dir);
        return 0;
      }
    }
  }
  const app::RunResult merged = app::merge_cells(plan, dir);
  write_merged(merged, dir, args.quiet);
  if (format == app::OutputFormat::kJson) {
    app::write_result(std::cout, merged);
    std::cout << "\n";
  } else {
    // The policies compared within each variant; the terminal table shows the headline metrics.
    app::TableOptions table;
    table.headline = format == app::OutputFormat::kTable && !args.all_metrics;
    if (const auto view = app::sweep_view(merged)) {
      std::cout << app::render_sweep_comparison(app::build_sweep_comparison(merged, *view, table),
                                                format);
    } else {
      table.no_reference = true;
      std::cout << app::render_comparison(app::build_comparison(merged, table), format);
    }
  }
  return 0;
}

}  // namespace

void add_sweep_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<SweepArgs>();
  auto* cmd = app.add_subcommand(
      "sweep", "Run a scenario over a grid of values, policies and seeds (docs/sweeps.md)");
  cmd->add_option("sweep", args->file, "Sweep file")->required();
  cmd->add_option("-o,--output", args->output,
                  "Folder of the cells' results, the merged result.json and metrics.csv "
                  "(default: the sweep file's name with .results, in the working folder)");
  cmd->add_option("--threads", args->threads,
                  "Cells in parallel (default: the machine's cores; under mpirun 1 per rank); "
                  "results do not depend on it")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--shard", args->shard,
                  "I/N: run only the cells whose index is I modulo N (a Slurm array task); merge "
                  "when every shard is done");
  cmd->add_flag("--merge", args->merge_only, "Only merge the stored cells into result.json");
  cmd->add_option("--timeout", args->timeout,
                  "Wall-clock limit (e.g. 30m): cells still running are cut and not stored, "
                  "finished ones are kept for the next run; exit 1");
  cmd->add_option("--format", args->format, "Output of the merged table: table, json or csv")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  cmd->add_flag("--all-metrics", args->all_metrics,
                "Every metric in the table, not only the headline ones");
  add_progress_flags(*cmd, args->progress, args->quiet);
  cmd->callback([&ctx, args] {
    args->registry = ctx.registry;
    ctx.run = [args] { return run_sweep(*args); };
  });
}

}  // namespace tidesim::cli
