#include "tidesim/llm/readers.hpp"

#include <array>
#include <limits>

#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim::llm {

namespace {

// Bounds that keep every integer product of the model in range (counts multiply in int64).
constexpr std::int64_t kMaxCount = std::int64_t{1} << 24;
constexpr std::int64_t kMaxBatch = std::int64_t{1} << 30;
constexpr std::int64_t kMaxDegree = std::int64_t{1} << 20;  // a parallel degree
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Notes where `key` was written (when it was).
void place(Fields& f, FieldPlaces& places, const std::string& key) {
  const ConfigNode node = f.get(key);
  if (node.defined()) {
    places.at[key] = location_of(node, f.file());
  }
}

std::int64_t count(Fields& f, FieldPlaces& places, const std::string& key,
                   std::optional<std::int64_t> fallback, std::int64_t lo = 1,
                   std::int64_t hi = kMaxCount) {
  place(f, places, key);
  return f.integer(key, fallback, lo, hi);
}

bool flag(Fields& f, FieldPlaces& places, const std::string& key, bool fallback) {
  place(f, places, key);
  return f.boolean(key, fallback);
}

// [[threshold, efficiency], ...] in decreasing threshold order; thresholds in `unit`.
EfficiencyTable read_table(const ConfigNode& node, const std::string& file, const std::string& path,
                           double unit) {
  EfficiencyTable table;
  const auto rows = sequence_of(node, file, path);
  if (rows.empty()) {
    throw InputError(location_of(node, file), path,
                     "needs at least one [threshold, efficiency] row");
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string at = path + "[" + std::to_string(i) + "]";
    const auto pair = sequence_of(rows[i], file, at);
    if (pair.size() != 2) {
      throw InputError(location_of(rows[i], file), at, "expected [threshold, efficiency]");
    }
    const auto number = [&](const ConfigNode& n, const std::string& what, double lo, double hi) {
      const std::string text = scalar_of(n, file, at);
      std::size_t used = 0;
      double v = 0;
      try {
        v = std::stod(text, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != text.size() || !(v >= lo && v <= hi)) {
        throw InputError(location_of(n, file), at,
                         what + " '" + text + "' is not a number in [" + std::to_string(lo) + ", " +
                             std::to_string(hi) + "]");
      }
      return v;
    };
    const double threshold = number(pair[0], "threshold", 0, 1e30) * unit;
    const double efficiency = number(pair[1], "efficiency", 1e-9, 1);
    if (!table.rows.empty() && threshold >= table.rows.back().first) {
      throw InputError(location_of(pair[0], file), at, "thresholds must decrease row by row");
    }
    table.rows.emplace_back(threshold, efficiency);
  }
  return table;
}

}  // namespace

Model read_model(const ConfigNode& node, const std::string& file, const std::string& prefix,
                 const Model* base) {
  Fields f(node, file, prefix.empty() ? "" : prefix.substr(0, prefix.size() - 1));
  Model m = base != nullptr ? *base : Model{};
  m.places = {.file = file, .prefix = prefix, .at = {}, .origin = location_of(node, file)};
  // A multi-head preset stays multi-head when its heads are changed and kv_heads is not given.
  const bool multihead = base == nullptr || base->kv_heads == base->heads;
  const auto dflt = [&](std::int64_t v) {
    return base != nullptr ? std::optional<std::int64_t>(v) : std::nullopt;
  };
  m.hidden = count(f, m.places, "hidden", dflt(m.hidden));
  m.ffn = count(f, m.places, "feedforward", dflt(m.ffn));
  m.seq = count(f, m.places, "seq_size", dflt(m.seq));
  m.heads = count(f, m.places, "attn_heads", dflt(m.heads));
  m.head_size = count(f, m.places, "attn_size", dflt(m.head_size));
  m.layers = count(f, m.places, "num_blocks", dflt(m.layers));
  m.vocabulary = count(f, m.places, "vocabulary", m.vocabulary);
  m.kv_heads = count(f, m.places, "kv_heads", multihead ? m.heads : m.kv_heads);
  m.ffn_matrices = static_cast<int>(count(f, m.places, "ffn_matrices", m.ffn_matrices, 2));
  m.learned_positions = flag(f, m.places, "learned_positions", m.learned_positions);
  m.biases = flag(f, m.places, "biases", m.biases);
  m.tied_embeddings = flag(f, m.places, "tied_embeddings", m.tied_embeddings);
  f.finish();
  return m;
}

namespace {

void read_execution_options(Fields& f, Execution& x, bool* multiquery) {
  FieldPlaces& p = x.places;
  place(f, p, "datatype");
  x.datatype = f.choice("datatype", x.datatype, {"float8", "float16", "bfloat16", "float32"});
  x.fused_activation = flag(f, p, "fused_activation", false);
  place(f, p, "attention_type");
  const bool mq =
      f.choice("attention_type", "multihead", {"multihead", "multiquery"}) == "multiquery";
  if (multiquery != nullptr) {
    *multiquery = mq;
  }
  place(f, p, "activation_recompute");
  const std::string re = f.choice("activation_recompute", "none", {"none", "attn_only", "full"});
  x.activation_recompute =
      re == "full" ? Recompute::full : (re == "attn_only" ? Recompute::attn_only : Recompute::none);
  x.pipeline_interleaving = count(f, p, "pipeline_interleaving", 1, 1, kMaxDegree);
  x.optimizer_sharding = flag(f, p, "optimizer_sharding", false);
  place(f, p, "tensor_par_comm_type");
  const std::string comm = f.choice("tensor_par_comm_type", "ar", {"ar", "rs_ag", "p2p_rs_ag"});
  x.tensor_par_comm_type =
      comm == "ar" ? TpCommType::ar : (comm == "rs_ag" ? TpCommType::rs_ag : TpCommType::p2p_rs_ag);
  place(f, p, "tensor_par_overlap");
  const std::string ov = f.choice("tensor_par_overlap", "none", {"none", "ring", "pipe"});
  x.tensor_par_overlap =
      ov == "none" ? TpOverlap::none : (ov == "ring" ? TpOverlap::ring : TpOverlap::pipe);
  x.seq_par_ag_redo = flag(f, p, "seq_par_ag_redo", false);
  x.data_par_overlap = flag(f, p, "data_par_overlap", false);
  x.weight_offload = flag(f, p, "weight_offload", false);
  x.activations_offload = flag(f, p, "activations_offload", false);
  x.optimizer_offload = flag(f, p, "optimizer_offload", false);
  x.training = flag(f, p, "training", true);
}

}  // namespace

Execution read_execution(const ConfigNode& node, const std::string& file, const std::string& prefix,
                         bool* multiquery) {
  Fields f(node, file, prefix.empty() ? "" : prefix.substr(0, prefix.size() - 1));
  Execution x;
  x.places = {.file = file, .prefix = prefix, .at = {}, .origin = location_of(node, file)};
  FieldPlaces& p = x.places;
  x.tensor_par = count(f, p, "tensor_par", std::nullopt, 1, kMaxDegree);
  x.pipeline_par = count(f, p, "pipeline_par", std::nullopt, 1, kMaxDegree);
  x.data_par = count(f, p, "data_par", std::nullopt, 1, kMaxDegree);
  x.num_procs = count(f, p, "num_procs", x.tensor_par * x.pipeline_par * x.data_par, 1,
                      std::int64_t{1} << 62);
  x.tensor_par_net = static_cast<int>(count(f, p, "tensor_par_net", 0, 0));
  x.pipeline_par_net = static_cast<int>(count(f, p, "pipeline_par_net", 0, 0));
  x.data_par_net = static_cast<int>(count(f, p, "data_par_net", 0, 0));
  x.batch_size = count(f, p, "batch_size", std::nullopt, 1, kMaxBatch);
  x.microbatch_size = count(f, p, "microbatch_size", std::nullopt, 1, kMaxBatch);
  read_execution_options(f, x, multiquery);
  f.finish();
  return x;
}

namespace {

std::map<std::string, ComputeUnit> read_units(const ConfigNode& node, const std::string& file,
                                              const std::string& path) {
  if (!node.is_map() || node.size() == 0) {
    throw InputError(location_of(node, file), path, "expected a mapping of data types");
  }
  std::map<std::string, ComputeUnit> units;
  for (const auto& [key, value] : node.entries()) {
    const std::string at = path + "." + key.scalar();
    Fields f(value, file, at);
    ComputeUnit u;
    u.peak_flops = f.number("tflops", std::nullopt, 1e-6, 1e9) * 1e12;
    u.efficiency = read_table(f.require("gflops_efficiency"), file, at + ".gflops_efficiency", 1e9);
    f.finish();
    units[key.scalar()] = u;
  }
  return units;
}

MemoryTier read_memory(const ConfigNode& node, const std::string& file, const std::string& path) {
  Fields f(node, file, path);
  MemoryTier m;
  m.capacity = f.number("GiB", std::nullopt, 0, 1e30) * kGiB;
  m.bandwidth = f.number("GBps", std::nullopt, 1e-6, 1e12) * 1e9;
  m.efficiency = read_table(f.require("MB_efficiency"), file, path + ".MB_efficiency", 1e6);
  f.finish();
  return m;
}

CollectiveCost read_cost(Fields& ops, const std::string& key) {
  const ConfigNode node = ops.require(key);
  const std::string at = ops.path_of(key);
  const auto pair = sequence_of(node, ops.file(), at);
  if (pair.size() != 2) {
    throw ops.error(node, key, "expected [scalar, offset]");
  }
  auto value = [&](const ConfigNode& n, bool nullable) {
    if (nullable && n.is_null()) {
      return 0.0;
    }
    const std::string text = scalar_of(n, ops.file(), at);
    try {
      std::size_t used = 0;
      const double v = std::stod(text, &used);
      if (used == text.size() && v > -1e9 && v < 1e9) {
        return v;
      }
    } catch (const std::exception&) {
    }
    throw InputError(location_of(n, ops.file()), at, "'" + text + "' is not a number");
  };
  return {.scalar = value(pair[0], false), .offset = value(pair[1], true)};
}

Network read_network(const ConfigNode& node, const std::string& file, const std::string& path) {
  Fields f(node, file, path);
  Network n;
  n.bandwidth = f.number("bandwidth", std::nullopt, 1e-9, 1e9) * 1e9;
  n.efficiency = f.number("efficiency", std::nullopt, 1e-9, 1);
  n.size = f.integer("size", std::nullopt, 1, std::int64_t{1} << 62);
  n.latency = f.number("latency", std::nullopt, 0, 1e3);
  Fields ops(f.require("ops"), file, path + ".ops");
  const std::array<const char*, kCollectives> names = {"p2p", "reduce_scatter", "all_gather",
                                                       "all_reduce"};
  for (std::size_t i = 0; i < names.size(); ++i) {
    n.ops[i] = read_cost(ops, names[i]);
  }
  ops.finish();
  n.must_be_filled = f.boolean("must_be_filled", false);
  n.processor_usage = f.number("processor_usage", 0.0, 0, 1);
  f.finish();
  return n;
}

}  // namespace

System read_system(const ConfigNode& node, const std::string& file, const std::string& prefix) {
  const std::string path = prefix.empty() ? "" : prefix.substr(0, prefix.size() - 1);
  Fields f(node, file, path);
  System s;
  s.places = {.file = file, .prefix = prefix, .at = {}, .origin = location_of(node, file)};
  s.matrix = read_units(f.require("matrix"), file, f.path_of("matrix"));
  s.vector = read_units(f.require("vector"), file, f.path_of("vector"));
  s.mem1 = read_memory(f.require("mem1"), file, f.path_of("mem1"));
  s.mem2 = read_memory(f.require("mem2"), file, f.path_of("mem2"));
  const std::string mode = f.choice("processing_mode", "no_overlap", {"no_overlap", "roofline"});
  s.processing_mode = mode == "roofline" ? ProcessingMode::roofline : ProcessingMode::no_overlap;
  const ConfigNode nets = f.require("networks");
  const auto items = sequence_of(nets, file, f.path_of("networks"));
  if (items.empty()) {
    throw f.error(nets, "networks", "needs at least one network");
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    s.networks.push_back(
        read_network(items[i], file, f.path_of("networks") + "[" + std::to_string(i) + "]"));
  }
  f.finish();
  return s;
}

}  // namespace tidesim::llm
