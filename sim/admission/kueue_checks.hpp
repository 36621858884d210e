#pragma once
/// What Kueue's admission checks do to a topology-aware admission (kubernetes-sigs/kueue @ff69552;
/// KEP-993 admission checks; pkg/scheduler/flavorassigner/tas_flavorassigner.go
/// podSetTopologyRequest, pkg/cache/scheduler/clusterqueue.go, pkg/workload/workload.go
/// NeedsSecondPass, pkg/workload/admissionchecks.go, pkg/podset/podset.go Merge). A
/// ClusterQueue names AdmissionChecks (spec.admissionChecks: on every flavour; or
/// spec.admissionChecksStrategy with `onFlavors`). A Workload is given quota first (QuotaReserved)
/// and is Admitted once every check of its flavours is Ready:
///  - a check whose controller is ProvisioningRequest's (`kueue.x-k8s.io/provisioning-request`)
///    delays the placement of a PodSet on a flavour it applies to: the first pass reserves quota
///    with `delayedTopologyRequest: Pending` and no topologyAssignment; once every check is Ready
///    a second pass places the PodSet on the flavour it holds (without charging the quota again),
///    its pod template updated by the Ready checks' `podSetUpdates` (nodeSelector, tolerations),
///    and marks it Ready;
///  - any other check (a custom controller) leaves the placement at quota reservation; the
///    Workload waits for the check.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tidesim/sim/admission/tas_model.hpp"

namespace tidesim::tas {

/// The controller name of Kueue's ProvisioningRequest admission check
/// (kueue.ProvisioningRequestControllerName).
inline constexpr const char* kProvisioningRequestController = "kueue.x-k8s.io/provisioning-request";

/// An AdmissionCheck object (spec.controllerName) and the flavours a ClusterQueue applies it
/// to (empty: all).
struct QueueCheck {
  std::string name;
  std::string controller;
  std::set<std::string> on_flavors;
  bool applies_to(const std::string& flavor) const;
  bool provisioning() const { return controller == kProvisioningRequestController; }
};

/// status.admissionChecks[].podSetUpdates[] of a Workload.
struct PodSetUpdate {
  std::string podset;
  std::map<std::string, std::string> node_selector;
  std::vector<Toleration> tolerations;
};

/// status.admissionChecks[] of a Workload: Pending, Ready, Retry or Rejected.
struct CheckState {
  std::string name;
  std::string state = "Pending";
  std::vector<PodSetUpdate> updates;
};

/// Kueue's HasProvRequestAdmissionCheck(flavor): a ProvisioningRequest check of the queue
/// applies to `flavor` (the first pass then delays the PodSet's placement).
bool delays_topology(const std::vector<QueueCheck>& checks, const std::string& flavor);

/// The checks of the queue that apply to a Workload whose PodSets hold `flavors` (Kueue's
/// admissionChecksForAdmission), by name.
std::set<std::string> checks_for(const std::vector<QueueCheck>& checks,
                                 const std::set<std::string>& flavors);

/// The checks of `required` that are not Ready in `states` (a check without a state is
/// Pending), as "NAME (STATE)", in name order: the Workload waits for them.
std::vector<std::string> waiting_for(const std::set<std::string>& required,
                                     const std::vector<CheckState>& states);

/// Kueue's PodSetInfo.Merge of every Ready check's update for `podset` into it: nodeSelector
/// entries added (a key with another value is Kueue's error, returned: "invalid admission check
/// PodSetUpdate: conflict for nodeSelector: conflict for key=K, value1=A, value2=B"), tolerations
/// appended unless already there. "" when merged.
std::string apply_updates(TasPodSet& podset, const std::vector<CheckState>& states);

}  // namespace tidesim::tas
