#pragma once
/// Reading an `admission:` mapping's `queues:` (docs/scenarios.md, docs/quotas.md; the model is
/// sim/admission/quota.hpp).
#include <string>

#include "tidesim/sim/admission/quota.hpp"
#include "tidesim/sim/input/config_node.hpp"
#include "tidesim/workloads/workload_spec.hpp"

namespace tidesim {

/// The queues under `path` (e.g. "policies[1].admission.queues") of `file`. Throws InputError
/// naming file, line, column and field on a bad value.
QuotaConfig parse_queues(const ConfigNode& node, const std::string& file, const std::string& path);

/// Each `workload.jobs[i].pod.labels` queue name (`kueue.x-k8s.io/queue-name`) of the scenario's
/// `workload` mapping must be a LocalQueue of `quotas`: else an InputError at that label
/// (`policy` names the policy in the message). Jobs from traces (`queue_from_cluster`) are
/// checked when the run starts (sim/model/admission_controller.cpp), at the `queues:` mapping.
void check_job_queues(const workloads::WorkloadSpec& workload, const QuotaConfig& quotas,
                      const std::string& policy);

}  // namespace tidesim
