// The compiled part of the Python module `tidesim` (docs/python.md): `_tidesim`, bindings over the
// public C++ API, the same calls `tidesim run` and `tidesim sweep` make (tools/lib). The Python
// package (tools/python/tidesim/__init__.py) wraps it and turns its columns into pandas DataFrames.
// The GIL is released while C++ runs.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tidesim/llm/job.hpp"
#include "tidesim/llm/report.hpp"
#include "tidesim/llm/step.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/sim/input/units.hpp"
#include "tidesim/sim/scenario/scenario.hpp"
#include "tidesim/sim/scenario/scenario_override.hpp"
#include "tidesim/tools/lib/attempt_log.hpp"
#include "tidesim/tools/lib/csv_out.hpp"
#include "tidesim/tools/lib/progress.hpp"
#include "tidesim/tools/lib/result.hpp"
#include "tidesim/tools/lib/result_summary.hpp"
#include "tidesim/tools/lib/run_arguments.hpp"
#include "tidesim/tools/lib/run_scenario.hpp"
#include "tidesim/tools/lib/sweep.hpp"
#include "tidesim/tools/lib/sweep_spec.hpp"
#include "tidesim/tools/lib/sweep_view.hpp"
#include "tidesim/tools/lib/table.hpp"
#include "tidesim/tools/lib/tas_admit.hpp"
#include "tidesim/tools/python/job_policies.hpp"
#include "tidesim/tools/python/plugins.hpp"
#include "tidesim/version.hpp"

namespace py = pybind11;

