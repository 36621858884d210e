#pragma once
/// Reading an `admission:` mapping's `queues:` (docs/scenarios.md, docs/quotas.md; the model is
/// sim/admission/quota.hpp).
#include <string>

#include "tidesim/sim/admission/quota.hpp"
#include "tidesim/sim/input/config_node.hpp"
#include "tidesim/workloads/workload_spec.hpp"

namespace tidesim {

struct KueueSnapshot;

/// The queues under `path` (e.g. "policies[1].admission.queues") of `file`. With
/// `from_snapshot: true` the Topology, ResourceFlavor, ClusterQueue and LocalQueue objects of
/// `snapshot` (the scenario's cluster.snapshot; nullptr: none) come first and the mapping's own
/// declarations are added to them; a name declared in both is an error naming the snapshot's
/// object. Throws InputError naming file, line, column and field on a bad value.
QuotaConfig parse_queues(const ConfigNode& node, const std::string& file, const std::string& path,
                         const KueueSnapshot* snapshot = nullptr);

/// Each `workload.jobs[i].pod.labels` queue name (`kueue.x-k8s.io/queue-name`) of the scenario's
/// `workload` mapping must be a LocalQueue of `quotas`: else an InputError at that label
/// (`policy` names the policy in the message). Jobs from traces (`queue_from_cluster`) are
/// checked when the run starts (sim/model/admission_controller.cpp), at the `queues:` mapping.
void check_job_queues(const workloads::WorkloadSpec& workload, const QuotaConfig& quotas,
                      const std::string& policy);

}  // namespace tidesim
