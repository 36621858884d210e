// Score and Filter plugins written in Python (docs/python.md, "Plugins in Python"): a class
// deriving from tidesim.ScorePlugin or tidesim.FilterPlugin, put by name into a plugin registry
// value (policies/registry.hpp) that the Python caller owns (tidesim.Registry), through a C++
// plugin that calls it, so that any KubeSchedulerConfiguration profile loaded with that registry
// can enable it. Nothing here is process-wide: two registries may hold different classes of one
// name, and runs loaded with each call their own.
#include "tidesim/tools/python/plugins.hpp"

#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "tidesim/policies/framework.hpp"
#include "tidesim/policies/registry.hpp"
#include "tidesim/sim/admission/job_policy_registry.hpp"
#include "tidesim/tools/python/plugin_views.hpp"

namespace tidesim::python {
namespace {

py::dict resources_dict(const Resources& r) {
  py::dict d;
  d["cpu_milli"] = r.cpu_milli;
  d["memory_bytes"] = r.memory_bytes;
  d["gpus"] = r.gpus;
  d["gpu_milli"] = r.gpu_milli;
  return d;
}

// One instance of a plugin's Python class: one per scheduler (per policy and seed), so an
// instance sees the cycles of one run only, in order. Each call holds the GIL: with several
// threads, calls of Python plugins take turns.
class PythonInstance {
 public:
  // Made under the GIL. `reads_metrics` (a class attribute, False by default) makes the run
  // build its telemetry, which Node.telemetry and Node.cards read.
  PythonInstance(std::string name, py::object instance)
      : name_(std::move(name)),
        reads_metrics_(py::bool_(py::getattr(instance, "reads_metrics", py::bool_(false)))),
        instance_(std::move(instance)) {}
  PythonInstance(const PythonInstance&) = delete;
  PythonInstance& operator=(const PythonInstance&) = delete;
  ~PythonInstance() {
    py::gil_scoped_acquire gil;
    instance_ = py::object();
  }

 protected:
  // Calls the instance's `method` with the cycle's state, the pod and the node (views valid
  // during the call only) and returns what `interpret` makes of the result, under the GIL. A
  // Python exception becomes PythonPluginError with the plugin's name and the traceback.
  template <class Interpret>
  auto call(const char* method, policies::CycleContext& ctx, const PodSpec& pod, int node_index,
            Interpret&& interpret) {
    py::gil_scoped_acquire gil;
    auto token = std::make_shared<CallToken>();
    struct Expire {
      CallToken& token;
      ~Expire() { token.alive = false; }
    } expire{*token};
    try {
      return interpret(
          instance_.attr(method)(StateRef{&ctx, token}, PodRef{&pod, token},
                                 NodeRef{&ctx.cluster.nodes[static_cast<std::size_t>(node_index)],
                                         node_index, token, &ctx}));
    } catch (py::error_already_set& e) {
      rethrow_python_error(e, "Python plugin " + name_ + " failed in " + method + "()");
    }
  }

  std::string name_;
  bool reads_metrics_ = false;

 private:
  py::object instance_;
};

// A Score plugin: score() returns an int in [0, 100].
class PythonScore final : public policies::ScorePlugin, PythonInstance {
 public:
  using PythonInstance::PythonInstance;
  std::string_view name() const override { return name_; }
  bool reads_metrics() const override { return reads_metrics_; }
  // The run labels each pod with its job, kind and model for the Node view's pods.
  bool wants_workload() const override { return true; }

