#pragma once
/// The placement a stated run time is measured on: a job alone on an empty cluster, its pods
/// packed onto the fewest nodes (and so the fewest fabric domains) of its reference GPU model.
/// A sampled or traced run time is converted to steps at the job's step time there,
/// communication included, so that a job placed so runs its stated time; placed otherwise it
/// runs faster or slower by what the model says (docs/model-workloads.md, "Run times").
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "tidesim/sim/scenario/scenario.hpp"
#include "tidesim/workloads/job.hpp"
#include "tidesim/workloads/step_time.hpp"

namespace tidesim {

/// The reference GPU model of a scenario's jobs that name none: `workload.reference_gpu` when
/// set, else the cluster's GPU model with the most GPUs (ties: the first name in alphabetical
/// order; never the order of the node groups); "" for a cluster without GPUs.
std::string default_reference_gpu(const Scenario& scenario);

class ReferenceSpeed {
 public:
  /// References on the node groups of `scenario` (kept by reference: it must outlive this).
  explicit ReferenceSpeed(const Scenario& scenario);
  ~ReferenceSpeed();
  ReferenceSpeed(const ReferenceSpeed&) = delete;
  ReferenceSpeed& operator=(const ReferenceSpeed&) = delete;

  /// The step conditions of `job` alone on its reference placement on nodes of `gpu`: the burst
  /// bandwidth and latency of its ring there (ring_path), its GPUs; input and compute as alone.
  /// Without a ring (one GPU), without nodes of `gpu` in the cluster, or when the job does not
  /// fit them all: no communication (the compute-only step).
  workloads::StepConditions conditions(const workloads::JobSpec& job, const std::string& gpu);

 private:
  struct Reference;
  // The reference nodes of `gpu` with at least `nodes` nodes when the cluster has them (built
  // again, larger, when a job needs more); null when the cluster has no node of `gpu`.
  Reference* reference(const std::string& gpu, int nodes);
  std::optional<workloads::StepConditions> place(Reference& ref, const workloads::JobSpec& job);

  const Scenario& scenario_;
  std::map<std::string, std::unique_ptr<Reference>> references_;
  // By (GPU, GPUs per pod, GPU share per pod, pods).
  std::map<std::tuple<std::string, std::int64_t, std::int64_t, int>, workloads::StepConditions>
      cache_;
};

}  // namespace tidesim
