// `tidesim llm JOB.yaml` or `tidesim llm --model M.json --execution E.json --system S.json`
// [--format table|json]: the step time of an LLM training job, its parts, the memory per GPU by
// part and MFU (the model: llm/, docs/llm.md).
#include <fmt/core.h>

#include <memory>
#include <string>

#include "tidesim/llm/job.hpp"
#include "tidesim/llm/report.hpp"
#include "tidesim/llm/step.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/tools/cli/commands.hpp"

namespace tidesim::cli {

namespace {

struct LlmOptions {
  std::string job;
  std::string model;
  std::string execution;
  std::string system;
  std::string format = "table";
};

}  // namespace

void add_llm_command(CLI::App& app, Context& ctx) {
  auto opts = std::make_shared<LlmOptions>();
  auto* cmd = app.add_subcommand(
      "llm", "Step time, memory per GPU and MFU of an LLM training job (docs/llm.md)");
  cmd->add_option("job", opts->job, "tidesim LLM job file (YAML)");
  cmd->add_option("--model", opts->model, "Calculon model file (JSON)");
  cmd->add_option("--execution", opts->execution, "Calculon execution file (JSON)");
  cmd->add_option("--system", opts->system, "Calculon system file (JSON)");
  cmd->add_option("--format", opts->format, "Output format")
      ->check(CLI::IsMember({"table", "json"}));
  cmd->callback([&ctx, opts] {
    ctx.input = opts->job.empty() ? opts->execution : opts->job;
    ctx.run = [opts] {
      const llm::Job job = llm::load_inputs(opts->job, opts->model, opts->execution, opts->system);
      const llm::StepBreakdown s = llm::step(job.model, job.execution, job.system);
      fmt::print("{}",
                 opts->format == "json" ? llm::report_json(job, s) : llm::report_table(job, s));
      return 0;
    };
  });
}

}  // namespace tidesim::cli