  std::int64_t score(policies::CycleContext& ctx, const PodSpec& pod, int node_index) override {
    return call("score", ctx, pod, node_index, [this](const py::object& result) {
      // An int of any kind (numpy.int64 too) in [0, 100]; 2**70 or 1.5 is not a score.
      const auto value = python_int_in(result, policies::kMinNodeScore, policies::kMaxNodeScore);
      if (!value) {
        throw PythonPluginError("Python plugin " + name_ + ": score() returned " +
                                py::repr(result).cast<std::string>() + ", not an int in [0, 100]");
      }
      return *value;
    });
  }
};

// A Filter plugin: filter() returns True (the node fits), or False or a string (it does not: the
// string is the reason, as Kubernetes' messages).
class PythonFilter final : public policies::FilterPlugin, PythonInstance {
 public:
  using PythonInstance::PythonInstance;
  std::string_view name() const override { return name_; }
  bool reads_metrics() const override { return reads_metrics_; }
  // The run labels each pod with its job, kind and model for the Node view's pods.
  bool wants_workload() const override { return true; }

  policies::Status filter(policies::CycleContext& ctx, const PodSpec& pod,
                          int node_index) override {
    return call("filter", ctx, pod, node_index, [&](const py::object& result) {
      if (py::isinstance<py::bool_>(result)) {
        return result.cast<bool>()
                   ? policies::Status::success()
                   : policies::reject(ctx, policies::Code::kUnschedulable, "rejected by " + name_);
      }
      if (py::isinstance<py::str>(result)) {
        return policies::reject(ctx, policies::Code::kUnschedulable, result.cast<std::string>());
      }
      throw PythonPluginError("Python plugin " + name_ + ": filter() returned " +
                              py::repr(result).cast<std::string>() +
                              ", not True, False or a reason (a string)");
    });
  }
};

}  // namespace

void rethrow_python_error(py::error_already_set& e, const std::string& what) {
  if (e.matches(PyExc_KeyboardInterrupt)) {
    throw PythonInterrupt(what + ": interrupted");
  }
  throw PythonPluginError(what + ":\n" + traceback_text(e));
}

std::optional<std::int64_t> python_int_in(const py::handle& value, std::int64_t lo,
                                          std::int64_t hi) {
  if (py::isinstance<py::bool_>(value) || !PyIndex_Check(value.ptr())) {
    return std::nullopt;
  }
  const py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr()));
  if (!index) {
    PyErr_Clear();
    return std::nullopt;
  }
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (overflow != 0 || (v == -1 && PyErr_Occurred() != nullptr)) {
    PyErr_Clear();
    return std::nullopt;
  }
  if (v < lo || v > hi) {
    return std::nullopt;
  }
  return static_cast<std::int64_t>(v);
}

std::string traceback_text(py::error_already_set& e) {
  try {
    const py::object lines =
        py::module_::import("traceback").attr("format_exception")(e.type(), e.value(), e.trace());
    std::string text;
    for (const auto& line : lines) {
      text += line.cast<std::string>();
    }
    while (!text.empty() && text.back() == '\n') {
      text.pop_back();
    }
    return text;
  } catch (const std::exception&) {
    return e.what();
  }
}

namespace {

// The entry of the plugin `name` that `Adapter` (PythonScore, PythonFilter) makes of `cls`.
template <class Adapter>
policies::RegistryEntry python_entry(const std::string& name, py::object cls) {
  auto held = std::make_shared<const PythonClass>(std::move(cls));
  return policies::plugin_without_args([name, held]() -> std::unique_ptr<policies::Plugin> {
    py::gil_scoped_acquire gil;
    try {
      return std::make_unique<Adapter>(name, held->make());
    } catch (py::error_already_set& e) {
      rethrow_python_error(e, "Python plugin " + name + " failed in __init__()");
    }
  });
}

}  // namespace

void check_plugin_name(const std::string& name) {
  if (policies::builtin_registry().contains(name)) {
    throw std::invalid_argument("a plugin named '" + name + "' is already registered");
  }
}