namespace tidesim::python {
namespace {

namespace fs = std::filesystem;

// A loaded scenario, with the overrides it was read with and its path as given (for the
// provenance's command).
struct LoadedScenario {
  std::shared_ptr<const Scenario> scenario;
  std::string path;
  std::vector<ScenarioOverride> overrides;
};

// A result: of runs (run), of a sweep (its merged result), or read from a file.
struct PyResult {
  std::shared_ptr<const app::RunResult> result;
};

// The registry a call was given; none: the default one.
policies::RegistryPtr registry_of(const PluginRegistry* registry) {
  return registry != nullptr ? registry->registry : policies::default_registry();
}

LoadedScenario load(const std::string& path, const std::vector<std::string>& sets,
                    const PluginRegistry* registry) {
  LoadedScenario loaded;
  loaded.path = path;
  for (const auto& text : sets) {
    loaded.overrides.push_back(parse_override(text, "set"));
  }
  loaded.scenario = std::make_shared<const Scenario>(
      load_scenario_with(path, loaded.overrides, "set", registry_of(registry),
                         registry != nullptr ? registry->job_policies : nullptr));
  return loaded;
}

// What `run` takes besides the scenario, as `tidesim run`'s options: the texts the command line
// would be given (tools/python/tidesim writes each Python value as its text), read by the
// command line's own readers (tools/lib/run_arguments.hpp), so both refuse alike.
struct RunArgs {
  std::vector<std::string> policies;
  std::vector<std::string> seeds;
  std::string threads;  // "": the machine's cores
  std::optional<std::string> series;
  std::string series_step;
  std::vector<std::string> series_seeds;
  std::optional<std::string> timeout;
  std::optional<std::string> max_events;
  std::optional<std::string> max_memory;
  bool force = false;
  bool progress = false;
};

std::optional<Duration> parse_timeout(const std::optional<std::string>& text) {
  if (!text) {
    return std::nullopt;
  }
  Duration d{};
  try {
    d = parse_duration(*text);
  } catch (const std::exception& e) {
    throw InputError(SourceLocation{}, "timeout", e.what());
  }
  if (d <= Duration::zero()) {
    throw InputError(SourceLocation{}, "timeout", "'" + *text + "' is not a positive duration");
  }
  return d;
}

// `text` read by `parse`, an InputError naming `argument` (with the command line's words) when
// it is refused.
template <class Parse>
auto read_argument(const char* argument, const std::string& text, Parse parse) {
  try {
    return parse(text);
  } catch (const std::invalid_argument& e) {
    throw InputError(SourceLocation{}, argument, e.what());
  }
}

// threads= as `--threads` reads it; "" (None): the machine's cores.
int threads_of(const std::string& text) {
  return text.empty() ? 0 : read_argument("threads", text, app::parse_threads);
}

RunBudget budget_of(const RunArgs& a) {
  RunBudget budget;
  if (a.max_events) {
    budget.events = read_argument("max_events", *a.max_events, app::parse_count);
  }
  if (a.max_memory) {
    try {
      budget.memory_bytes = parse_bytes(*a.max_memory);
    } catch (const std::exception& e) {
      throw InputError(SourceLocation{}, "max_memory", e.what());
    }
  }
  return budget;
}

// The runs `tidesim run` makes of `sc` with the same options: the same call
// (tools/lib/run_scenario.hpp), so the same result (metadata, provenance, warnings, reference).
// Warnings (a budget passed under `force`, the result's own) go to `warnings`.
PyResult run(const LoadedScenario& sc, const RunArgs& a, std::string& warnings) {
  const Scenario& s = *sc.scenario;
  app::RunRequest request;
  request.path = sc.path;
  request.overrides = sc.overrides;
  request.policy_specs = a.policies;
  for (const std::string& text : a.seeds) {
    request.seeds.push_back(read_argument("seeds", text, app::parse_seed));
  }
  request.threads = threads_of(a.threads);
  request.timeout = parse_timeout(a.timeout);
  if (s.run.mode == RunMode::kFill) {
    throw InputError(SourceLocation{s.path}, "run.mode",
                     "fill: the Python module runs event-driven scenarios; run the fill "
                     "experiment with `tidesim run` (docs/fgd.md)");
  }
  if (a.series) {
    request.series = app::SeriesRequest{*a.series, a.series_step, a.series_seeds};
  } else if (!a.series_step.empty() || !a.series_seeds.empty()) {
    throw InputError(SourceLocation{}, !a.series_step.empty() ? "series_step" : "series_seeds",
                     "time series are recorded only with series='summary' or 'full'");
  }
  request.budget = budget_of(a);
  request.force = a.force;
  request.progress = a.progress ? app::ProgressMode::kAlways : app::ProgressMode::kNever;
  std::ostringstream warn;
  auto result = std::make_shared<app::RunResult>(app::run_scenario(s, request, warn).result);
  for (const auto& w : result->metadata.warnings) {
    warn << sc.path << ": " << w << "\n";
  }
  warnings = warn.str();
  return PyResult{std::move(result)};
}

// `tidesim sweep FILE --output DIR --threads N`: the cells not yet stored under `dir` run, then
// the merged result.json and metrics.csv are written (tools/cli/cmd_sweep.cpp).
PyResult sweep(const std::string& file, const std::string& output, const std::string& threads,
               bool progress, const PluginRegistry* registry) {
  app::SweepSpec spec = app::load_sweep(file);
  spec.registry = registry_of(registry);
  spec.job_policies = registry != nullptr ? registry->job_policies : nullptr;
  const app::SweepPlan plan = app::plan_sweep(spec, true);
  const std::string dir = output.empty() ? fs::path(file).stem().string() + ".results" : output;
  (void)app::run_sweep_cells(plan, dir, app::Shard{}, threads_of(threads),
                             progress ? app::ProgressMode::kAlways : app::ProgressMode::kNever,
                             std::nullopt);
  auto merged = std::make_shared<app::RunResult>(app::merge_cells(plan, dir));
  (void)app::write_merged(*merged, dir);
  return PyResult{std::move(merged)};
}

// A value of a metric column: the run's value, or NaN when it has none.
double metric_or_nan(const app::SeedRun& run, const std::string& name) {
  const auto it = run.metrics.find(name);
  return it == run.metrics.end() ? std::numeric_limits<double>::quiet_NaN() : it->second;
}

// The columns of metrics.csv (tools/lib/sweep_view.hpp, write_metrics_csv) as Python lists:
// policy, seed, for a sweep each swept key (its value as written, None where a variant leaves it
// out), then each metric (NaN where a run has none). The values are the result's doubles, those
// `--format json` prints.
py::dict metric_columns(const app::RunResult& result) {
  const auto view = app::sweep_view(result);
  const auto names = app::present_metric_names(result);
  py::list policy;
  py::list seed;
  std::vector<py::list> keys(view ? view->keys.size() : 0);
  std::vector<py::list> metrics(names.size());
  for (const auto& run : result.runs) {
    std::optional<app::SweepView::Place> place;
    if (view) {
      place = view->find(run.policy);
    }
    policy.append(place ? view->policies[place->policy] : run.policy);
    seed.append(run.seed);
    for (std::size_t k = 0; k < keys.size(); ++k) {
      const auto& value = view->variants[place->variant].values[k];
      keys[k].append(value ? py::object(py::str(*value)) : py::object(py::none()));
    }
    for (std::size_t m = 0; m < names.size(); ++m) {
      metrics[m].append(metric_or_nan(run, names[m]));
    }
  }
  py::dict columns;
  columns["policy"] = policy;
  columns["seed"] = seed;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    columns[py::str(view->column_names[k])] = keys[k];
  }
  for (std::size_t m = 0; m < names.size(); ++m) {
    columns[py::str(names[m])] = metrics[m];
  }
  return columns;
}

std::string csv_of(const app::RunResult& result, const std::string& which) {
  std::ostringstream out;
  if (which == "jobs") {
    app::write_jobs_csv(out, result);
  } else if (which == "attempts") {
    app::write_attempts_csv(out, result);
  } else if (which == "nodes") {
    app::write_node_series_csv(out, result);
  } else if (which == "cards") {
    app::write_card_series_csv(out, result);
  } else if (which == "metrics") {
    app::write_metrics_csv(out, result);
  } else {
    throw std::invalid_argument("no CSV named '" + which + "'");
  }
  return out.str();
}

// The comparison table as `tidesim run` (or, for a sweep's merged result, `tidesim sweep`) shows
// it, in `format` ("table", "json" or "csv").
std::string comparison(const app::RunResult& result, const std::string& format, bool all_metrics,
                       bool no_reference) {
  const auto fmt = app::parse_output_format(format, "format");
  app::TableOptions table;
  table.headline = fmt == app::OutputFormat::kTable && !all_metrics;
  if (const auto view = app::sweep_view(result)) {
    return app::render_sweep_comparison(app::build_sweep_comparison(result, *view, table), fmt);
  }
  table.reference = result.reference;
  table.no_reference = no_reference || !result.reference;
  return app::render_comparison(app::build_comparison(result, table), fmt);
}

std::string result_json(const app::RunResult& result) {
  std::ostringstream out;
  app::write_result(out, result);
  return out.str();
}

// Bad input: the message the CLI prints after "tidesim: error: " (file:line:column: field:
// message), with its parts as attributes.
void bind_errors(py::module_& m) {
  static py::handle input_error =
      py::exception<InputError>(m, "InputError", PyExc_ValueError).release();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) {
        std::rethrow_exception(p);
      }
    } catch (const InputError& e) {
      py::object error = py::reinterpret_borrow<py::object>(input_error)(e.what());
      error.attr("file") = e.where().file;
      error.attr("line") = e.where().line;
      error.attr("column") = e.where().column;
      error.attr("field") = e.field();
      error.attr("detail") = e.message();
      PyErr_SetObject(input_error.ptr(), error.ptr());
    }
  });
}

