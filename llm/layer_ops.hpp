#pragma once
/// One transformer layer's kernels on one GPU for one micro-batch, and their times: the
/// op-by-op cost model of Calculon (calculon-ai/calculon, calculon/llm/layers.py), written anew.
#include <vector>

#include "tidesim/llm/execution.hpp"
#include "tidesim/llm/model.hpp"
#include "tidesim/llm/system.hpp"

namespace tidesim::llm {

/// One forward kernel: its flops and the bytes it moves through HBM.
struct Op {
  const char* name = "";
  double flops = 0;
  double bytes = 0;
  bool matrix = false;          ///< on the tensor cores (else the vector units)
  bool attention_core = false;  ///< recomputed by selective recomputation (attn_only)
  bool linear = false;          ///< a weight matmul next to a TP collective (for TP overlap)
};

/// The forward kernels of one layer for one micro-batch on one GPU of the TP group, in order.
std::vector<Op> layer_forward_ops(const Model& model, const Execution& exe);

/// Seconds for a kernel of `flops` and `bytes`: flops / (peak x efficiency(flops)) and bytes /
/// (HBM bandwidth x efficiency(bytes)), added (no_overlap) or the larger (roofline).
double kernel_seconds(double flops, double bytes, bool matrix, const System& system,
                      const std::string& datatype);

/// One layer's times for one micro-batch, seconds.
struct LayerTimes {
  double forward = 0;
  /// Activation and weight gradients: each matmul twice (its two gradients), each vector kernel
  /// once with half again its bytes (it reads the stored input and the output's gradient).
  double backward = 0;
  double recompute = 0;       ///< the forward kernels recomputed in backward
  double linear_forward = 0;  ///< the weight matmuls' share of forward (TP overlap hides behind it)
  double linear_backward = 0;  ///< and of backward
};

/// The times of one layer under `exe` on `system`.
LayerTimes layer_times(const Model& model, const Execution& exe, const System& system);

/// The last stage's extra kernels for one micro-batch: the final norm, the logits (hidden x
/// vocabulary, split by TP as Megatron's vocabulary-parallel output layer) and the cross-entropy.
std::vector<Op> output_layer_ops(const Model& model, const Execution& exe);

/// The times of the output layer (never recomputed).
LayerTimes output_layer_times(const Model& model, const Execution& exe, const System& system);

}  // namespace tidesim::llm
