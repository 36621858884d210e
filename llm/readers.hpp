#pragma once
/// Readers of the three LLM inputs from a configuration node, shared by Calculon's JSON files
/// (calculon_files.hpp) and tidesim's job file (job_file.hpp): the same field names, checked
/// strictly, each value's place kept for the checks made later (validate.hpp).
#include <string>

#include "tidesim/llm/execution.hpp"
#include "tidesim/llm/model.hpp"
#include "tidesim/llm/system.hpp"
#include "tidesim/sim/input/config_node.hpp"

namespace tidesim::llm {

/// A model from a mapping with Calculon's application fields (hidden, feedforward, seq_size,
/// attn_heads, attn_size, num_blocks) and tidesim's optional ones (vocabulary, kv_heads,
/// ffn_matrices, learned_positions, biases, tied_embeddings). `base` gives the defaults (a
/// preset); without one the six Calculon fields are required. `prefix` is the field path of the
/// mapping ("" for a whole file, "model." in a job file).
Model read_model(const ConfigNode& node, const std::string& file, const std::string& prefix,
                 const Model* base = nullptr);

/// An execution from a mapping with Calculon's execution fields; tensor_par, pipeline_par,
/// data_par, batch_size and microbatch_size are required, the rest default to Execution's
/// (num_procs to tensor_par x pipeline_par x data_par). `attention_type: multiquery` is
/// returned in `multiquery`, for the loader to apply to the model.
Execution read_execution(const ConfigNode& node, const std::string& file, const std::string& prefix,
                         bool* multiquery = nullptr);

/// A system from a mapping with Calculon's system fields (matrix, vector, mem1, mem2,
/// processing_mode, networks).
System read_system(const ConfigNode& node, const std::string& file, const std::string& prefix);

}  // namespace tidesim::llm
