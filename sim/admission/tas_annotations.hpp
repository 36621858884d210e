#pragma once
/// The one reader of Kueue's PodSet topology annotations (`kueue.x-k8s.io/podset-*` on a pod
/// template), as Kueue's jobframework builds a PodSet's topologyRequest from them
/// (kubernetes-sigs/kueue @ff69552, pkg/controller/jobframework/tas.go,
/// podSetTopologyRequestBuilder): runs read a job's template with it
/// (sim/model/topology_admission.cpp) and `tidesim admit` a Workload's PodSets
/// (tools/lib/kueue_workload.cpp), with the same rules and messages.
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include "tidesim/sim/admission/tas_model.hpp"

namespace tidesim::tas {

inline constexpr const char* kAnnotationPrefix = "kueue.x-k8s.io/";

/// A value Kueue refuses: `annotation` is the whole key, `message` what is wrong with it.
class TasAnnotationError : public std::runtime_error {
 public:
  TasAnnotationError(std::string annotation, std::string message);
  const std::string& annotation() const { return annotation_; }
  const std::string& message() const { return message_; }

 private:
  std::string annotation_;
  std::string message_;
};

/// The request the annotations ask for; nullopt when they ask for none (TAS may still be
/// implied by the flavour). `podset-required-topology` wins over `podset-preferred-topology`,
/// which wins over `podset-unconstrained-topology` (strconv.ParseBool's spellings); a slice
/// needs both `podset-slice-required-topology` and `podset-slice-size` (a whole number of at
/// least 1); `podset-slice-required-topology-constraints` (a JSON list of 1 to 3
/// `{"topology", "size"}`) replaces them; `podset-group-name` counts only with a required or
/// preferred level. Throws TasAnnotationError on a bad value.
std::optional<TopologyRequest> request_from_annotations(
    const std::map<std::string, std::string>& annotations);

/// Kueue's rule for a count written as text (an annotation's value, a Workload's field): a whole
/// number from `min` to 2^31 - 1. Returns "" and sets `out` when `s` is one, else why not.
std::string int32_at_least(const std::string& s, std::int32_t min, std::int32_t& out);

}  // namespace tidesim::tas
