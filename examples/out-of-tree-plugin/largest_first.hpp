#pragma once
// LargestFirst: an out-of-tree job-level policy (docs/writing-a-policy.md, "A job-level policy").
// Jobs asking for more GPUs go first (ties by submission); non-preemptive, with backfill: a large
// job is not starved behind a stream of small ones that would fragment the cluster.
#include <tidesim/sim/admission/job_policy.hpp>
#include <tidesim/sim/admission/job_policy_registry.hpp>

namespace fewest {

class LargestFirst final : public tidesim::OrderedJobPolicy {
 public:
  explicit LargestFirst(bool backfill) : OrderedJobPolicy(/*preemptive=*/false, backfill) {}
  std::string_view name() const override { return "largest-first"; }
  bool before(const tidesim::JobView& a, const tidesim::JobView& b) const override;
};

/// Its registry entry: the name, the `admission:` keys it reads (backfill) and its factory.
tidesim::JobPolicyEntry largest_first_entry();

}  // namespace fewest
