#pragma once
/// Kueue's resource transformations (Configuration `resources.transformations`,
/// kubernetes-sigs/kueue
/// @ff69552, apis/config/v1beta2 configuration_types.go ResourceTransformation, applied by
/// applyResourceTransformations in pkg/workload/workload.go): before a Workload's requests are
/// charged to quota, each pod's request of an input resource adds `outputs` (a quantity per unit of
/// input, times the request of `multiplyBy` when the pod requests it) and is kept (Retain, the
/// default) or dropped (Replace). The TAS placement still takes the pod's own requests
/// (docs/topology-aware.md, "Resource transformations").
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tidesim/sim/admission/tas_model.hpp"

namespace tidesim::tas {

struct ResourceTransformation {
  std::string input;
  /// Strategy Replace (true) or Retain (false, Kueue's default).
  bool replace = false;
  /// multiplyBy: a resource whose request scales the outputs; empty: none.
  std::string multiply_by;
  /// Output resource -> quantity per unit of input, in thousandths (may be negative: an
  /// allowance that offsets other outputs of the same name).
  std::map<std::string, std::int64_t> outputs_milli;
};

/// One pod's requests (Kueue's units: `cpu` in millicores, every other resource whole, as
/// resource_map gives them) as Kueue charges them to quota: untransformed resources kept; for
/// each input with a transformation, the outputs in = input x (multiplyBy) x factor, exact and
/// rounded up to the output's unit (Quantity.MilliValue() for cpu, Value() else), summed per
/// output name over the inputs and floored at zero, then added to the kept requests. An amount
/// too large for 64 bits is capped at its largest value.
ResourceMap transform_requests(const ResourceMap& per_pod,
                               const std::vector<ResourceTransformation>& transformations);

}  // namespace tidesim::tas
