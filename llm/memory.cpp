#include "tidesim/llm/memory.hpp"

#include <algorithm>

namespace tidesim::llm {

double parameters_per_gpu(const Model& model, const Execution& exe) {
  const double t = static_cast<double>(exe.tensor_par);
  const double layers = static_cast<double>(model.layers / exe.pipeline_par);
  double p = layers * model.layer_parameters() + model.embedding_parameters();
  if (exe.pipeline_par == 1 && !model.tied_embeddings) {
    p += static_cast<double>(model.vocabulary * model.hidden);
  }
  return p / t;
}

double layer_activation_bytes(const Model& model, const Execution& exe, Recompute recompute) {
  const double e = bytes_per_element(exe.datatype);
  const double t = static_cast<double>(exe.tensor_par);
  const double tokens = static_cast<double>(exe.microbatch_size) * static_cast<double>(model.seq);
  // Outside the TP regions (norms, dropouts, the inputs of the first matmuls) every TP rank
  // holds the whole tensor, unless sequence parallelism splits it.
  const double r = exe.sequence_parallel() ? 1.0 / t : 1.0;
  const double th = tokens * static_cast<double>(model.hidden);
  if (recompute == Recompute::full) {
    return e * th * r;  // the layer's input only
  }
  const double q = static_cast<double>(model.heads * model.head_size) / t;
  const double kv = kv_width_per_rank(model, exe.tensor_par);
  const double f = static_cast<double>(model.ffn) / t;
  const double norms = 2 * e * th * r;  // inputs of the two norms
  // QKV input, Q, K, V, the output projection's input, the dropout mask (1 byte).
  double attention = e * th * r + e * tokens * (q + 2 * kv) + e * tokens * q + th * r;
  if (recompute == Recompute::none) {
    // softmax output, dropout mask (1 byte) and dropout output: 5as^2b/t bytes at 16-bit
    const double scores = static_cast<double>(exe.microbatch_size) *
                          static_cast<double>(model.heads) / t * static_cast<double>(model.seq) *
                          static_cast<double>(model.seq);
    attention += (2 * e + 1) * scores;
  }
  // First matmul's input, the activation's inputs ((m-1) x f), the second matmul's input (f),
  // the dropout mask.
  const double mlp =
      e * th * r + e * tokens * f * (model.ffn_matrices - 1) + e * tokens * f + th * r;
  return norms + attention + mlp;
}

namespace {

// Micro-batches whose activations the first stage holds at once under 1F1B: pipeline_par (or
// all when fewer), times 1 + (p-1)/(p v) under the interleaved schedule (Korthikanti et al.
// 2022 section 4.2.3).
double in_flight(const Execution& exe) {
  const double p = static_cast<double>(exe.pipeline_par);
  const double v = static_cast<double>(exe.pipeline_interleaving);
  const double m = static_cast<double>(exe.microbatches());
  const double held = exe.training ? std::min(p, m) : 1.0;
  return exe.pipeline_interleaving > 1 ? held * (1 + (p - 1) / (p * v)) : held;
}

}  // namespace

MemoryParts memory_per_gpu(const Model& model, const Execution& exe) {
  const double e = bytes_per_element(exe.datatype);
  const double p = parameters_per_gpu(model, exe);
  const double shards = exe.optimizer_sharding ? static_cast<double>(exe.data_par) : 1.0;
  MemoryParts m;
  m.weights = p * e;
  if (exe.training) {
    m.gradients = p * std::max(e, 4.0);
    m.optimizer = p * (e < 4 ? 12.0 : 8.0) / shards;
  }
  const double layers = static_cast<double>(model.layers / exe.pipeline_par);
  const double per_layer = layer_activation_bytes(model, exe, exe.activation_recompute);
  m.activations = exe.training ? per_layer * layers * in_flight(exe) : per_layer;
  if (exe.training && exe.activation_recompute != Recompute::none) {
    m.activation_workspace = layer_activation_bytes(model, exe, Recompute::none) -
                             (exe.activation_recompute == Recompute::full ? 0.0 : per_layer);
  }
  // Offloaded state lives in the second tier; HBM keeps two layers' worth of it to stream
  // through (an assumption: a double buffer).
  const double keep = 2.0 / std::max(layers, 2.0);
  auto offload = [&](bool on, double& part) {
    if (on) {
      m.offloaded += part * (1 - keep);
      part *= keep;
    }
  };
  offload(exe.weight_offload, m.weights);
  offload(exe.activations_offload, m.activations);
  offload(exe.optimizer_offload, m.optimizer);
  return m;
}

}  // namespace tidesim::llm
