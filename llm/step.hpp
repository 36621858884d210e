#pragma once
/// The time of one training step (one optimizer step over the global batch) and its parts.
#include <string>

#include "tidesim/llm/execution.hpp"
#include "tidesim/llm/memory.hpp"
#include "tidesim/llm/model.hpp"
#include "tidesim/llm/system.hpp"

namespace tidesim::llm {

/// The network each parallel group's traffic crosses. networks_of() takes them from the system by
/// the execution's indices; a simulation replaces each with what its group really gets on the
/// fabric (the slowest tier it spans, its share of contended links).
struct NetworkChoice {
  Network tp;
  Network pp;
  Network dp;
};

/// The system's networks at exe's tensor_par_net, pipeline_par_net and data_par_net (which
/// validate() has checked).
NetworkChoice networks_of(const System& system, const Execution& exe);

/// Seconds of one step by part; they add up to StepBreakdown::step_seconds.
struct StepParts {
  double forward = 0;    ///< every micro-batch's forward kernels on one GPU
  double backward = 0;   ///< activation and weight gradients
  double recompute = 0;  ///< forward kernels run again in backward
  double tp_comm = 0;    ///< exposed TP collectives (recomputation's included)
  double pp_comm = 0;    ///< pipeline transfers between stages
  double dp_comm = 0;    ///< exposed DP gradient reduction (and weight gather when sharded)
  double bubble = 0;     ///< pipeline fill and drain
  double optimizer = 0;  ///< the Adam step
  double offload = 0;    ///< exposed streaming of offloaded state
  double compute() const { return forward + backward + recompute + optimizer; }
  double total() const {
    return forward + backward + recompute + tp_comm + pp_comm + dp_comm + bubble + optimizer +
           offload;
  }
};

/// A step's time, memory and utilisation.
struct StepBreakdown {
  double step_seconds = 0;
  StepParts parts;
  MemoryParts memory;      ///< per GPU, bytes
  double capacity = 0;     ///< HBM bytes per GPU
  bool fits = false;       ///< memory.total() <= capacity
  double model_flops = 0;  ///< per step, all GPUs (Narayanan et al. 2021 eq. 3, generalised)
  double mfu = 0;          ///< model_flops / (step_seconds x GPUs x matrix peak)
  std::int64_t microbatches = 0;
  std::int64_t gpus = 0;
};

/// Model FLOPs of one step: 3 (forward and backward) x batch x seq x (layers x the per-token
/// matmul and attention flops + 2 hidden vocabulary for the logits); recomputation not counted.
/// For GPT (f = 4h, multi-head) it is Narayanan et al.'s 72 B s l h^2 (1 + s/(6h) + V/(12 l h)).
double model_flops(const Model& model, const Execution& exe);

/// Bytes each GPU sends per step on its pipeline-parallel and data-parallel networks: the
/// pipeline transfers (per micro-batch and chunk, each way) and the gradient reduction's ring
/// volume (2 S (d - 1) / d for S bytes of gradients over d data-parallel ranks, the same with the
/// optimizer sharded: reduce-scatter plus all-gather), as step() prices them. What a job sends
/// over the fabric when its pipeline and data-parallel groups span nodes.
double fabric_bytes_per_gpu(const Model& model, const Execution& exe);

/// The step of `model` trained as `exe` on `system`, its traffic on `nets`. Assumes validate()
/// passed (llm/validate.hpp).
StepBreakdown step(const Model& model, const Execution& exe, const System& system,
                   const NetworkChoice& nets);

/// validate() then step() on the system's own networks.
StepBreakdown step(const Model& model, const Execution& exe, const System& system);

}  // namespace tidesim::llm
