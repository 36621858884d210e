#pragma once
/// Which time series a run records for `tidesim run --output` (docs/outputs.md, "Choosing the
/// series"): their scope (none, the cluster-level summary, or every node and card too), a
/// sampling step, and the seeds that record them. Metrics are computed from every sample
/// whatever is chosen here: only what is stored changes.
#include <cstdint>
#include <string>
#include <vector>

#include "tidesim/sim/engine/time.hpp"
#include "tidesim/tools/lib/result.hpp"

namespace tidesim::app {

/// What the recorded series hold.
enum class SeriesScope {
  kNone,     // no time series
  kSummary,  // the cluster-level series (pending pods, running jobs, std-dev, LSCS)
  kFull,     // and every node's and card's series (change points)
};

/// The series a run records.
struct SeriesChoice {
  SeriesScope scope = SeriesScope::kFull;
  /// Keep one sample per step (the first sample at or after each multiple of it); zero: every
  /// sample of run.sample_interval.
  Duration step{0};
  /// The seeds whose runs record series; empty: the first seed of the run.
  std::vector<std::uint64_t> seeds;
  bool all_seeds = false;

  /// Sets `options` for the run of `seed` (`first_seed`: the run's first seed).
  void apply(RecorderOptions& options, std::uint64_t seed, std::uint64_t first_seed) const;
};

/// Reads the command line's choice: `scope` "none", "summary" or "full" (--series); `step` a
/// duration ("1h"; --series-step; "" for every sample); `seeds` seed numbers or "all"
/// (--series-seed), each one of `run_seeds`. Throws InputError naming the flag and the value.
SeriesChoice parse_series_choice(const std::string& scope, const std::string& step,
                                 const std::vector<std::string>& seeds,
                                 const std::vector<std::uint64_t>& run_seeds);

}  // namespace tidesim::app
