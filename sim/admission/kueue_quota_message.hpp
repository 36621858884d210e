#pragma once
/// Kueue's message for a PodSet whose requests exceed what its ClusterQueue could ever give
/// (kubernetes-sigs/kueue @ff69552, pkg/scheduler/flavorassigner/flavorassigner.go
/// fitsResourceQuota, reason ExceedsMaxQuota; quantities as pkg/resources/resource_formatter.go
/// prints them). The quota walk (quota.hpp) decides whether a job fits; this names why one that
/// can never fit does not.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tidesim/sim/admission/quota.hpp"

namespace tidesim::tas {

/// A resource amount as Kueue's ResourceFormatter prints it: `cpu` from millicores in
/// Kubernetes' canonical decimal form ("2", "1500m", "2k"), `memory` and `ephemeral-storage` in
/// binary form ("1Gi", "1536Mi", "1000"), any other resource in decimal form.
std::string quantity_string(const std::string& resource, std::int64_t amount);

/// For the PodSet with `requests` (indexed like quotas.resources) in queue `queue`, after earlier
/// PodSets of the same workload took `assumed` (by slot index): for each resource group it asks
/// whose every flavour is short, Kueue's "insufficient quota for R in flavor F, previously
/// considered podsets requests (A) + current podset request (X) > maximum capacity (C)", the
/// flavours' reasons joined by ", ". The maximum capacity is the nominal quota, plus (in a cohort)
/// what the cohort's other queues lend, up to the borrowingLimit. "" when some flavour of every
/// group it asks could hold it.
std::string max_quota_refusal(const QuotaConfig& quotas, int queue,
                              const std::vector<std::int64_t>& requests,
                              const std::map<int, std::int64_t>& assumed);

}  // namespace tidesim::tas
