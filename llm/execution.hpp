#pragma once
/// How a model is trained: the parallel layout and its options, with Calculon's field names
/// (calculon-ai/calculon, calculon/llm/llm.py: Llm.Execution).
#include <cstdint>
#include <string>

#include "tidesim/llm/places.hpp"

namespace tidesim::llm {

/// Which activations are dropped after the forward pass and recomputed in backward (Korthikanti
/// et al. 2022 section 5): none; the attention core only (selective, Calculon `attn_only`); the
/// whole layer from its input (full).
enum class Recompute { none, attn_only, full };
/// How tensor-parallel activations are exchanged: all-reduce (Megatron TP, Shoeybi et al. 2019);
/// reduce-scatter + all-gather (sequence parallelism, Korthikanti et al. 2022 section 4.2.2); the
/// same made of point-to-point transfers.
enum class TpCommType { ar, rs_ag, p2p_rs_ag };
/// Overlap of TP communication with the neighbouring matrix multiplies.
enum class TpOverlap { none, ring, pipe };

/// The training layout (one optimizer step over the global batch).
struct Execution {
  std::int64_t num_procs = 1;  ///< GPUs; tensor_par x pipeline_par x data_par
  std::int64_t tensor_par = 1;
  std::int64_t pipeline_par = 1;
  std::int64_t data_par = 1;
  int tensor_par_net = 0;  ///< index into System::networks
  int pipeline_par_net = 0;
  int data_par_net = 0;
  std::int64_t batch_size = 1;       ///< global batch, samples per optimizer step
  std::int64_t microbatch_size = 1;  ///< samples per pipeline micro-batch
  std::string datatype = "float16";
  bool fused_activation = false;  ///< the FFN activation fused into the preceding matmul
  Recompute activation_recompute = Recompute::none;
  std::int64_t pipeline_interleaving = 1;  ///< virtual stages (layer chunks) per GPU
  bool optimizer_sharding = false;         ///< optimizer state split over DP (ZeRO-1)
  TpCommType tensor_par_comm_type = TpCommType::ar;
  TpOverlap tensor_par_overlap = TpOverlap::none;
  bool seq_par_ag_redo = false;   ///< redo the sequence-parallel all-gather in backward
  bool data_par_overlap = false;  ///< overlap the DP gradient reduction with backward
  bool weight_offload = false;    ///< weights kept in the second memory tier and streamed
  bool activations_offload = false;
  bool optimizer_offload = false;
  bool training = true;  ///< false: forward only (inference)
  FieldPlaces places;

  /// Sequence parallelism: TP exchanges by reduce-scatter + all-gather.
  bool sequence_parallel() const { return tensor_par_comm_type != TpCommType::ar; }
  /// Micro-batches per step and pipeline: batch / (data_par x microbatch).
  std::int64_t microbatches() const { return batch_size / (data_par * microbatch_size); }
};

/// Bytes of one element of `datatype` (float8 1, float16/bfloat16 2, float32 4); 0 when unknown.
int bytes_per_element(const std::string& datatype);

}  // namespace tidesim::llm