// Scenarios: loading one (with --set overrides) and what a study reads of it.
void bind_scenarios(py::module_& m) {
  py::class_<LoadedScenario>(m, "Scenario")
      .def_property_readonly("name", [](const LoadedScenario& s) { return s.scenario->name; })
      .def_property_readonly("path", [](const LoadedScenario& s) { return s.path; })
      .def_property_readonly("hash", [](const LoadedScenario& s) { return s.scenario->hash; })
      .def_property_readonly("seeds", [](const LoadedScenario& s) { return s.scenario->seeds; })
      .def_property_readonly("policies",
                             [](const LoadedScenario& s) {
                               std::vector<std::string> names;
                               for (const auto& p : s.scenario->policies) {
                                 names.push_back(p.name);
                               }
                               return names;
                             })
      .def_property_readonly("overrides",
                             [](const LoadedScenario& s) {
                               std::vector<std::string> texts;
                               for (const auto& o : s.overrides) {
                                 texts.push_back(o.text());
                               }
                               return texts;
                             })
      .def_property_readonly("mode", [](const LoadedScenario& s) {
        return std::string(to_string(s.scenario->run.mode));
      });

  m.def("default_scenario_path", &default_scenario_path);
  m.def("load_scenario", &load, py::arg("path"), py::arg("sets"), py::arg("registry") = nullptr,
        py::call_guard<py::gil_scoped_release>());
}

