#pragma once
// Score and Filter plugins written in Python (tools/python/plugins.cpp; docs/python.md, "Plugins in
// Python").
#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>

namespace py = pybind11;

namespace tidesim::python {

/// A Python plugin failed (its exception, with the plugin's name and the Python traceback) or
/// returned something that is not a score. Raised in Python as tidesim.PluginError.
class PythonPluginError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// "Traceback (most recent call last): ..." of the Python error `e` (its what() when the
/// traceback module fails): what PluginError carries.
std::string traceback_text(py::error_already_set& e);

/// Registers the Python class `cls` (a tidesim.ScorePlugin) as the Score plugin `name`: every
/// scheduler built from then on can enable it by name, and builds its own instance (cls()).
/// Registering a name again replaces its class. Throws std::invalid_argument when a C++ plugin
/// has the name.
void register_score_plugin(const std::string& name, py::object cls);

/// The same for a tidesim.FilterPlugin: its filter() returns True, or False or a reason.
void register_filter_plugin(const std::string& name, py::object cls);

/// Adds the plugin classes (CycleState, Pod, Node), PluginError and register_score_plugin to `m`.
void bind_plugins(py::module_& m);

}  // namespace tidesim::python