PluginRegistry make_registry(const std::vector<PythonPlugin>& plugins,
                             std::vector<JobPolicyEntry> job_policies) {
  policies::Registry extra;
  for (const auto& p : plugins) {
    check_plugin_name(p.name);
    if (p.kind != "score" && p.kind != "filter") {
      throw std::invalid_argument("plugin '" + p.name + "': kind '" + p.kind +
                                  "' is neither 'score' nor 'filter'");
    }
    auto entry = p.kind == "score" ? python_entry<PythonScore>(p.name, p.cls)
                                   : python_entry<PythonFilter>(p.name, p.cls);
    if (!extra.emplace(p.name, std::move(entry)).second) {
      throw std::invalid_argument("two plugins are named '" + p.name + "'");
    }
  }
  return PluginRegistry{
      policies::registry_with(policies::builtin_registry(), std::move(extra)),
      job_policy_registry_with(*default_job_policy_registry(), std::move(job_policies))};
}

void bind_plugins(py::module_& m) {
  py::register_exception<PythonPluginError>(m, "PluginError", PyExc_RuntimeError);
  // Ctrl-C in a plugin's call stops the run and reaches Python as the KeyboardInterrupt it was.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) {
        std::rethrow_exception(p);
      }
    } catch (const PythonInterrupt& e) {
      PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
    }
  });

  py::class_<StateRef>(m, "CycleState", "What one scheduling cycle sees (read-only)")
      .def_property_readonly("now_s", [](const StateRef& s) { return to_seconds(s.get().now); })
      .def_property_readonly("cycle", [](const StateRef& s) { return s.get().cycle; })
      .def_property_readonly("node_count",
                             [](const StateRef& s) { return s.get().cluster.nodes.size(); })
      .def(
          "node",
          [](const StateRef& s, int index) {
            const auto& nodes = s.get().cluster.nodes;
            if (index < 0 || static_cast<std::size_t>(index) >= nodes.size()) {
              throw py::index_error("no node " + std::to_string(index));
            }
            return NodeRef{&nodes[static_cast<std::size_t>(index)], index, s.token, s.ctx};
          },
          py::arg("index"));

  py::class_<PodRef>(m, "Pod", "The pod being scheduled (read-only)")
      .def_property_readonly("name", [](const PodRef& p) { return p.get().name; })
      .def_property_readonly("namespace", [](const PodRef& p) { return p.get().namespace_name; })
      .def_property_readonly("labels", [](const PodRef& p) { return p.get().labels; })
      .def_property_readonly("annotations", [](const PodRef& p) { return p.get().annotations; })
      .def_property_readonly("env", [](const PodRef& p) { return p.get().env; })
      .def_property_readonly("priority", [](const PodRef& p) { return p.get().priority; })
      .def_property_readonly("requests",
                             [](const PodRef& p) { return resources_dict(p.get().requests); })
      .def_property_readonly("gpus", [](const PodRef& p) { return p.get().requests.gpus; });

  py::class_<NodeRef> node(m, "Node", "A node and what is bound to it (read-only)");
  node.def_property_readonly("index", [](const NodeRef& n) { return n.index; })
      .def_property_readonly("name", [](const NodeRef& n) { return n.get().node.name; })
      .def_property_readonly("labels", [](const NodeRef& n) { return n.get().node.labels; })
      .def_property_readonly("pod_count", [](const NodeRef& n) { return n.get().pods.size(); })
      .def_property_readonly("pod_names",
                             [](const NodeRef& n) {
                               std::vector<std::string> names;
                               for (const auto& p : n.get().pods) {
                                 names.push_back(p->name);
                               }
                               return names;
                             })
      .def_property_readonly(
          "allocatable", [](const NodeRef& n) { return resources_dict(n.get().node.allocatable); })
      .def_property_readonly("requested",
                             [](const NodeRef& n) { return resources_dict(n.get().requested); });
  bind_gpu_views(node);

  py::class_<PluginRegistry>(m, "PluginRegistry",
                             "A plugin registry value: the built-ins plus some Python plugins")
      .def("names", [](const PluginRegistry& r) {
        std::vector<std::string> names;
        for (const auto& [name, entry] : *r.registry) {
          names.push_back(name);
        }
        return names;
      });
  m.def("check_plugin_name", &check_plugin_name, py::arg("name"));
}

}  // namespace tidesim::python
