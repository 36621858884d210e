#include "tidesim/tools/cli/options.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "tidesim/sim/input/error.hpp"

namespace tidesim::cli {
namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) {
    row[j] = j;
  }
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

const CLI::Validator& non_negative_integer() {
  static const CLI::Validator v(
      [](std::string& text) -> std::string {
        std::uint64_t value = 0;
        const char* end = text.data() + text.size();
        const auto [p, ec] = std::from_chars(text.data(), end, value);
        if (text.empty() || ec != std::errc() || p != end) {
          return "'" + text + "' is not a non-negative integer below 2^64";
        }
        return {};
      },
      "UINT64");
  return v;
}

std::string closest_subcommand(const CLI::App& app, const std::string& word) {
  std::string best;
  std::size_t best_distance = 3;
  std::vector<std::string> prefixed;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    const std::string& name = sub->get_name();
    if (name.starts_with(word)) {
      prefixed.push_back(name);
    }
    const std::size_t d = edit_distance(word, name);
    if (d < best_distance) {
      best_distance = d;
      best = name;
    }
  }
  if (best.empty() && prefixed.size() == 1) {
    best = prefixed.front();
  }
  return best;
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
