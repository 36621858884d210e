#include "tidesim/llm/validate.hpp"

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace tidesim::llm {

namespace {

std::string str(std::int64_t v) {
  return std::to_string(v);
}

void validate_model(const Model& m) {
  const std::array<std::pair<const char*, std::int64_t>, 7> sizes = {
      {{"num_blocks", m.layers},
       {"hidden", m.hidden},
       {"attn_heads", m.heads},
       {"attn_size", m.head_size},
       {"feedforward", m.ffn},
       {"seq_size", m.seq},
       {"vocabulary", m.vocabulary}}};
  for (const auto& [field, value] : sizes) {
    if (value < 1) {
      throw m.places.error(field, "must be at least 1, got " + str(value));
    }
  }
  if (m.kv_heads < 1 || m.heads % m.kv_heads != 0) {
    throw m.places.error("kv_heads", "key/value heads (" + str(m.kv_heads) +
                                         ") must divide the attention heads (" + str(m.heads) +
                                         ")");
  }
  if (m.ffn_matrices != 2 && m.ffn_matrices != 3) {
    throw m.places.error("ffn_matrices", "must be 2 (GELU MLP) or 3 (SwiGLU), got " +
                                             std::to_string(m.ffn_matrices));
  }
}

void validate_layout(const Model& m, const Execution& x) {
  const FieldPlaces& at = x.places;
  const std::array<std::pair<const char*, std::int64_t>, 6> counts = {
      {{"tensor_par", x.tensor_par},
       {"pipeline_par", x.pipeline_par},
       {"data_par", x.data_par},
       {"batch_size", x.batch_size},
       {"microbatch_size", x.microbatch_size},
       {"pipeline_interleaving", x.pipeline_interleaving}}};
  for (const auto& [field, value] : counts) {
    if (value < 1) {
      throw at.error(field, "must be at least 1, got " + str(value));
    }
  }
  const std::array<std::pair<const char*, std::int64_t>, 3> split = {
      {{"attention heads", m.heads}, {"hidden size", m.hidden}, {"feed-forward size", m.ffn}}};
  for (const auto& [what, value] : split) {
    if (value % x.tensor_par != 0) {
      throw at.error("tensor_par", "tensor parallelism " + str(x.tensor_par) +
                                       " does not divide the " + what + " (" + str(value) + ")");
    }
  }
  if (x.pipeline_par > m.layers) {
    throw at.error("pipeline_par", "pipeline parallelism " + str(x.pipeline_par) +
                                       " is more than the model's " + str(m.layers) + " layers");
  }
  if (m.layers % (x.pipeline_par * x.pipeline_interleaving) != 0) {
    throw at.error("pipeline_interleaving",
                   "pipeline_par x pipeline_interleaving (" + str(x.pipeline_par) + " x " +
                       str(x.pipeline_interleaving) + ") does not divide the " + str(m.layers) +
                       " layers");
  }
  if (x.tensor_par * x.pipeline_par * x.data_par != x.num_procs) {
    throw at.error("num_procs", "tensor_par x pipeline_par x data_par = " + str(x.tensor_par) +
                                    " x " + str(x.pipeline_par) + " x " + str(x.data_par) +
                                    " is not num_procs (" + str(x.num_procs) + ")");
  }
  if (x.batch_size % (x.data_par * x.microbatch_size) != 0) {
    throw at.error("batch_size", "the batch (" + str(x.batch_size) +
                                     ") is not a multiple of data_par x microbatch_size (" +
                                     str(x.data_par) + " x " + str(x.microbatch_size) + ")");
  }
}

void validate_networks(const Execution& x, const System& s) {
  // Each used network carries the product of the groups mapped to it (Calculon's
  // _check_network_assignments).
  std::vector<std::int64_t> load(s.networks.size(), 1);
  const std::array<std::tuple<const char*, int, std::int64_t>, 3> groups = {
      {{"tensor_par_net", x.tensor_par_net, x.tensor_par},
       {"pipeline_par_net", x.pipeline_par_net, x.pipeline_par},
       {"data_par_net", x.data_par_net, x.data_par}}};
  for (const auto& [field, index, group] : groups) {
    if (index < 0 || static_cast<std::size_t>(index) >= s.networks.size()) {
      throw x.places.error(field, "network " + std::to_string(index) +
                                      " does not exist: the system has " +
                                      std::to_string(s.networks.size()));
    }
    load[static_cast<std::size_t>(index)] *= group;
  }
  for (const auto& [field, index, group] : groups) {
    const Network& net = s.networks[static_cast<std::size_t>(index)];
    const std::int64_t used = load[static_cast<std::size_t>(index)];
    if (group > 1 && used > net.size) {
      throw x.places.error(field, "network " + std::to_string(index) + " joins " + str(net.size) +
                                      " GPUs, the groups mapped to it need " + str(used));
    }
    if (group > 1 && net.must_be_filled && net.size % used != 0) {
      throw x.places.error(field, "network " + std::to_string(index) +
                                      " must be filled: " + str(used) + " does not divide its " +
                                      str(net.size) + " GPUs");
    }
  }
}

}  // namespace

void validate(const Model& model, const Execution& exe, const System& system) {
  validate_model(model);
  validate_layout(model, exe);
  if (bytes_per_element(exe.datatype) == 0) {
    throw exe.places.error("datatype", "unknown data type '" + exe.datatype +
                                           "' (float8, float16, bfloat16, float32)");
  }
  if (!system.matrix.contains(exe.datatype) || !system.vector.contains(exe.datatype)) {
    throw exe.places.error("datatype",
                           "the system has no " + exe.datatype + " matrix and vector rates");
  }
  validate_networks(exe, system);
}

}  // namespace tidesim::llm
