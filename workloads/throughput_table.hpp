#pragma once
/// A throughput table in Gavel's `simulation_throughputs.json` layout (docs/gavel.md, "The
/// throughput table"): per GPU type and per (job type, scale factor), the steps per second of the
/// job alone ("null") and co-located with another job of the same scale factor ([this, other]).
/// Shockwave's `tacc_throughputs.json` has the same layout. Zero means "cannot run there".
#include <compare>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tidesim/sim/input/error.hpp"

namespace tidesim::workloads {

/// A job type at a scale factor (GPUs): Gavel's key "('<job type>', <scale factor>)".
struct JobTypeKey {
  std::string job_type;
  int scale_factor = 1;
  auto operator<=>(const JobTypeKey&) const = default;
};

/// "('ResNet-50 (batch size 64)', 1)" as Gavel writes it (Python's repr of the tuple: the name in
/// single quotes, or double quotes when it holds a single quote); `where` and `field` name the
/// place in errors.
JobTypeKey parse_job_type_key(std::string_view text, const SourceLocation& where,
                              const std::string& field);
/// The key as Gavel writes it.
std::string format_job_type_key(const JobTypeKey& key);

/// Steps per second of two co-located jobs: this one's and the other one's.
struct ColocatedThroughput {
  double self = 0.0;
  double other = 0.0;
};

/// One (GPU type, job key) cell.
struct ThroughputEntry {
  /// Steps per second alone (Gavel's "null").
  double isolated = 0.0;
  /// Co-located with another job key, as written.
  std::map<JobTypeKey, ColocatedThroughput> colocated;
};

class ThroughputTable {
 public:
  /// Adds or replaces a cell.
  void set(const std::string& gpu_type, const JobTypeKey& key, ThroughputEntry entry);

  /// The GPU types, sorted by name (Gavel's `*_unconsolidated` types included when written).
  std::vector<std::string> gpu_types() const;
  /// The job keys of one GPU type, sorted; empty for an unknown type.
  std::vector<JobTypeKey> keys(const std::string& gpu_type) const;
  /// The cell, or null when the table has none.
  const ThroughputEntry* find(const std::string& gpu_type, const JobTypeKey& key) const;
  /// Steps per second alone; nullopt when the table has no such cell.
  std::optional<double> isolated(const std::string& gpu_type, const JobTypeKey& key) const;
  /// Steps per second of `key` co-located with `other` on `gpu_type`; nullopt when not written.
  std::optional<ColocatedThroughput> colocated(const std::string& gpu_type, const JobTypeKey& key,
                                               const JobTypeKey& other) const;
  /// Steps per second alone on each of `gpu_types`, in their order. InputError at `where` naming
  /// `field` when a type or the key is missing, or when every throughput is zero (the job could
  /// run nowhere).
  std::vector<double> isolated_row(const JobTypeKey& key, const std::vector<std::string>& gpu_types,
                                   const SourceLocation& where, const std::string& field) const;

  /// The file the table was read from ("" when built in memory).
  std::string file;

 private:
  std::map<std::string, std::map<JobTypeKey, ThroughputEntry>> cells_;
};

/// Reads a table from JSON text (`name` is the file name in errors). InputError with the file,
/// line, column and field for a syntax error, a key that is not a job key, a value that is not a
/// finite non-negative number (or [x, y] of them), a missing "null" entry, or no GPU type.
ThroughputTable parse_throughput_table(const std::string& text, const std::string& name);
/// Reads the file at `path` (sim/input's read_text_file bounds).
ThroughputTable read_throughput_table(const std::string& path);

}  // namespace tidesim::workloads
