#include "tidesim/llm/job.hpp"

#include <filesystem>

#include "tidesim/llm/readers.hpp"
#include "tidesim/llm/validate.hpp"
#include "tidesim/sim/input/data_folder.hpp"
#include "tidesim/sim/input/did_you_mean.hpp"
#include "tidesim/sim/input/text_file.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim::llm {

namespace {

template <class T, class Read>
T read_file(const std::string& path, const char* what, Read read) {
  return yaml_guard(path, [&] {
    const ConfigNode root = load_yaml_string(read_text_file(path, what), path);
    if (!root.defined()) {
      throw empty_file_error(path);
    }
    return read(root);
  });
}

std::string hint(const std::string& word, const std::vector<std::string>& names) {
  const std::string near = closest_name(word, names);
  return near.empty() ? "" : " (did you mean " + near + "?)";
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) {
    out += (out.empty() ? "" : ", ") + n;
  }
  return out;
}

Model job_model(Fields& f) {
  const ConfigNode node = f.require("model");
  const std::string& file = f.file();
  if (node.is_scalar()) {
    auto preset = model_preset(node.scalar());
    if (!preset) {
      throw f.error(node, "model",
                    "unknown model '" + node.scalar() + "'" +
                        hint(node.scalar(), model_preset_names()) +
                        " (presets: " + join(model_preset_names()) + ")");
    }
    preset->places = {.file = file,
                      .prefix = f.path_of("model") + ".",
                      .at = {},
                      .origin = location_of(node, file)};
    return *preset;
  }
  const ConfigNode name = node["preset"];
  if (!name.defined()) {
    return read_model(node, file, f.path_of("model") + ".");
  }
  const auto preset = model_preset(name.scalar());
  if (!preset) {
    throw InputError(
        location_of(name, file), f.path_of("model") + ".preset",
        "unknown model '" + name.scalar() + "'" + hint(name.scalar(), model_preset_names()));
  }
  ConfigNode without = ConfigNode::empty_map();
  for (const auto& [key, value] : node.entries()) {
    if (key.scalar() != "preset") {
      without.set(key.scalar(), value);
    }
  }
  Model m = read_model(without, file, f.path_of("model") + ".", &*preset);
  m.name = preset->name;
  return m;
}

System job_system(Fields& f, const std::string& folder) {
  const ConfigNode node = f.require("system");
  if (node.is_map()) {
    return read_system(node, f.file(), f.path_of("system") + ".");
  }
  const std::string name = scalar_of(node, f.file(), f.path_of("system"));
  if (auto preset = system_preset(name)) {
    preset->places = {.file = f.file(),
                      .prefix = f.path_of("system") + ".",
                      .at = {},
                      .origin = location_of(node, f.file())};
    return *preset;
  }
  const std::string path = input_path(folder, name);
  if (!std::filesystem::is_regular_file(path)) {
    throw f.error(node, "system",
                  "'" + name + "' is neither a built-in system (" + join(system_preset_names()) +
                      ") nor a file (" + path + ")");
  }
  return read_calculon_system(path);
}

}  // namespace

Model read_calculon_model(const std::string& path) {
  return read_file<Model>(path, "model file", [&](const ConfigNode& root) {
    Model m = read_model(root, path, "");
    m.name = std::filesystem::path(path).stem().string();
    return m;
  });
}

Execution read_calculon_execution(const std::string& path) {
  return read_file<Execution>(path, "execution file", [&](const ConfigNode& root) {
    return read_execution(root, path, "");
  });
}

System read_calculon_system(const std::string& path) {
  return read_file<System>(path, "system file", [&](const ConfigNode& root) {
    System s = read_system(root, path, "");
    s.name = std::filesystem::path(path).stem().string();
    return s;
  });
}

Job load_calculon_job(const std::string& model_path, const std::string& execution_path,
                      const std::string& system_path) {
  Job job;
  job.model = read_calculon_model(model_path);
  bool multiquery = false;
  job.execution =
      read_file<Execution>(execution_path, "execution file", [&](const ConfigNode& root) {
        return read_execution(root, execution_path, "", &multiquery);
      });
  if (multiquery) {
    job.model.kv_heads = 1;
  }
  job.system = read_calculon_system(system_path);
  validate(job.model, job.execution, job.system);
  return job;
}

namespace {

// The model and execution of a job mapping read by `f`, multi-query attention applied.
void read_model_and_execution(Fields& f, Model& model, Execution& execution) {
  model = job_model(f);
  bool multiquery = false;
  execution =
      read_execution(f.require("execution"), f.file(), f.path_of("execution") + ".", &multiquery);
  if (multiquery) {
    model.kv_heads = 1;
  }
}

}  // namespace

Job load_job_text(const std::string& text, const std::string& name, const std::string& folder) {
  return yaml_guard(name, [&] {
    const ConfigNode root = load_yaml_string(text, name);
    Fields f = Fields::document(root, name);
    Job job;
    read_model_and_execution(f, job.model, job.execution);
    job.system = job_system(f, folder);
    f.finish();
    validate(job.model, job.execution, job.system);
    return job;
  });
}

JobSection read_job_section(const ConfigNode& node, const std::string& file,
                            const std::string& path, const std::string& folder,
                            const System& fallback) {
  Fields f(node, file, path);
  JobSection out;
  read_model_and_execution(f, out.model, out.execution);
  if (f.has("system")) {
    out.system = job_system(f, folder);
  }
  f.finish();
  // In a run the placement decides which network a group crosses: pipeline and data-parallel
  // traffic goes to the cluster network unless the section says otherwise.
  const ConfigNode exe = node["execution"];
  const int cluster_network =
      static_cast<int>((out.system ? *out.system : fallback).networks.size() > 1 ? 1 : 0);
  if (!exe["pipeline_par_net"]) {
    out.execution.pipeline_par_net = cluster_network;
  }
  if (!exe["data_par_net"]) {
    out.execution.data_par_net = cluster_network;
  }
  validate(out.model, out.execution, out.system ? *out.system : fallback);
  return out;
}

Job load_job(const std::string& path) {
  const std::string text = read_text_file(path, "LLM job file");
  std::string folder = std::filesystem::path(path).parent_path().string();
  return load_job_text(text, path, folder.empty() ? "." : folder);
}

Job load_inputs(const std::string& job, const std::string& model, const std::string& execution,
                const std::string& system) {
  const bool calculon = !model.empty() || !execution.empty() || !system.empty();
  if (calculon == !job.empty()) {
    throw InputError(
        "give a job file or Calculon's three files (model, execution, system), not both");
  }
  if (!calculon) {
    return load_job(job);
  }
  if (model.empty() || execution.empty() || system.empty()) {
    throw InputError("Calculon's model, execution and system files go together");
  }
  return load_calculon_job(model, execution, system);
}

}  // namespace tidesim::llm
