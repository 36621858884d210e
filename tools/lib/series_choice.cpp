#include "tidesim/tools/lib/series_choice.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "tidesim/sim/input/error.hpp"

namespace tidesim::app {

void SeriesChoice::apply(RecorderOptions& options, std::uint64_t seed,
                         std::uint64_t first_seed) const {
  const bool chosen =
      all_seeds || (seeds.empty() ? seed == first_seed
                                  : std::find(seeds.begin(), seeds.end(), seed) != seeds.end());
  options.record_series = scope != SeriesScope::kNone && chosen;
  options.node_series = scope == SeriesScope::kFull;
  options.series_step = step;
}

SeriesChoice parse_series_choice(const std::string& scope, const std::string& step,
                                 const std::vector<std::string>& seeds,
                                 const std::vector<std::uint64_t>& run_seeds) {
  SeriesChoice c;
  if (scope == "none") {
    c.scope = SeriesScope::kNone;
  } else if (scope == "summary") {
    c.scope = SeriesScope::kSummary;
  } else if (scope == "full" || scope.empty()) {
    c.scope = SeriesScope::kFull;
  } else {
    throw InputError(SourceLocation{}, "--series",
                     "'" + scope + "' is not a scope: none, summary or full");
  }
  if (!step.empty()) {
    try {
      c.step = parse_duration(step);
    } catch (const std::invalid_argument& e) {
      throw InputError(SourceLocation{}, "--series-step", e.what());
    }
    if (c.step <= Duration::zero()) {
      throw InputError(SourceLocation{}, "--series-step", "'" + step + "' must be positive");
    }
  }
  for (const auto& text : seeds) {
    if (text == "all") {
      c.all_seeds = true;
      continue;
    }
    std::uint64_t seed = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
      throw InputError(SourceLocation{}, "--series-seed",
                       "'" + text + "' is not a seed number nor 'all'");
    }
    if (std::find(run_seeds.begin(), run_seeds.end(), seed) == run_seeds.end()) {
      std::string list;
      for (const auto s : run_seeds) {
        list += (list.empty() ? "" : ", ") + std::to_string(s);
      }
      throw InputError(SourceLocation{}, "--series-seed",
                       fmt::format("seed {} is not run (the run's seeds: {})", seed, list));
    }
    c.seeds.push_back(seed);
  }
  return c;
}

}  // namespace tidesim::app
