#pragma once
/// Subcommands of the `tidesim` CLI. Each add_*_command registers its subcommand on `app` and, when
/// that subcommand is chosen, stores what to run in `ctx.run`. Exit codes: 0 success, 1 runtime
/// failure (or a failed check), 2 bad input or usage.
#include <CLI/CLI.hpp>

#include <functional>
#include <string>

#include "tidesim/policies/registry.hpp"

namespace tidesim::cli {

struct Context {
  /// The plugin registry the commands load profiles with (run_command_line builds it: the
  /// built-ins plus the program's plugins). Never null once run_command_line set it.
  policies::RegistryPtr registry;
  /// Set by the chosen subcommand's callback; returns the exit code.
  std::function<int()> run;
  /// The input file the chosen subcommand reads (its positional argument), set by its callback:
  /// main names it in the message of a parse exception that escaped without its file.
  std::string input;
};

void add_run_command(CLI::App& app, Context& ctx);
void add_validate_command(CLI::App& app, Context& ctx);
/// `tidesim topo FILE|PRESET [--format table|json] [--gpu MODEL]` (tools/cli/cmd_topo.cpp).
void add_topo_command(CLI::App& app, Context& ctx);
/// `tidesim admit SNAPSHOT WORKLOAD [--format table|json] [--feature-gates ...] [--flavor NAME]`
/// (tools/cli/cmd_admit.cpp).
void add_admit_command(CLI::App& app, Context& ctx);
/// `tidesim llm JOB.yaml | --model M.json --execution E.json --system S.json [--format table|json]`
/// (tools/cli/cmd_llm.cpp).
void add_llm_command(CLI::App& app, Context& ctx);
/// `tidesim trace stats FILE` and `tidesim trace convert IN OUT` (tools/cli/cmd_trace.cpp).
void add_trace_command(CLI::App& app, Context& ctx);
/// `tidesim report RESULT.json [-o FILE] [--format html|table|json|csv] ...` (cmd_report.cpp).
void add_report_command(CLI::App& app, Context& ctx);
/// `tidesim check RESULT.json --baseline B.json [--tolerance M=PCT]...` (cmd_check.cpp).
void add_check_command(CLI::App& app, Context& ctx);

/// `tidesim sweep SWEEP.yaml [-o DIR] [--threads N] [--shard I/N] [--merge]` (cmd_sweep.cpp).
void add_sweep_command(CLI::App& app, Context& ctx);

/// `tidesim explain OBJECTS [--pod NAME] [--scheduler NAME|FILE] [--format text|json]`
/// (tools/cli/cmd_explain.cpp).
void add_explain_command(CLI::App& app, Context& ctx);

}  // namespace tidesim::cli
