#include "tidesim/tools/lib/provenance.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include <fmt/core.h>

#include "tidesim/policies/loaded_profile.hpp"
#include "tidesim/sim/input/data_folder.hpp"
#include "tidesim/sim/input/text_file.hpp"
#include "tidesim/sim/scenario/kube_snapshot.hpp"
#include "tidesim/topologies/presets.hpp"
#include "tidesim/version.hpp"

namespace tidesim::app {
namespace {

namespace fs = std::filesystem;

void add_if_file(std::vector<InputFile>& out, std::string key, const std::string& path) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) {
    out.push_back(InputFile{std::move(key), path, file_sha256(path)});
  }
}

// The files the `workload:` section reads: a trace, a Pollux workload, the job mix's manifests.
void workload_inputs(const workloads::WorkloadSpec& w, std::vector<InputFile>& out) {
  if (w.trace) {
    add_if_file(out, "workload.trace.file", w.trace->file);
  }
  if (w.pollux) {
    if (w.pollux->generate) {
      add_if_file(out, "workload.pollux.generate.trace", w.pollux->generate->trace);
    } else {
      add_if_file(out, "workload.pollux.file", w.pollux->file);
    }
  }
  for (std::size_t i = 0; i < w.mix.size(); ++i) {
    if (!w.mix[i].manifest.empty()) {
      add_if_file(out, fmt::format("workload.jobs[{}].manifest", i), w.mix[i].manifest);
    }
  }
}

bool plain_shell_word(const std::string& a) {
  return !a.empty() && std::all_of(a.begin(), a.end(), [](unsigned char c) {
    return std::isalnum(c) ||
           std::string_view("-_./=:,+@%[]").find(static_cast<char>(c)) != std::string_view::npos;
  });
}

}  // namespace

std::string file_sha256(const std::string& path) {
  return sha256_hex(read_text_file(path, "input file"));
}

std::vector<InputFile> scenario_inputs(const Scenario& s) {
  std::vector<InputFile> out;
  int index = 0;
  for (const auto& g : s.cluster.groups) {
    if (g.exact_name) {
      continue;  // a node of cluster.nodes_from or cluster.snapshot, listed below
    }
    if (!is_preset(g.topology)) {
      add_if_file(out, fmt::format("cluster.node_groups[{}].topology", index),
                  input_path(s.folder, g.topology));
    }
    ++index;
  }
  if (s.cluster.nodes_from) {
    add_if_file(out, "cluster.nodes_from.file", s.cluster.nodes_from->file);
    for (const auto& g : s.cluster.groups) {
      if (g.exact_name && !is_preset(g.topology)) {
        add_if_file(out, "cluster.nodes_from.topology", input_path(s.folder, g.topology));
        break;  // one topology for every node of the list
      }
    }
  }
  if (s.cluster.snapshot) {
    for (const std::string& file : snapshot_files(s.cluster.snapshot->path)) {
      add_if_file(out, "cluster.snapshot.file", file);
    }
    const std::string& topology = s.cluster.snapshot->topology;
    if (!topology.empty() && !is_preset(topology)) {
      add_if_file(out, "cluster.snapshot.topology", input_path(s.folder, topology));
    }
  }
  workload_inputs(s.workload, out);
  return out;
}

nlohmann::json make_provenance(const Scenario& s, const std::vector<PolicyConfig>& policies,
                               const std::vector<std::uint64_t>& seeds,
                               const ProvenanceInput& input) {
  using json = nlohmann::json;
  json files = json::array();
  for (const auto& f : scenario_inputs(s)) {
    files.push_back({{"key", f.key}, {"path", f.path}, {"sha256", f.sha256}});
  }
  json defs = json::array();
  for (const auto& p : policies) {
    // The hash of the text the runs were built from, taken when the profile was loaded.
    const policies::LoadedProfile& profile = p.loaded();
    defs.push_back({{"name", p.name},
                    {"scheduler", p.scheduler},
                    {"sha256", profile.builtin ? json(nullptr) : json(profile.sha256)}});
  }
  return json{{"tidesim_version", kVersion},
              {"tidesim_commit", kCommit},
              {"command", input.command},
              {"scenario", {{"path", s.path}, {"sha256", file_sha256(s.path)}}},
              {"overrides", input.overrides},
              {"files", std::move(files)},
              {"policies", std::move(defs)},
              {"seeds", seeds}};
}

std::string shell_command(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& a : args) {
    if (!out.empty()) {
      out += ' ';
    }
    if (plain_shell_word(a)) {
      out += a;
    } else {
      out += '\'';
      for (const char c : a) {
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
      }
      out += '\'';
    }
  }
  return out;
}

}  // namespace tidesim::app
