#pragma once
/// Validators and checks shared by the subcommands' options (tools/cli/options.cpp).
#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "tidesim/sim/engine/time.hpp"

namespace tidesim::cli {

/// Accepts a non-negative decimal integer that fits 64 bits; refuses "-1" (which CLI11 would
/// otherwise wrap to 18446744073709551615), signs, spaces and other text.
const CLI::Validator& non_negative_integer();

/// The closest subcommand of `app` to `word` (edit distance at most 2, or `word` a prefix of
/// exactly one), or "" when none is close.
std::string closest_subcommand(const CLI::App& app, const std::string& word);

/// When the first argument is not an option nor a subcommand of `app`, prints "unknown command
/// 'X'" (with the closest subcommand, if any) on stderr and returns 2; else returns 0.
int refuse_unknown_command(const CLI::App& app, int argc, char** argv);

/// The value of --timeout (a positive duration, e.g. 90s or 2h); nullopt when `text` is empty.
/// Throws InputError naming --timeout otherwise.
std::optional<Duration> parse_timeout(const std::string& text);

/// --progress (show the progress line on stderr even when it is not a terminal: plain lines, the
/// last one when the work ends) and -q/--quiet (no progress line, no notes such as "wrote ...";
/// warnings and errors still print); the two exclude each other.
void add_progress_flags(CLI::App& cmd, bool& progress, bool& quiet);

}  // namespace tidesim::cli
