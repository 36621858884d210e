#include "tidesim/llm/step.hpp"

#include <algorithm>

#include "tidesim/llm/layer_ops.hpp"
#include "tidesim/llm/validate.hpp"

namespace tidesim::llm {

NetworkChoice networks_of(const System& system, const Execution& exe) {
  const auto at = [&](int i) { return system.networks.at(static_cast<std::size_t>(i)); };
  return {.tp = at(exe.tensor_par_net), .pp = at(exe.pipeline_par_net), .dp = at(exe.data_par_net)};
}

double model_flops(const Model& model, const Execution& exe) {
  const double h = static_cast<double>(model.hidden);
  const double q = static_cast<double>(model.heads * model.head_size);
  const double kv = static_cast<double>(model.kv_heads * model.head_size);
  const double s = static_cast<double>(model.seq);
  const double matmuls =
      2 * (h * (q + 2 * kv) + q * h + model.ffn_matrices * h * static_cast<double>(model.ffn));
  const double attention = 4 * s * q;  // scores and context, no causal saving (as eq. 3)
  const double logits = 2 * h * static_cast<double>(model.vocabulary);
  const double per_token = static_cast<double>(model.layers) * (matmuls + attention) + logits;
  const double passes = exe.training ? 3.0 : 1.0;
  return passes * static_cast<double>(exe.batch_size) * s * per_token;
}

namespace {

// Elements of one micro-batch's activation tensor (batch x sequence x hidden).
double activation_elements(const Model& model, const Execution& exe) {
  return static_cast<double>(exe.microbatch_size) * static_cast<double>(model.seq) *
         static_cast<double>(model.hidden);
}

// TP collectives of one layer and micro-batch, seconds: forward, backward, recomputation.
struct TpTimes {
  double forward = 0, backward = 0, recompute = 0;
};

TpTimes tp_times(const Model& model, const Execution& exe, const Network& net) {
  const double bytes = activation_elements(model, exe) * bytes_per_element(exe.datatype);
  const std::int64_t n = exe.tensor_par;
  TpTimes t;
  const bool full = exe.activation_recompute == Recompute::full;
  if (!exe.sequence_parallel()) {
    // Megatron's f and g: one all-reduce after attention and one after the MLP in forward, their
    // conjugates in backward (Shoeybi et al. 2019 Fig. 4).
    const double ar = net.time(Collective::all_reduce, bytes, n);
    t.forward = 2 * ar;
    t.backward = exe.training ? 2 * ar : 0.0;
    t.recompute = full ? 2 * ar : 0.0;
    return t;
  }
  // Sequence parallelism: an all-gather before and a reduce-scatter after each block, the
  // reverse in backward (Korthikanti et al. 2022 section 4.2.2); backward redoes the
  // all-gathers whose output it did not keep.
  const double ag = net.time(Collective::all_gather, bytes, n);
  const double rs = net.time(Collective::reduce_scatter, bytes, n);
  t.forward = 2 * (ag + rs);
  t.backward = exe.training ? 2 * (ag + rs) : 0.0;
  const bool attn_redo =
      full || exe.activation_recompute == Recompute::attn_only || exe.seq_par_ag_redo;
  const bool mlp_redo = full || exe.seq_par_ag_redo;
  t.recompute = (attn_redo ? ag : 0.0) + (mlp_redo ? ag : 0.0) + (full ? 2 * rs : 0.0);
  return t;
}

// Exposed part of `comm` seconds overlapped with `cover` seconds of compute, and the compute the
// overlap costs (processor_usage of the overlapped time: the SMs the collective runs on).
double exposed(double comm, double cover, double processor_usage) {
  const double hidden = std::min(comm, cover);
  return comm - hidden + processor_usage * hidden;
}

// The DP gradient reduction (reduce-scatter of gradients + all-gather of weights when the
// optimizer is sharded, else an all-reduce), seconds.
double dp_seconds(const Model& model, const Execution& exe, const Network& net) {
  if (exe.data_par < 2 || !exe.training) {
    return 0.0;
  }
  const double bytes = parameters_per_gpu(model, exe) * bytes_per_element(exe.datatype);
  if (exe.optimizer_sharding) {
    return net.time(Collective::reduce_scatter, bytes, exe.data_par) +
           net.time(Collective::all_gather, bytes, exe.data_par);
  }
  return net.time(Collective::all_reduce, bytes, exe.data_par);
}

// Adam over this GPU's share of the parameters: 11 flops per parameter (Calculon's layers.py),
// reading and writing the fp32 master weights and moments, reading the fp32 gradient and writing
// the 16-bit weight.
double optimizer_seconds(const Model& model, const Execution& exe, const System& system) {
  if (!exe.training) {
    return 0.0;
  }
  const double shards = exe.optimizer_sharding ? static_cast<double>(exe.data_par) : 1.0;
  const double p = parameters_per_gpu(model, exe) / shards;
  const double e = bytes_per_element(exe.datatype);
  return kernel_seconds(11 * p, p * (2 * 12 + 4 + e), false, system, exe.datatype);
}

}  // namespace

double fabric_bytes_per_gpu(const Model& model, const Execution& exe) {
  double bytes = 0.0;
  const double m = static_cast<double>(exe.microbatches());
  if (exe.pipeline_par > 1) {
    const double passes = exe.training ? 2.0 : 1.0;
    bytes += m * static_cast<double>(exe.pipeline_interleaving) * passes *
             activation_elements(model, exe) * bytes_per_element(exe.datatype) /
             static_cast<double>(exe.tensor_par);
  }
  if (exe.data_par > 1 && exe.training) {
    const double d = static_cast<double>(exe.data_par);
    bytes += parameters_per_gpu(model, exe) * bytes_per_element(exe.datatype) * 2.0 * (d - 1.0) / d;
  }
  return bytes;
}

StepBreakdown step(const Model& model, const Execution& exe, const System& system,
                   const NetworkChoice& nets) {
  StepBreakdown out;
  out.gpus = exe.num_procs;
  out.microbatches = exe.microbatches();
  const double m = static_cast<double>(out.microbatches);
  const double layers = static_cast<double>(model.layers / exe.pipeline_par);
  const double v = static_cast<double>(exe.pipeline_interleaving);
  const LayerTimes lt = layer_times(model, exe, system);
  const TpTimes tp = tp_times(model, exe, nets.tp);
  const bool overlap = exe.tensor_par_overlap != TpOverlap::none;
  const double use = nets.tp.processor_usage;
  const double tp_layer = overlap ? exposed(tp.forward, lt.linear_forward, use) +
                                        exposed(tp.backward, lt.linear_backward, use) +
                                        exposed(tp.recompute, lt.linear_forward, use)
                                  : tp.forward + tp.backward + tp.recompute;
  StepParts& parts = out.parts;
  // The pipeline runs at the pace of its slowest stage, the last: its layers and the output
  // layer (the first stage's embedding lookup is a gather, not priced).
  const LayerTimes out_layer = output_layer_times(model, exe, system);
  parts.forward = m * (layers * lt.forward + out_layer.forward);
  parts.backward = m * (layers * lt.backward + out_layer.backward);
  parts.recompute = m * layers * lt.recompute;
  parts.tp_comm = m * layers * tp_layer;
  // One transfer per chunk and micro-batch each way; a stage sends its 1/t share of the
  // activation and the next stage's TP group gathers it over NVLink (the scatter/gather
  // optimisation, Narayanan et al. 2021 section 4.1).
  if (exe.pipeline_par > 1) {
    const double bytes = activation_elements(model, exe) * bytes_per_element(exe.datatype) /
                         static_cast<double>(exe.tensor_par);
    const double passes = exe.training ? 2.0 : 1.0;
    parts.pp_comm = m * v * passes * nets.pp.time(Collective::p2p, bytes, 2);
  }
  // Fill and drain: (p - 1) chunk times of one micro-batch, a chunk being 1/v of the stage
  // (Narayanan et al. 2021 section 2.2: bubble fraction (p - 1) / (m v)).
  const double per_microbatch =
      (parts.forward + parts.backward + parts.recompute + parts.tp_comm) / m;
  parts.bubble = static_cast<double>(exe.pipeline_par - 1) * per_microbatch / v;
  const double dp = dp_seconds(model, exe, nets.dp);
  // Overlapped: the gradient buckets reduce while the last micro-batch's backward runs.
  parts.dp_comm =
      exe.data_par_overlap ? exposed(dp, layers * lt.backward, nets.dp.processor_usage) : dp;
  parts.optimizer = optimizer_seconds(model, exe, system);
  out.memory = memory_per_gpu(model, exe);
  // Offloaded state crosses the second tier each step behind compute: offloaded weights are read
  // for every micro-batch's forward and backward, and every offloaded byte is written out and
  // read back once.
  if (out.memory.offloaded > 0) {
    const double weights = parameters_per_gpu(model, exe) * bytes_per_element(exe.datatype);
    const double moved = exe.weight_offload ? 2 * m * weights : 0.0;
    const double stream = (moved + 2 * out.memory.offloaded) / system.mem2.bandwidth;
    parts.offload = std::max(0.0, stream - parts.compute());
  }
  out.step_seconds = parts.total();
  out.capacity = system.mem1.capacity;
  out.fits = out.memory.total() <= out.capacity;
  out.model_flops = model_flops(model, exe);
  const auto peak = system.matrix.find(exe.datatype);
  const double peak_flops = peak == system.matrix.end() ? 0.0 : peak->second.peak_flops;
  out.mfu = out.model_flops / (out.step_seconds * static_cast<double>(out.gpus) * peak_flops);
  return out;
}

StepBreakdown step(const Model& model, const Execution& exe, const System& system) {
  validate(model, exe, system);
  return step(model, exe, system, networks_of(system, exe));
}

}  // namespace tidesim::llm
