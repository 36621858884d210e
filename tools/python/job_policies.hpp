#pragma once
// Job-level policies written in Python (tools/python/job_policies.cpp; docs/python.md, "A
// job-level policy in Python").
#include <pybind11/pybind11.h>

#include <string>

namespace py = pybind11;

namespace tidesim::python {

/// Registers the Python class `cls` (a tidesim.JobPolicy) as the job-level policy `name`
/// (sim/admission/job_policy_registry.hpp): a scenario's `admission: {policy: NAME}` selects it,
/// and each run builds its own instance (cls()). Registering a name again replaces its class.
/// Throws std::invalid_argument for a built-in policy's name.
void register_job_policy(const std::string& name, py::object cls);

/// Adds JobPolicyState, Job and register_job_policy to `m`.
void bind_job_policies(py::module_& m);

}  // namespace tidesim::python
