#pragma once
// Score and Filter plugins written in Python (tools/python/plugins.cpp; docs/python.md, "Plugins in
// Python").
#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tidesim/policies/registry.hpp"
#include "tidesim/sim/admission/job_policy_registry.hpp"

namespace py = pybind11;

namespace tidesim::python {

/// A Python plugin failed (its exception, with the plugin's name and the Python traceback) or
/// returned something that is not a score. Raised in Python as tidesim.PluginError.
class PythonPluginError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The user interrupted a Python plugin or job policy (Ctrl-C: KeyboardInterrupt raised in its
/// call): the run stops and Python sees KeyboardInterrupt again, not a PluginError.
class PythonInterrupt : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The PythonPluginError for the Python error `e` raised in `what` ("Python plugin NAME failed in
/// score()"), or PythonInterrupt when `e` is a KeyboardInterrupt.
[[noreturn]] void rethrow_python_error(py::error_already_set& e, const std::string& what);

/// A Python int (int, numpy's integers: anything with __index__, not a bool) as an int64 in
/// [lo, hi]; nullopt for anything else, a value out of range included (however large).
std::optional<std::int64_t> python_int_in(const py::handle& value, std::int64_t lo,
                                          std::int64_t hi);

/// "Traceback (most recent call last): ..." of the Python error `e` (its what() when the
/// traceback module fails): what PluginError carries.
std::string traceback_text(py::error_already_set& e);

/// The registry values built for Python callers (tidesim.Registry): a scenario or sweep loaded
/// with them builds its schedulers from `registry` and its job-level policies from
/// `job_policies`. Neither is null.
struct PluginRegistry {
  policies::RegistryPtr registry;
  JobPolicyRegistryPtr job_policies;
};

/// A plugin's or job policy's Python class, held by the factories of the registries that hold
/// it. It is released under the GIL; one still held after the interpreter finalised is left alone
/// (no Python object may be released any more). Hidden, as PythonPlugin.
class __attribute__((visibility("hidden"))) PythonClass {
 public:
  explicit PythonClass(py::object cls) : cls_(std::move(cls)) {}
  PythonClass(const PythonClass&) = delete;
  PythonClass& operator=(const PythonClass&) = delete;
  ~PythonClass() {
    if (Py_IsInitialized() == 0) {
      (void)cls_.release();
      return;
    }
    py::gil_scoped_acquire gil;
    cls_ = py::object();
  }
  /// A new instance (cls()); the caller holds the GIL.
  py::object make() const { return cls_(); }

 private:
  py::object cls_;
};

/// A Python plugin: its name, its kind ("score": a tidesim.ScorePlugin; "filter": a
/// tidesim.FilterPlugin) and its class. Hidden, as pybind11's own types are: a program that is not
/// the module (the Python plugin benchmark) includes it too.
struct __attribute__((visibility("hidden"))) PythonPlugin {
  std::string name;
  std::string kind;
  py::object cls;
};

/// Throws std::invalid_argument when a C++ plugin (a built-in, or one registered with
/// policies::register_plugin) has the name `name`.
void check_plugin_name(const std::string& name);

/// New registries: the default plugin registry plus `plugins`, each built by its class (cls(), one
/// instance per scheduler), and the default job-policy registry plus `job_policies`. Throws
/// std::invalid_argument for a name a C++ plugin or built-in job policy has, a plugin name given
/// twice or an unknown kind. The registries hold the classes (released under the GIL).
PluginRegistry make_registry(const std::vector<PythonPlugin>& plugins,
                             std::vector<JobPolicyEntry> job_policies = {});

/// Adds the plugin classes (CycleState, Pod, Node), PluginError and PluginRegistry to `m`.
void bind_plugins(py::module_& m);

}  // namespace tidesim::python
