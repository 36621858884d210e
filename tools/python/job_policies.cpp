// Job-level policies written in Python (docs/python.md, "A job-level policy in Python"): a class
// deriving from tidesim.JobPolicy, put by name into a job-level policy registry value
// (sim/admission/job_policy_registry.hpp) that the Python caller owns (tidesim.Registry), through
// a C++ policy that calls it. Nothing here is process-wide: two registries may hold different
// classes of one name, and runs loaded with each call their own.
#include "tidesim/tools/python/job_policies.hpp"

#include <pybind11/stl.h>

#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "tidesim/sim/admission/job_policy_registry.hpp"
#include "tidesim/tools/python/plugins.hpp"

namespace tidesim::python {
namespace {

// The state handed to one decide() call, readable during the call only.
struct StateRef {
  const JobPolicyState* state;
  std::shared_ptr<bool> alive;
  const JobPolicyState& get() const {
    if (!*alive) {
      throw std::runtime_error("a job-level policy's state is valid only during decide()");
    }
    return *state;
  }
};

// A job id from Python: an int (numpy's too), not a bool, within an int.
int job_id(const py::handle& h, const std::string& policy) {
  const auto id =
      python_int_in(h, std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
  if (!id) {
    throw PythonPluginError("Python job policy " + policy + ": decide() returned " +
                            py::repr(h).cast<std::string>() +
                            " where a job id (an int) was expected");
  }
  return static_cast<int>(*id);
}

// The C++ policy over one instance of the Python class: one per run.
class PythonJobPolicy final : public JobPolicy {
 public:
  PythonJobPolicy(std::string name, py::object instance, std::optional<Duration> interval)
      : name_(std::move(name)), instance_(std::move(instance)), interval_(interval) {}
  PythonJobPolicy(const PythonJobPolicy&) = delete;
  PythonJobPolicy& operator=(const PythonJobPolicy&) = delete;
  ~PythonJobPolicy() override {
    py::gil_scoped_acquire gil;
    instance_ = py::object();
  }

  std::string_view name() const override { return name_; }
  std::optional<Duration> interval() const override { return interval_; }

  JobDecision decide(const JobPolicyState& state) override {
    py::gil_scoped_acquire gil;
    auto alive = std::make_shared<bool>(true);
    struct Expire {
      bool& alive;
      ~Expire() { alive = false; }
    } expire{*alive};
    try {
      const py::object result = instance_.attr("decide")(StateRef{&state, alive});
      JobDecision d;
      if (py::isinstance<py::dict>(result)) {
        // {job id: None (anywhere) or [node names]}
        for (const auto& [key, value] : result.cast<py::dict>()) {
          const int j = job_id(key, name_);
          d.run.push_back(j);
          if (!value.is_none()) {
            d.nodes[j] = value.cast<std::vector<std::string>>();
          }
        }
      } else if (py::isinstance<py::iterable>(result) && !py::isinstance<py::str>(result)) {
        for (const auto& item : result) {
          d.run.push_back(job_id(item, name_));
        }
      } else {
        throw PythonPluginError("Python job policy " + name_ + ": decide() returned " +
                                py::repr(result).cast<std::string>() +
                                ", not a list of job ids or a dict {job id: nodes or None}");
      }
      return d;
    } catch (py::error_already_set& e) {
      rethrow_python_error(e, "Python job policy " + name_ + " failed in decide()");
    } catch (const py::cast_error&) {
      throw PythonPluginError("Python job policy " + name_ +
                              ": decide() returned nodes that are not a list of node names");
    }
  }

 private:
  std::string name_;
  py::object instance_;
  std::optional<Duration> interval_;
};

std::unique_ptr<JobPolicy> make_python_policy(const std::string& name, const PythonClass& cls,
                                              const AdmissionConfig& config) {
  py::gil_scoped_acquire gil;
  try {
    py::object instance = cls.make();
    py::dict args;
    for (const auto& [key, value] : config.args) {
      args[py::str(key)] = value;
    }
    instance.attr("args") = args;
    std::optional<Duration> interval;
    const py::object seconds = py::getattr(instance, "interval_s", py::none());
    if (!seconds.is_none()) {
      const double s = seconds.cast<double>();
      if (!(s >= 0.001 && s <= 1e9)) {
        throw PythonPluginError("Python job policy " + name +
                                ": interval_s must be None or seconds in [0.001, 1e9]");
      }
      interval = std::chrono::duration_cast<Duration>(std::chrono::duration<double>(s));
    }
    return std::make_unique<PythonJobPolicy>(name, std::move(instance), interval);
  } catch (py::error_already_set& e) {
    rethrow_python_error(e, "Python job policy " + name + " failed in __init__()");
  }
}

}  // namespace

void check_job_policy_name(const std::string& name) {
  if (JobPolicyRegistry::builtin().find(name) != nullptr) {
    throw std::invalid_argument("'" + name + "' is a built-in job-level policy");
  }
}

JobPolicyEntry python_job_policy(const std::string& name, py::object cls) {
  check_job_policy_name(name);
  auto held = std::make_shared<const PythonClass>(std::move(cls));
  return JobPolicyEntry{name,
                        {AdmissionKey::kEstimateSigma, AdmissionKey::kArgs},
                        [name, held](const AdmissionConfig& config) {
                          return make_python_policy(name, *held, config);
                        },
                        false,
                        false,
                        nullptr};
}

void bind_job_policies(py::module_& m) {
  py::class_<JobView>(m, "Job", "What a job-level policy sees of one active job (read-only)")
      .def_readonly("id", &JobView::id)
      .def_readonly("name", &JobView::name)
      .def_property_readonly("submitted_s",
                             [](const JobView& j) { return to_seconds(j.submitted); })
      .def_readonly("order", &JobView::order)
      .def_readonly("gpus", &JobView::gpus)
      .def_readonly("admitted", &JobView::admitted)
      .def_readonly("estimate_s", &JobView::estimate_s)
      .def_readonly("remaining_s", &JobView::remaining_s)
      .def_readonly("progress", &JobView::progress)
      .def_readonly("attained_gpu_s", &JobView::attained_gpu_s)
      .def_readonly("admitted_s", &JobView::admitted_s)
      .def_readonly("waiting_s", &JobView::waiting_s)
      .def_readonly("restarts", &JobView::restarts)
      .def_readonly("pods", &JobView::pods)
      .def_readonly("pods_bound", &JobView::pods_bound)
      .def_readonly("replicas", &JobView::replicas)
      .def_readonly("gpus_per_replica", &JobView::gpus_per_replica)
      .def_readonly("elastic", &JobView::elastic)
      .def_readonly("min_replicas", &JobView::min_replicas)
      .def_readonly("max_replicas", &JobView::max_replicas)
      .def_readonly("batch_size", &JobView::batch_size)
      .def_readonly("nodes", &JobView::nodes)
      .def_readonly("placement", &JobView::placement)
      .def("__repr__", [](const JobView& j) {
        return "<tidesim.Job " + std::to_string(j.id) + " '" + j.name + "' " +
               std::to_string(j.gpus) + " GPUs" + (j.admitted ? ", admitted>" : ">");
      });

  py::class_<StateRef>(m, "JobPolicyState", "What a job-level policy sees at a decision")
      .def_property_readonly("now_s", [](const StateRef& s) { return to_seconds(s.get().now); })
      .def_property_readonly("jobs", [](const StateRef& s) { return s.get().jobs; })
      .def_property_readonly("capacity_gpus",
                             [](const StateRef& s) { return s.get().capacity_gpus; })
      .def_property_readonly("admitted_gpus",
                             [](const StateRef& s) { return s.get().admitted_gpus; })
      .def_property_readonly(
          "free_gpus",
          [](const StateRef& s) { return s.get().capacity_gpus - s.get().admitted_gpus; })
      .def(
          "nodes",
          [](const StateRef& s) {
            py::list nodes;
            if (const ClusterView* c = s.get().cluster) {
              for (const NodeInfo& n : c->nodes) {
                py::dict d;
                d["name"] = n.node.name;
                d["gpus"] = n.node.allocatable.gpus;
                d["gpus_allocated"] = n.requested.gpus;
                nodes.append(d);
              }
            }
            return nodes;
          },
          "Each node's name, GPUs and GPUs allocated now (bound or reserved pods)")
      .def(
          "step_seconds",
          [](const StateRef& s, int job, const std::vector<int>& placement) {
            const JobPolicyState& st = s.get();
            if (!st.step_seconds) {
              throw std::runtime_error("this state has no step-time model");
            }
            return st.step_seconds(job, placement);
          },
          py::arg("job"), py::arg("placement"),
          "Seconds per step of `job` on `placement` (GPUs per node used), without contention")
      .def(
          "throughput",
          [](const StateRef& s, int job, const std::vector<int>& placement) {
            const JobPolicyState& st = s.get();
            if (!st.step_seconds) {
              throw std::runtime_error("this state has no step-time model");
            }
            const double step = st.step_seconds(job, placement);
            return step > 0.0 ? 1.0 / step : 0.0;
          },
          py::arg("job"), py::arg("placement"),
          "Steps per second of `job` on `placement` (GPUs per node used), without contention: "
          "1 / step_seconds (0 when the step time is not positive)");

  m.def("check_job_policy_name", &check_job_policy_name, py::arg("name"));
  m.def(
      "make_registry",
      [](const std::vector<py::tuple>& plugins, const std::vector<py::tuple>& job_policies) {
        std::vector<PythonPlugin> list;
        for (const auto& t : plugins) {
          list.push_back(PythonPlugin{t[0].cast<std::string>(), t[1].cast<std::string>(),
                                      py::reinterpret_borrow<py::object>(t[2])});
        }
        std::vector<JobPolicyEntry> entries;
        for (const auto& t : job_policies) {
          entries.push_back(python_job_policy(t[0].cast<std::string>(),
                                              py::reinterpret_borrow<py::object>(t[1])));
        }
        return make_registry(list, std::move(entries));
      },
      py::arg("plugins"), py::arg("job_policies"));
}

}  // namespace tidesim::python
