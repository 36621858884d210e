#pragma once
/// An LLM training job read from files: Calculon's three JSON files as they are, or tidesim's
/// own YAML job file. Every error is an InputError naming the file, line, column and field.
#include <optional>
#include <string>

#include "tidesim/llm/execution.hpp"
#include "tidesim/llm/model.hpp"
#include "tidesim/llm/system.hpp"
#include "tidesim/sim/input/config_node.hpp"

namespace tidesim::llm {

/// A model trained on a system with an execution, validated together (validate.hpp).
struct Job {
  Model model;
  Execution execution;
  System system;
};

/// Calculon's application file (models/*.json).
Model read_calculon_model(const std::string& path);
/// Calculon's execution file (e.g. validation/seqsel/tab5/*.json).
Execution read_calculon_execution(const std::string& path);
/// Calculon's system file (systems/*.json).
System read_calculon_system(const std::string& path);

/// The three Calculon files as one validated job; `attention_type: multiquery` in the execution
/// gives the model one key/value head.
Job load_calculon_job(const std::string& model_path, const std::string& execution_path,
                      const std::string& system_path);

/// tidesim's job file (docs/llm.md):
///
///   model: gpt3-175B              # a preset, or a mapping: {preset: NAME, ...} or the fields
///   execution: {tensor_par: 8, pipeline_par: 8, data_par: 1, batch_size: 64, ...}
///   system: a100-80g              # a built-in system, a Calculon system file (relative to the
///                                 # job file, or $TIDESIM_DATA/...), or a mapping of its fields
Job load_job(const std::string& path);
/// A job file (`job` not empty) or Calculon's three files (all of `model`, `execution` and
/// `system`), as `tidesim llm` and the Python module take them; InputError for any other mix.
Job load_inputs(const std::string& job, const std::string& model, const std::string& execution,
                const std::string& system);
/// An LLM job described inside another file (a scenario's job entry, `llm:`): the job file's
/// `model` and `execution`, and `system` only when it is written.
struct JobSection {
  Model model;
  Execution execution;
  std::optional<System> system;
};

/// Reads the mapping `node` at field path `path` of `file` (paths in it resolve against
/// `folder`) and validates it on its system, else on `fallback`.
JobSection read_job_section(const ConfigNode& node, const std::string& file,
                            const std::string& path, const std::string& folder,
                            const System& fallback);

/// The same from YAML text; `name` is the file name in errors and `folder` resolves paths.
Job load_job_text(const std::string& text, const std::string& name, const std::string& folder);

}  // namespace tidesim::llm
