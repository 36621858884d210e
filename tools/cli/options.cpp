#include "tidesim/tools/cli/options.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "tidesim/sim/input/did_you_mean.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/tools/lib/run_arguments.hpp"

namespace tidesim::cli {
const CLI::Validator& non_negative_integer() {
  static const CLI::Validator v(
      [](std::string& text) -> std::string {
        try {
          (void)app::parse_seed(text);  // the words of tidesim.run(seeds=...) too
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
        return {};
      },
      "UINT64");
  return v;
}

std::string closest_subcommand(const CLI::App& app, const std::string& word) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    names.push_back(sub->get_name());
  }
  return closest_name(word, names);
}

int refuse_unknown_command(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') {
    return 0;
  }
  const std::string word = argv[1];
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name() == word) {
      return 0;
    }
  }
  const std::string close = closest_subcommand(app, word);
  fmt::print(stderr, "tidesim: error: unknown command '{}'{}; `tidesim --help` lists them\n", word,
             close.empty() ? "" : fmt::format(" (did you mean '{}'?)", close));
  return 2;
}

std::optional<Duration> parse_timeout(const std::string& text) {
  if (text.empty()) {
    return std::nullopt;
  }
  Duration d{};
  try {
    d = parse_duration(text);
  } catch (const std::invalid_argument& e) {
    throw InputError(SourceLocation{}, "--timeout", e.what());
  }
  if (d <= Duration::zero()) {
    throw InputError(SourceLocation{}, "--timeout", "'" + text + "' must be positive");
  }
  return d;
}

void add_progress_flags(CLI::App& cmd, bool& progress, bool& quiet) {
  auto* p = cmd.add_flag("--progress", progress,
                         "Show progress on stderr even when it is not a terminal (by default it "
                         "shows only on a terminal)");
  auto* q = cmd.add_flag("-q,--quiet", quiet, "No progress line and no notes on stderr");
  p->excludes(q);
}

}  // namespace tidesim::cli
