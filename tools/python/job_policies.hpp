#pragma once
// Job-level policies written in Python (tools/python/job_policies.cpp; docs/python.md, "A
// job-level policy in Python").
#include <pybind11/pybind11.h>

#include <string>

#include "tidesim/sim/admission/job_policy_registry.hpp"

namespace py = pybind11;

namespace tidesim::python {

/// The registry entry of the Python class `cls` (a tidesim.JobPolicy) as the job-level policy
/// `name` (sim/admission/job_policy_registry.hpp): in a registry value (make_registry), a
/// scenario's `admission: {policy: NAME}` selects it, and each run builds its own instance
/// (cls()). Throws std::invalid_argument for a built-in policy's name.
JobPolicyEntry python_job_policy(const std::string& name, py::object cls);

/// Throws std::invalid_argument when `name` is a built-in job-level policy's.
void check_job_policy_name(const std::string& name);

/// Adds JobPolicyState, Job, check_job_policy_name and make_registry (Python plugins and job
/// policies into registry values) to `m`.
void bind_job_policies(py::module_& m);

}  // namespace tidesim::python
