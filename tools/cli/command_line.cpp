// The `tidesim` command line as a function: main() of the `tidesim` program, and of a program
// that registers its own plugins explicitly (docs/writing-a-policy.md). Exit codes: 0 success, 1
// runtime failure, 2 bad input or usage.
#include "tidesim/tools/cli/command_line.hpp"

#include <fmt/core.h>
#include <exception>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tidesim/sim/input/error.hpp"
#include "tidesim/tools/cli/commands.hpp"
#include "tidesim/tools/cli/options.hpp"
#include "tidesim/tools/lib/json_locate.hpp"
#include "tidesim/version.hpp"

namespace {

// "FILE: " for the command's input, or "" when it has none (docs/robustness.md, "One error
// path"). Messages are shortened the way InputError shortens them (a 20,000-character token
// would make them unreadable).
std::string file_prefix(const tidesim::cli::Context& ctx) {
  return ctx.input.empty() ? std::string() : tidesim::shorten_tokens(ctx.input) + ": ";
}

int input_error(const std::string& message) {
  fmt::print(stderr, "tidesim: error: {}\n", tidesim::shorten_tokens(message));
  return 2;
}

// The command line's registry: the default one plus `plugins`. Throws std::logic_error naming a
// plugin given twice or whose name is taken.
tidesim::policies::RegistryPtr command_line_registry(
    std::vector<tidesim::cli::PluginOption>& plugins) {
  tidesim::policies::Registry extra;
  for (auto& p : plugins) {
    if (!extra.emplace(p.name, std::move(p.entry)).second) {
      throw std::logic_error("plugin '" + p.name + "' is registered twice");
    }
  }
  return tidesim::policies::registry_with(tidesim::policies::builtin_registry(), std::move(extra));
}

}  // namespace

namespace tidesim::cli {

PluginOption with_plugin(std::string name, policies::RegistryEntry entry) {
  return PluginOption{std::move(name), std::move(entry)};
}

int run_command_line(int argc, char** argv, std::vector<PluginOption> plugins) {
  tidesim::cli::Context ctx;
  try {
    ctx.registry = command_line_registry(plugins);
  } catch (const std::logic_error& e) {
    fmt::print(stderr, "tidesim: failed: {}\n", e.what());
    return 1;
  }
  CLI::App app{"tidesim: a discrete-event simulator of GPU clusters running AI training jobs"};
  app.set_version_flag("--version", std::string("tidesim ") + tidesim::kVersion);
  app.require_subcommand(1);
  tidesim::cli::add_run_command(app, ctx);
  tidesim::cli::add_validate_command(app, ctx);
  tidesim::cli::add_topo_command(app, ctx);
  tidesim::cli::add_llm_command(app, ctx);
  tidesim::cli::add_trace_command(app, ctx);
  tidesim::cli::add_report_command(app, ctx);
  tidesim::cli::add_check_command(app, ctx);
  tidesim::cli::add_explain_command(app, ctx);
  tidesim::cli::add_sweep_command(app, ctx);
  tidesim::cli::add_admit_command(app, ctx);
  if (const int rc = tidesim::cli::refuse_unknown_command(app, argc, argv); rc != 0) {
    return rc;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  // Every reader throws InputError with its place. The other parse exceptions below are a last
  // resort for one that escaped a reader: they concern input, so they exit 2, naming the
  // command's input file and whatever place the exception knows.
  try {
    return ctx.run ? ctx.run() : 2;
  } catch (const tidesim::InputError& e) {
    fmt::print(stderr, "tidesim: error: {}\n", e.what());  // already shortened
    return 2;
  } catch (const nlohmann::json::parse_error& e) {
    return input_error(fmt::format("{}not valid JSON at byte {}: {}", file_prefix(ctx), e.byte,
                                   tidesim::app::plain_json_message(e.what())));
  } catch (const nlohmann::json::exception& e) {
    return input_error(file_prefix(ctx) + "JSON: " + tidesim::app::plain_json_message(e.what()));
  } catch (const std::filesystem::filesystem_error& e) {
    const std::string path = e.path1().empty() ? ctx.input : e.path1().string();
    return input_error((path.empty() ? "" : path + ": ") + e.code().message());
  } catch (const std::out_of_range& e) {
    // std::stod / std::stoll on a number past the type's range, std::from_chars users.
    return input_error(file_prefix(ctx) + "out of range: " + e.what());
  } catch (const std::invalid_argument& e) {
    return input_error(file_prefix(ctx) + e.what());
  } catch (const std::exception& e) {
    fmt::print(stderr, "tidesim: failed: {}\n", e.what());
    return 1;
  }
}

}  // namespace tidesim::cli
