#pragma once
/// Memory per GPU of a training layout, by part.
#include "tidesim/llm/execution.hpp"
#include "tidesim/llm/model.hpp"
#include "tidesim/llm/system.hpp"

namespace tidesim::llm {

/// Bytes per GPU of the busiest pipeline stage (the first: it holds the embedding and the most
/// micro-batches in flight).
struct MemoryParts {
  double weights = 0;
  double gradients = 0;    ///< kept in fp32 for accumulation (Megatron's main_grad)
  double optimizer = 0;    ///< Adam: fp32 master weights and two moments, split by sharding
  double activations = 0;  ///< stored for backward, all micro-batches in flight
  /// One layer's activations rebuilt during its recomputation (zero without recomputation).
  double activation_workspace = 0;
  double offloaded = 0;  ///< what the offload options keep in the second tier instead

  /// What must fit in HBM (everything but `offloaded`).
  double total() const {
    return weights + gradients + optimizer + activations + activation_workspace;
  }
};

/// Parameters held by one GPU of the first pipeline stage (its layers split by TP, plus the
/// embedding; plus the output projection when there is one stage and it is not tied).
double parameters_per_gpu(const Model& model, const Execution& exe);

/// Activation bytes one layer stores for one micro-batch on one GPU (Korthikanti et al. 2022
/// eq. 1-2: sbh(10 + 24/t + 5as/(ht)) for GPT with TP t; sbh x 34/t with sequence parallelism and
/// selective recomputation; 2sbh (/t with sequence parallelism) for full recomputation; written
/// per tensor so that grouped-query attention and SwiGLU follow).
double layer_activation_bytes(const Model& model, const Execution& exe, Recompute recompute);

/// The memory per GPU of `exe` (Megatron mixed precision: 2-byte weights, 4-byte gradients,
/// 12-byte optimizer state per parameter at 16-bit; Rajbhandari et al. 2020 section 3.1).
MemoryParts memory_per_gpu(const Model& model, const Execution& exe);

}  // namespace tidesim::llm
