// `tidesim topo FILE|PRESET [--format table|json] [--gpu MODEL]`: shows a node topology — the
// GPU matrix in `nvidia-smi topo -m` form (for a parsed file, the input's GPU block), the NVLink
// groups, each GPU pair's bandwidth, NUMA affinity and the best ring over all GPUs.
#include <fmt/core.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "tidesim/sim/input/error.hpp"
#include "tidesim/tools/cli/commands.hpp"
#include "tidesim/topologies/presets.hpp"

namespace tidesim::cli {

namespace {

struct TopoOptions {
  std::string source;
  std::string format = "table";
  std::string gpu;
};

std::string gbps(double bytes_per_second) {
  return std::isinf(bytes_per_second) ? "-" : fmt::format("{:.1f}", bytes_per_second / 1e9);
}

std::string join(const std::vector<int>& v) {
  std::string out;
  for (int x : v) {
    out += (out.empty() ? "" : " ") + std::to_string(x);
  }
  return out;
}

int print_table(const Topology& t, const std::string& source) {
  const int n = t.gpu_count();
  std::vector<int> all(static_cast<std::size_t>(n));
  std::iota(all.begin(), all.end(), 0);
  fmt::print("{}", t.to_nvidia_smi());
  fmt::print(
      "\nTopology: {} ({} GPUs{}, {} NICs, {} sockets, NVLink {})\n", source, n,
      t.params().gpu_model.empty() ? "" : " " + t.params().gpu_model, t.nic_count(),
      t.socket_count(),
      t.has_nvswitch() ? "through NVSwitch" : (t.nvlink_groups().empty() ? "none" : "direct"));
  if (is_preset(source)) {
    fmt::print("Preset: {}\n", preset_description(source));
  }
  const auto groups = t.nvlink_groups();
  fmt::print("NVLink groups:");
  if (groups.empty()) {
    fmt::print(" none");
  }
  for (const auto& g : groups) {
    fmt::print(" [{}]{}", join(g), t.fully_nvlink_connected(g) ? " (fully connected)" : "");
  }
  fmt::print("\n\nBandwidth, GB/s one direction, best path:\n     ");
  for (int b = 0; b < n; ++b) {
    fmt::print(" {:>7}", "GPU" + std::to_string(b));
  }
  fmt::print("\n");
  for (int a = 0; a < n; ++a) {
    fmt::print("{:<5}", "GPU" + std::to_string(a));
    for (int b = 0; b < n; ++b) {
      fmt::print(" {:>7}", gbps(t.bandwidth(a, b)));
    }
    fmt::print("\n");
  }
  fmt::print("\nNUMA affinity:\n");
  for (int g = 0; g < n; ++g) {
    fmt::print("GPU{:<3} NUMA {}  CPUs {}\n", g, t.numa_node(g),
               t.cpu_affinity(g).empty() ? "-" : t.cpu_affinity(g));
  }
  if (n >= 2) {
    fmt::print("\nBest ring over all GPUs: {} GB/s (order {})\n", gbps(t.ring_bandwidth(all)),
               join(t.best_ring(all)));
  }
  return 0;
}

int print_json(const Topology& t, const std::string& source) {
  using nlohmann::json;
  const int n = t.gpu_count();
  std::vector<int> all(static_cast<std::size_t>(n));
  std::iota(all.begin(), all.end(), 0);
  json out;
  out["source"] = source;
  if (is_preset(source)) {
    out["preset_description"] = std::string(preset_description(source));
  }
  out["gpu_model"] = t.params().gpu_model;
  out["gpus"] = n;
  out["nics"] = t.nic_count();
  out["sockets"] = t.socket_count();
  out["nvswitch"] = t.has_nvswitch();
  out["nvidia_smi"] = t.to_nvidia_smi();
  json matrix = json::array();
  json bandwidth = json::array();
  for (int a = 0; a < n; ++a) {
    json row = json::array();
    json bw = json::array();
    for (int b = 0; b < n; ++b) {
      row.push_back(to_string(t.cell(a, b), t.matrix().soc_spelling));
      if (a == b) {
        bw.push_back(nullptr);
      } else {
        bw.push_back(t.bandwidth(a, b));
      }
    }
    matrix.push_back(row);
    bandwidth.push_back(bw);
  }
  out["matrix"] = matrix;
  out["bandwidth_bytes_per_s"] = bandwidth;
  out["nvlink_groups"] = t.nvlink_groups();
  json numa = json::array();
  for (int g = 0; g < n; ++g) {
    numa.push_back(
        {{"gpu", g}, {"numa_node", t.numa_node(g)}, {"cpu_affinity", t.cpu_affinity(g)}});
  }
  out["numa"] = numa;
  if (n >= 2) {
    out["ring_bandwidth_all_bytes_per_s"] = t.ring_bandwidth(all);
    out["best_ring_all"] = t.best_ring(all);
  }
  fmt::print("{}\n", out.dump(2));
  return 0;
}

}  // namespace

void add_topo_command(CLI::App& app, Context& ctx) {
  auto opts = std::make_shared<TopoOptions>();
  auto* cmd =
      app.add_subcommand("topo", "Show a node topology: a preset or an nvidia-smi topo -m file");
  cmd->add_option("source", opts->source, "Preset name or `nvidia-smi topo -m` output file")
      ->required();
  cmd->add_option("--format", opts->format, "Output format")
      ->check(CLI::IsMember({"table", "json"}));
  cmd->add_option("--gpu", opts->gpu,
                  "GPU model of a parsed file (sets NVLink and PCIe link figures)");
  cmd->callback([&ctx, opts] {
    ctx.input = opts->source;
    ctx.run = [opts] {
      TopologyParams params;
      if (!opts->gpu.empty()) {
        params = params_for_gpu(opts->gpu);
      }
      if (!opts->gpu.empty() && is_preset(opts->source)) {
        throw InputError("--gpu applies to a parsed file, not to preset '" + opts->source + "'");
      }
      const Topology t = load_topology(opts->source, params);
      return opts->format == "json" ? print_json(t, opts->source) : print_table(t, opts->source);
    };
  });
}

}  // namespace tidesim::cli
