#pragma once
/// Running a sweep (docs/sweeps.md): each cell is one run, stored as its own result in
/// DIR/cells/<cell id>/result.json (written atomically: a temporary file renamed), so a sweep
/// that stopped resumes where it was (finished cells are skipped) and shards or MPI ranks can share
/// the work by cell index. The cells' results merge into one result (DIR/result.json) whose
/// columns are the cells' labels; the merge reads the cells' files in cell order, so it is the
/// same bytes whatever ran them and however many threads, shards or ranks did.
#include <atomic>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tidesim/sim/engine/time.hpp"
#include "tidesim/tools/lib/progress.hpp"
#include "tidesim/tools/lib/result.hpp"
#include "tidesim/tools/lib/sweep_spec.hpp"

namespace tidesim::app {

/// Which cells one process runs: those whose index is `index` modulo `count`.
struct Shard {
  std::size_t index = 0;
  std::size_t count = 1;
  bool operator==(const Shard&) const = default;
};

/// Parses "I/N" (0 <= I < N, N >= 1). Throws InputError naming `field`.
Shard parse_shard(const std::string& text, const std::string& field = "--shard");

/// The result of one cell, as a run of one policy and seed would give (without time series);
/// its provenance records the cell (its index, label and the command that reproduces it).
/// `meter`, when given, follows the run for a progress line (tools/lib/progress.hpp). nullopt
/// when `interrupt` (a --timeout) was raised and cut the run.
std::optional<RunResult> run_cell(const SweepPlan& plan, const SweepCell& cell,
                                  RunMeter* meter = nullptr,
                                  const std::atomic<bool>* interrupt = nullptr);

/// The folder of `cell`'s result under `dir`, and the file.
std::string cell_dir(const std::string& dir, const SweepCell& cell);
std::string cell_result_path(const std::string& dir, const SweepCell& cell);

/// Whether `cell`'s result is stored under `dir`. Throws InputError when the stored result is not
/// this cell's (its provenance differs: another sweep, other inputs or another build).
bool cell_done(const SweepPlan& plan, const SweepCell& cell, const std::string& dir);

/// What run_cells did.
struct SweepProgress {
  std::size_t ran = 0;
  std::size_t skipped = 0;
  /// Cells cut or not started because the interrupt was raised (nothing stored for them).
  std::size_t cut = 0;
};

/// How many cells of `shard` are not done yet under `dir`.
std::size_t cells_to_run(const SweepPlan& plan, const std::string& dir, Shard shard);

/// Runs the cells of `shard` that are not done yet on `threads` threads, writing each one's result
/// as it finishes; `meter`, when given, follows them for a progress line. The first error stops
/// the work and is rethrown. Once `interrupt` is raised (a --timeout), running cells stop between
/// events and no further cell starts; those cells are counted as cut and can be run by the next
/// call.
SweepProgress run_cells(const SweepPlan& plan, const std::string& dir, Shard shard, int threads,
                        RunMeter* meter = nullptr, const std::atomic<bool>* interrupt = nullptr);

/// The local run of a sweep's cells, the one path of `tidesim sweep` (without mpirun) and the
/// Python module's `tidesim.sweep`: the cells of `shard` not done yet under `dir` run on
/// thread_count(`threads`) threads (0: the machine's cores), with the progress line (cells) as
/// `progress` says, cut at `timeout` (absent: none) as run_cells is by its interrupt.
SweepProgress run_sweep_cells(const SweepPlan& plan, const std::string& dir, Shard shard,
                              int threads, ProgressMode progress, std::optional<Duration> timeout);

/// The cells whose results are not stored under `dir`.
std::vector<const SweepCell*> missing_cells(const SweepPlan& plan, const std::string& dir);

/// The merged result of every cell under `dir` (all must be done): runs in cell order, the
/// policies the cells' labels, the sweep's provenance.
RunResult merge_cells(const SweepPlan& plan, const std::string& dir);

/// Writes `result` to `path` atomically (a temporary file in the same folder, then a rename).
void save_result_atomically(const RunResult& result, const std::string& path);

/// The merged sweep's files under `dir`, each written atomically: result.json and metrics.csv
/// (`tidesim sweep` and Python's tidesim.sweep). Returns their paths, in that order.
std::pair<std::string, std::string> write_merged(const RunResult& merged, const std::string& dir);

}  // namespace tidesim::app
