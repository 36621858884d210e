#include "tidesim/llm/model.hpp"

#include <algorithm>
#include <array>

namespace tidesim::llm {

namespace {

struct Preset {
  const char* name;
  std::int64_t layers, hidden, heads, head_size, kv_heads, ffn, seq, vocabulary;
  int ffn_matrices;
  bool gpt_style;  // learned positions, biases, tied embeddings
};

// The GPT-style models are those Calculon ships (calculon-ai/calculon, models/*.json), each from
// its paper: Megatron 126M/5B/22B/40B/1T (Narayanan et al. SC'21 Table 1; Korthikanti et al. 2022
// Table 3), GPT-3 13B/175B (Brown et al. 2020 Table 2.1), Turing-NLG 530B (Smith et al. 2022),
// Gopher 280B (Rae et al. 2021 Table 1), Chinchilla (Hoffmann et al. 2022 Table 4), LaMDA
// (Thoppilan et al. 2022 Table 1, 137B), PaLM 540B (Chowdhery et al. 2022 Table 1; its
// multi-query attention and SwiGLU are not in Calculon's file and not here) and Anthropic 52B
// (Askell et al. 2021). The Llama 3 models are from Dubey et al. 2024 (arXiv 2407.21783) Table 3:
// grouped-query attention with 8 key/value heads, SwiGLU, vocabulary 128,256, sequence 8,192.
constexpr std::array kPresets = {
    Preset{"anthropic-52B", 64, 8192, 64, 128, 64, 32768, 8192, kDefaultVocabulary, 2, true},
    Preset{"chinchilla", 80, 8192, 64, 128, 64, 32768, 2048, kDefaultVocabulary, 2, true},
    Preset{"gopher-280B", 80, 16384, 128, 128, 128, 65536, 2048, kDefaultVocabulary, 2, true},
    Preset{"gpt3-13B", 40, 5140, 40, 128, 40, 20560, 2048, kDefaultVocabulary, 2, true},
    Preset{"gpt3-175B", 96, 12288, 96, 128, 96, 49152, 2048, kDefaultVocabulary, 2, true},
    Preset{"lamda", 64, 8192, 128, 128, 128, 65536, 2048, kDefaultVocabulary, 2, true},
    Preset{"megatron-126M", 12, 768, 16, 48, 16, 3072, 2048, kDefaultVocabulary, 2, true},
    Preset{"megatron-1T", 128, 25600, 160, 160, 160, 102400, 2048, kDefaultVocabulary, 2, true},
    Preset{"megatron-22B", 48, 6144, 64, 96, 64, 24576, 2048, kDefaultVocabulary, 2, true},
    Preset{"megatron-40B", 48, 8192, 64, 128, 64, 32768, 2048, kDefaultVocabulary, 2, true},
    Preset{"megatron-5B", 24, 4096, 32, 128, 32, 16384, 2048, kDefaultVocabulary, 2, true},
    Preset{"palm-540B", 118, 18432, 48, 256, 48, 73728, 2048, kDefaultVocabulary, 2, true},
    Preset{"turing-530B", 105, 20480, 128, 160, 128, 81920, 2048, kDefaultVocabulary, 2, true},
    Preset{"llama3-8B", 32, 4096, 32, 128, 8, 14336, 8192, 128256, 3, false},
    Preset{"llama3-70B", 80, 8192, 64, 128, 8, 28672, 8192, 128256, 3, false},
    Preset{"llama3-405B", 126, 16384, 128, 128, 8, 53248, 8192, 128256, 3, false},
};

}  // namespace

double Model::layer_parameters() const {
  const double h = static_cast<double>(hidden);
  const double q = static_cast<double>(heads * head_size);
  const double kv = static_cast<double>(kv_heads * head_size);
  const double f = static_cast<double>(ffn);
  const double m = ffn_matrices;
  double p = h * (q + 2 * kv) + q * h + m * h * f;
  // Biases: QKV, attention output, the FFN's input matrices and its output. Norms: scale and
  // shift of two LayerNorms (GPT), or the scale of two RMSNorms (Llama, biases off).
  p += biases ? (q + 2 * kv) + h + (m - 1) * f + h + 4 * h : 2 * h;
  return p;
}

double Model::embedding_parameters() const {
  const double h = static_cast<double>(hidden);
  return static_cast<double>(vocabulary) * h +
         (learned_positions ? static_cast<double>(seq) * h : 0);
}

double Model::parameters() const {
  const double out = tied_embeddings ? 0.0 : static_cast<double>(vocabulary * hidden);
  return static_cast<double>(layers) * layer_parameters() + embedding_parameters() + out;
}

double kv_width_per_rank(const Model& model, std::int64_t tensor_par) {
  const double heads =
      std::max(static_cast<double>(model.kv_heads) / static_cast<double>(tensor_par), 1.0);
  return heads * static_cast<double>(model.head_size);
}

std::vector<std::string> model_preset_names() {
  std::vector<std::string> names;
  for (const auto& p : kPresets) {
    names.emplace_back(p.name);
  }
  return names;
}

std::optional<Model> model_preset(const std::string& name) {
  for (const auto& p : kPresets) {
    if (name == p.name) {
      return Model{.name = p.name,
                   .layers = p.layers,
                   .hidden = p.hidden,
                   .heads = p.heads,
                   .head_size = p.head_size,
                   .kv_heads = p.kv_heads,
                   .ffn = p.ffn,
                   .seq = p.seq,
                   .vocabulary = p.vocabulary,
                   .ffn_matrices = p.ffn_matrices,
                   .learned_positions = p.gpt_style,
                   .biases = p.gpt_style,
                   .tied_embeddings = p.gpt_style,
                   .places = {}};
    }
  }
  return std::nullopt;
}

}  // namespace tidesim::llm
