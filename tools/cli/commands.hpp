#pragma once
/// Subcommands of the `tidesim` CLI. Each add_*_command registers its subcommand on `app` and, when
/// that subcommand is chosen, stores what to run in `ctx.run`. Exit codes: 0 success, 1 runtime
/// failure (or a failed check), 2 bad input or usage.
#include <CLI/CLI.hpp>

#include <functional>

namespace tidesim::cli {

struct Context {
  /// Set by the chosen subcommand's callback; returns the exit code.
  std::function<int()> run;
};

void add_run_command(CLI::App& app, Context& ctx);
void add_validate_command(CLI::App& app, Context& ctx);

}  // namespace tidesim::cli
