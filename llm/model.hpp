#pragma once
/// A transformer's architecture (what Calculon calls the application) and the named presets.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/llm/places.hpp"

namespace tidesim::llm {

/// Vocabulary size of the GPT-style models when none is given: 51,200, the padded GPT-2 vocabulary
/// Megatron-LM uses (Narayanan et al., SC'21, eq. 3; Korthikanti et al. 2022, Table 5 runs).
inline constexpr std::int64_t kDefaultVocabulary = 51'200;

/// A decoder-only transformer. Sizes are counts (not bytes).
struct Model {
  std::string name;
  std::int64_t layers = 0;     ///< transformer blocks (Calculon `num_blocks`)
  std::int64_t hidden = 0;     ///< model width h
  std::int64_t heads = 0;      ///< query heads a
  std::int64_t head_size = 0;  ///< per-head dimension d (Calculon `attn_size`)
  /// Key/value heads g: heads (multi-head), 1 (multi-query), or a divisor of heads (grouped-query).
  std::int64_t kv_heads = 0;
  std::int64_t ffn = 0;  ///< feed-forward inner width f (Calculon `feedforward`)
  std::int64_t seq = 0;  ///< tokens per sample s (Calculon `seq_size`)
  std::int64_t vocabulary = kDefaultVocabulary;
  /// Weight matrices of the feed-forward block: 2 (GELU MLP) or 3 (SwiGLU: gate, up, down).
  int ffn_matrices = 2;
  /// Learned position embeddings of seq x hidden (GPT); false for rotary embeddings (Llama).
  bool learned_positions = true;
  /// Bias vectors on the linear layers (GPT, Megatron); false for Llama.
  bool biases = true;
  /// Output projection shares the input embedding (Megatron GPT); false for Llama 3.
  bool tied_embeddings = true;
  FieldPlaces places;

  /// Parameters of one transformer block (weights, biases, the two norms' scales and shifts).
  double layer_parameters() const;
  /// Parameters of the input embedding (vocabulary and learned positions).
  double embedding_parameters() const;
  /// All parameters: layers, embeddings and, when untied, the output projection.
  double parameters() const;
};

/// Key/value width (heads x head size) each of `tensor_par` ranks holds: the heads split by TP, or
/// one whole head per rank, replicated, when there are fewer key/value heads than ranks (as
/// Megatron-LM does for grouped-query and multi-query attention).
double kv_width_per_rank(const Model& model, std::int64_t tensor_par);

/// The preset names, in a fixed order.
std::vector<std::string> model_preset_names();
/// The preset `name`, or nullopt when there is none.
std::optional<Model> model_preset(const std::string& name);

}  // namespace tidesim::llm
