#include "tools/cli/commands.hpp"

namespace tidesim::cli {

void add_run_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("run", "Run a scenario and compare its policies");
  cmd->callback([&ctx] { ctx.run = [] { return 1; }; });
}

void add_validate_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("validate", "Check scenario files without running them");
  cmd->callback([&ctx] { ctx.run = [] { return 1; }; });
}

}  // namespace tidesim::cli
