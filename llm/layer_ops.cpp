#include "tidesim/llm/layer_ops.hpp"

#include <algorithm>

namespace tidesim::llm {

namespace {

// Vector kernels' flops per element: assumptions of the same order as Calculon's layers.py
// (LayerNorm about 7, softmax 5, GeLU 8, dropout 1, a residual add 1).
constexpr double kNormFlops = 7;
constexpr double kSoftmaxFlops = 5;
constexpr double kActivationFlops = 8;

struct Dims {
  double b, s, h, q, kv, head, f, heads_local, t, e, rows, ffn_in;
};

Dims dims_of(const Model& m, const Execution& x) {
  const double t = static_cast<double>(x.tensor_par);
  const double tokens = static_cast<double>(x.microbatch_size) * static_cast<double>(m.seq);
  return Dims{.b = static_cast<double>(x.microbatch_size),
              .s = static_cast<double>(m.seq),
              .h = static_cast<double>(m.hidden),
              .q = static_cast<double>(m.heads * m.head_size),
              .kv = kv_width_per_rank(m, x.tensor_par) * t,  // so that kv / t is per rank
              .head = static_cast<double>(m.head_size),
              .f = static_cast<double>(m.ffn),
              .heads_local = static_cast<double>(m.heads) / t,
              .t = t,
              .e = static_cast<double>(bytes_per_element(x.datatype)),
              // tokens whose norm, dropout and residual run on this GPU: split by sequence
              // parallelism, else every GPU of the TP group repeats them
              .rows = x.sequence_parallel() ? tokens / t : tokens,
              .ffn_in = static_cast<double>(m.ffn_matrices - 1)};
}

Op linear(const char* name, double tokens, double in, double out, double e) {
  return Op{.name = name,
            .flops = 2 * tokens * in * out,
            .bytes = (tokens * in + in * out + tokens * out) * e,
            .matrix = true,
            .linear = true};
}

Op vector_op(const char* name, double elements, double flops_per_element, double bytes) {
  return Op{.name = name, .flops = elements * flops_per_element, .bytes = bytes};
}

void attention_ops(const Dims& d, std::vector<Op>& ops) {
  const double tokens = d.b * d.s;
  const double qkv = (d.q + 2 * d.kv) / d.t;
  ops.push_back(vector_op("attn_norm", d.rows * d.h, kNormFlops, 2 * d.rows * d.h * d.e));
  ops.push_back(linear("attn_qkv", tokens, d.h, qkv, d.e));
  // Scores Q K^T and context P V, batched over the local heads; X the score elements.
  const double x = d.b * d.heads_local * d.s * d.s;
  const double q_local = d.q / d.t;
  const double kv_local = d.kv / d.t;
  ops.push_back(Op{.name = "attn_scores",
                   .flops = 2 * x * d.head,
                   .bytes = (tokens * (q_local + kv_local) + x) * d.e,
                   .matrix = true,
                   .attention_core = true});
  Op softmax = vector_op("attn_softmax", x, kSoftmaxFlops, 2 * x * d.e);
  softmax.attention_core = true;
  ops.push_back(softmax);
  Op dropout = vector_op("attn_dropout", x, 1, 2 * x * d.e + x);  // mask of one byte
  dropout.attention_core = true;
  ops.push_back(dropout);
  ops.push_back(Op{.name = "attn_context",
                   .flops = 2 * x * d.head,
                   .bytes = (x + tokens * (kv_local + q_local)) * d.e,
                   .matrix = true,
                   .attention_core = true});
  ops.push_back(linear("attn_out", tokens, q_local, d.h, d.e));
  ops.push_back(vector_op("attn_dropout_residual", d.rows * d.h, 2, (3 * d.e + 1) * d.rows * d.h));
}

void mlp_ops(const Dims& d, bool fused, std::vector<Op>& ops) {
  const double tokens = d.b * d.s;
  const double f_local = d.f / d.t;
  ops.push_back(vector_op("mlp_norm", d.rows * d.h, kNormFlops, 2 * d.rows * d.h * d.e));
  ops.push_back(linear("mlp_in", tokens, d.h, d.ffn_in * f_local, d.e));
  // A fused activation runs in the matmul's epilogue: its flops stay, its HBM traffic goes.
  const double act = tokens * f_local;
  ops.push_back(
      vector_op("mlp_activation", act, kActivationFlops, fused ? 0.0 : (d.ffn_in + 1) * act * d.e));
  ops.push_back(linear("mlp_out", tokens, f_local, d.h, d.e));
  ops.push_back(vector_op("mlp_dropout_residual", d.rows * d.h, 2, (3 * d.e + 1) * d.rows * d.h));
}

}  // namespace

std::vector<Op> layer_forward_ops(const Model& model, const Execution& exe) {
  const Dims d = dims_of(model, exe);
  std::vector<Op> ops;
  attention_ops(d, ops);
  mlp_ops(d, exe.fused_activation, ops);
  return ops;
}

double kernel_seconds(double flops, double bytes, bool matrix, const System& system,
                      const std::string& datatype) {
  const auto& units = matrix ? system.matrix : system.vector;
  const auto it = units.find(datatype);
  double compute = 0;
  if (flops > 0 && it != units.end()) {
    compute = flops / (it->second.peak_flops * it->second.efficiency.at(flops));
  }
  double memory = 0;
  if (bytes > 0) {
    memory = bytes / (system.mem1.bandwidth * system.mem1.efficiency.at(bytes));
  }
  return system.processing_mode == ProcessingMode::roofline ? std::max(compute, memory)
                                                            : compute + memory;
}

namespace {

LayerTimes times_of(const std::vector<Op>& ops, const Execution& exe, const System& system,
                    bool recomputed) {
  LayerTimes t;
  for (const Op& op : ops) {
    const double fwd = kernel_seconds(op.flops, op.bytes, op.matrix, system, exe.datatype);
    const double bwd =
        op.matrix ? 2 * fwd : kernel_seconds(op.flops, 1.5 * op.bytes, false, system, exe.datatype);
    t.forward += fwd;
    t.linear_forward += op.linear ? fwd : 0.0;
    if (exe.training) {
      t.backward += bwd;
      t.linear_backward += op.linear ? bwd : 0.0;
    }
    const bool again = exe.activation_recompute == Recompute::full ||
                       (exe.activation_recompute == Recompute::attn_only && op.attention_core);
    if (exe.training && recomputed && again) {
      t.recompute += fwd;
    }
  }
  return t;
}

}  // namespace

LayerTimes layer_times(const Model& model, const Execution& exe, const System& system) {
  return times_of(layer_forward_ops(model, exe), exe, system, true);
}

std::vector<Op> output_layer_ops(const Model& model, const Execution& exe) {
  const Dims d = dims_of(model, exe);
  const double tokens = d.b * d.s;
  const double v_local = static_cast<double>(model.vocabulary) / d.t;
  std::vector<Op> ops;
  ops.push_back(vector_op("final_norm", d.rows * d.h, kNormFlops, 2 * d.rows * d.h * d.e));
  Op logits = linear("logits", tokens, d.h, v_local, d.e);
  logits.linear = false;  // its TP exchange is the loss's small all-reduces, not priced
  ops.push_back(logits);
  // Cross-entropy over the vocabulary shard: a softmax and its loss, reading the logits.
  ops.push_back(
      vector_op("cross_entropy", tokens * v_local, kSoftmaxFlops, 2 * tokens * v_local * d.e));
  return ops;
}

LayerTimes output_layer_times(const Model& model, const Execution& exe, const System& system) {
  return times_of(output_layer_ops(model, exe), exe, system, false);
}

}  // namespace tidesim::llm
