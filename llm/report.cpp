#include "tidesim/llm/report.hpp"

#include <fmt/core.h>

#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

namespace tidesim::llm {

namespace {

std::vector<std::pair<const char*, double>> part_list(const StepParts& p) {
  return {{"compute", p.forward + p.backward},
          {"  forward", p.forward},
          {"  backward", p.backward},
          {"recompute", p.recompute},
          {"tp_comm", p.tp_comm},
          {"pp_comm", p.pp_comm},
          {"dp_comm", p.dp_comm},
          {"bubble", p.bubble},
          {"optimizer", p.optimizer},
          {"offload", p.offload}};
}

std::vector<std::pair<const char*, double>> memory_list(const MemoryParts& m) {
  return {{"weights", m.weights},
          {"gradients", m.gradients},
          {"optimizer", m.optimizer},
          {"activations", m.activations},
          {"activation_workspace", m.activation_workspace},
          {"offloaded", m.offloaded}};
}

const char* recompute_name(Recompute r) {
  return r == Recompute::full ? "full" : (r == Recompute::attn_only ? "attn_only" : "none");
}

}  // namespace

std::string report_json(const Job& job, const StepBreakdown& s) {
  nlohmann::ordered_json out;
  out["model"] = job.model.name;
  out["system"] = job.system.name;
  const Execution& x = job.execution;
  out["layout"] = {{"gpus", x.num_procs},
                   {"tensor_par", x.tensor_par},
                   {"pipeline_par", x.pipeline_par},
                   {"data_par", x.data_par},
                   {"pipeline_interleaving", x.pipeline_interleaving},
                   {"microbatches", s.microbatches},
                   {"sequence_parallel", x.sequence_parallel()},
                   {"activation_recompute", recompute_name(x.activation_recompute)}};
  out["step_seconds"] = s.step_seconds;
  out["mfu"] = s.mfu;
  out["model_flops"] = s.model_flops;
  out["memory_bytes_per_gpu"] = s.memory.total();
  out["memory_capacity_bytes"] = s.capacity;
  out["fits"] = s.fits;
  nlohmann::ordered_json parts;
  for (const auto& [name, value] : part_list(s.parts)) {
    const std::string key(name);
    parts[key.substr(key.find_first_not_of(' '))] = value;
  }
  out["parts"] = parts;
  nlohmann::ordered_json memory;
  for (const auto& [name, value] : memory_list(s.memory)) {
    memory[name] = value;
  }
  out["memory"] = memory;
  return out.dump(2) + "\n";
}

std::string report_table(const Job& job, const StepBreakdown& s) {
  const Execution& x = job.execution;
  std::string out = fmt::format(
      "Model {} on {} x {}: TP {} PP {} (interleaving {}) DP {}, {} micro-batches of {}, "
      "recompute {}{}\n\n",
      job.model.name, x.num_procs, job.system.name, x.tensor_par, x.pipeline_par,
      x.pipeline_interleaving, x.data_par, s.microbatches, x.microbatch_size,
      recompute_name(x.activation_recompute), x.sequence_parallel() ? ", sequence parallel" : "");
  out += fmt::format("{:<22} {:>12} {:>8}\n", "step part", "seconds", "share");
  for (const auto& [name, value] : part_list(s.parts)) {
    out += fmt::format("{:<22} {:>12.4f} {:>7.1f}%\n", name, value, 100 * value / s.step_seconds);
  }
  out += fmt::format("{:<22} {:>12.4f}\n\n", "step", s.step_seconds);
  out += fmt::format("{:<22} {:>12}\n", "memory per GPU", "GiB");
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  for (const auto& [name, value] : memory_list(s.memory)) {
    out += fmt::format("{:<22} {:>12.2f}\n", name, value / kGiB);
  }
  out += fmt::format("{:<22} {:>12.2f} of {:.2f} ({})\n\n", "total", s.memory.total() / kGiB,
                     s.capacity / kGiB, s.fits ? "fits" : "DOES NOT FIT");
  out += fmt::format("MFU {:.1f}% ({:.3g} model FLOPs per step)\n", 100 * s.mfu, s.model_flops);
  return out;
}

}  // namespace tidesim::llm