// Runs and sweeps.
void bind_runs(py::module_& m) {
  py::class_<RunArgs>(m, "RunArgs")
      .def(py::init<>())
      .def_readwrite("policies", &RunArgs::policies)
      .def_readwrite("seeds", &RunArgs::seeds)
      .def_readwrite("threads", &RunArgs::threads)
      .def_readwrite("series", &RunArgs::series)
      .def_readwrite("series_step", &RunArgs::series_step)
      .def_readwrite("series_seeds", &RunArgs::series_seeds)
      .def_readwrite("timeout", &RunArgs::timeout)
      .def_readwrite("max_events", &RunArgs::max_events)
      .def_readwrite("max_memory", &RunArgs::max_memory)
      .def_readwrite("force", &RunArgs::force)
      .def_readwrite("progress", &RunArgs::progress);
  m.def("run", [](const LoadedScenario& sc, const RunArgs& args) {
    std::string warnings;
    PyResult result;
    {
      py::gil_scoped_release release;
      result = run(sc, args, warnings);
    }
    return py::make_tuple(result, warnings);
  });
  m.def("sweep", &sweep, py::arg("path"), py::arg("output"), py::arg("threads"),
        py::arg("progress"), py::arg("registry") = nullptr,
        py::call_guard<py::gil_scoped_release>());
  m.def(
      "load_result",
      [](const std::string& path) {
        return PyResult{std::make_shared<const app::RunResult>(app::load_result(path))};
      },
      py::call_guard<py::gil_scoped_release>());
}

// Results: metrics, records, comparisons, saving.
void bind_results(py::module_& m) {
  py::class_<PyResult>(m, "Result")
      .def_property_readonly("scenario_name",
                             [](const PyResult& r) { return r.result->metadata.scenario_name; })
      .def_property_readonly("policies", [](const PyResult& r) { return r.result->policy_names(); })
      .def_property_readonly("seeds", [](const PyResult& r) { return r.result->metadata.seeds; })
      .def_property_readonly("warnings",
                             [](const PyResult& r) { return r.result->metadata.warnings; })
      .def("metric_names", [](const PyResult& r) { return app::present_metric_names(*r.result); })
      .def("metric_columns", [](const PyResult& r) { return metric_columns(*r.result); })
      .def(
          "csv",
          [](const PyResult& r, const std::string& which) { return csv_of(*r.result, which); },
          py::call_guard<py::gil_scoped_release>())
      .def(
          "json", [](const PyResult& r) { return result_json(*r.result); },
          py::call_guard<py::gil_scoped_release>())
      .def("summary_json", [](const PyResult& r) { return app::summary_json(*r.result).dump(); })
      .def(
          "comparison",
          [](const PyResult& r, const std::string& format, bool all_metrics, bool no_reference) {
            return comparison(*r.result, format, all_metrics, no_reference);
          },
          py::arg("format"), py::arg("all_metrics"), py::arg("no_reference"))
      .def(
          "save",
          [](const PyResult& r, const std::string& path) { app::save_result(*r.result, path); },
          py::call_guard<py::gil_scoped_release>());
}

// The LLM step-time model (llm/, docs/llm.md): what `tidesim llm --format json` prints.
void bind_llm(py::module_& m) {
  m.def(
      "llm_json",
      [](const std::string& job, const std::string& model, const std::string& execution,
         const std::string& system) {
        py::gil_scoped_release release;
        const llm::Job j = llm::load_inputs(job, model, execution, system);
        return llm::report_json(j, llm::step(j.model, j.execution, j.system));
      },
      py::arg("job"), py::arg("model"), py::arg("execution"), py::arg("system"));
}

// Kueue's topology-aware scheduling what-if (tools/lib/tas_admit.hpp, docs/topology-aware.md):
// what `tidesim admit --format json` prints.
void bind_admit(py::module_& m) {
  m.def(
      "admit_json",
      [](const std::string& snapshot, const std::string& workload, const std::string& gates,
         const std::string& flavor, const std::string& kueue_config) {
        py::gil_scoped_release release;
        return app::admit_json(app::admit({.snapshot = snapshot,
                                           .workload = workload,
                                           .gates = app::parse_feature_gates(gates),
                                           .flavor = flavor,
                                           .kueue_config = kueue_config}));
      },
      py::arg("snapshot"), py::arg("workload"), py::arg("feature_gates"), py::arg("flavor"),
      py::arg("kueue_config") = "");
}

}  // namespace
}  // namespace tidesim::python

PYBIND11_MODULE(_tidesim, m) {
  using namespace tidesim;
  using namespace tidesim::python;
  m.doc() = "tidesim's C++ API (the package `tidesim` wraps it; docs/python.md)";
  m.attr("__version__") = std::string(kVersion);
  bind_errors(m);
  bind_plugins(m);
  bind_job_policies(m);
  bind_scenarios(m);
  bind_runs(m);
  bind_results(m);
  bind_llm(m);
  bind_admit(m);
}
