// The `tidesim` command line. Exit codes: 0 success, 1 runtime failure, 2 bad input or usage.
#include <fmt/core.h>
#include <yaml-cpp/yaml.h>

#include <exception>

#include "sim/engine/error.hpp"
#include "tidesim/version.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/options.hpp"

int main(int argc, char** argv) {
  CLI::App app{"tidesim: a discrete-event simulator of GPU clusters running AI training jobs"};
  app.set_version_flag("--version", std::string("tidesim ") + tidesim::kVersion);
  app.require_subcommand(1);
  tidesim::cli::Context ctx;
  tidesim::cli::add_run_command(app, ctx);
  tidesim::cli::add_validate_command(app, ctx);
  tidesim::cli::add_topo_command(app, ctx);
  tidesim::cli::add_trace_command(app, ctx);
  tidesim::cli::add_report_command(app, ctx);
  tidesim::cli::add_check_command(app, ctx);
  tidesim::cli::add_explain_command(app, ctx);
  tidesim::cli::add_sweep_command(app, ctx);
  if (const int rc = tidesim::cli::refuse_unknown_command(app, argc, argv); rc != 0) {
    return rc;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  try {
    return ctx.run ? ctx.run() : 2;
  } catch (const tidesim::InputError& e) {
    fmt::print(stderr, "tidesim: error: {}\n", e.what());
    return 2;
  } catch (const YAML::Exception& e) {
    // Only input is read with yaml-cpp; every reader wraps itself in yaml_guard (which names the
    // file), so this is a last resort with the line and column alone.
    fmt::print(stderr, "tidesim: error: line {}, column {}: YAML: {}\n", e.mark.line + 1,
               e.mark.column + 1, e.msg);
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "tidesim: failed: {}\n", e.what());
    return 1;
  }
}
