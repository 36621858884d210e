// Corpus replay (docs/fuzzing.md): feeds every file of the given corpora to the named harness
// and fails when anything but an InputError escapes. Runs with any compiler, without libFuzzer.
//
//   fuzz_replay TARGET=PATH...    PATH: a file, or a folder read recursively
//
// Exit 0 when every input was answered (parsed, or refused with an InputError); 1 when an input
// let another exception escape (each is listed with its file) or a target got no input at all
// (a misspelt corpus path must not pass silently); 2 on bad arguments.
#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <string>
#include <typeinfo>
#include <vector>

#include "tests/fuzz/harness.hpp"

namespace {

namespace fs = std::filesystem;
using tidesim::fuzz::Harness;

const std::map<std::string, Harness>& harnesses() {
  // TIDESIM_FUZZ_CORE: only the parsers of the core libraries (topologies, workloads), for the
  // sanitizer job that builds nothing above them (tools/sanitize-core.sh).
  static const std::map<std::string, Harness> all = {
      {"topology", tidesim::fuzz::topology},
      {"trace", tidesim::fuzz::trace},
      {"openb_nodes", tidesim::fuzz::openb_nodes},
      {"manifest", tidesim::fuzz::manifest},
      {"k8s_workload", tidesim::fuzz::k8s_workload},
      {"gavel", tidesim::fuzz::gavel},
      {"slurm_trace", tidesim::fuzz::slurm_trace},
      {"pai_trace", tidesim::fuzz::pai_trace},
      {"gfs_trace", tidesim::fuzz::gfs_trace},
#ifndef TIDESIM_FUZZ_CORE
      {"scenario", tidesim::fuzz::scenario},
      {"scheduler_config", tidesim::fuzz::scheduler_config},
      {"kube_objects", tidesim::fuzz::kube_objects},
      {"kueue_admit", tidesim::fuzz::kueue_admit},
      {"kueue_config", tidesim::fuzz::kueue_config},
      {"cluster_snapshot", tidesim::fuzz::cluster_snapshot},
      {"result", tidesim::fuzz::result},
      {"llm", tidesim::fuzz::llm},
      {"job_policy", tidesim::fuzz::job_policy},
      {"volcano_hypernodes", tidesim::fuzz::volcano_hypernodes},
#endif
  };
  return all;
}

// The files under `path` in a fixed (sorted) order; `path` itself when it is a file.
std::vector<fs::path> inputs_of(const fs::path& path) {
  std::vector<fs::path> out;
  if (fs::is_directory(path)) {
    for (const auto& e : fs::recursive_directory_iterator(path)) {
      if (e.is_regular_file()) {
        out.push_back(e.path());
      }
    }
    std::sort(out.begin(), out.end());
  } else if (fs::is_regular_file(path)) {
    out.push_back(path);
  }
  return out;
}

// The exception's type as written in C++ (typeid names are mangled).
std::string type_name(const std::type_info& type) {
  int status = 0;
  char* name = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  std::string out = status == 0 && name != nullptr ? name : type.name();
  std::free(name);
  return out;
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: fuzz_replay TARGET=PATH...\n";
    return 2;
  }
  std::map<std::string, int> counts;
  std::map<std::string, std::size_t> refused;
  int failures = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto eq = arg.find('=');
    const auto harness =
        eq == std::string::npos ? harnesses().end() : harnesses().find(arg.substr(0, eq));
    if (harness == harnesses().end()) {
      std::cerr << "fuzz_replay: expected TARGET=PATH with a known target, got " << arg << "\n";
      return 2;
    }
    const std::string& target = harness->first;
    counts[target] += 0;
    for (const auto& file : inputs_of(arg.substr(eq + 1))) {
      const std::string bytes = read_bytes(file);
      ++counts[target];
      const std::size_t refused_before = tidesim::fuzz::refused_inputs;
      try {
        harness->second(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
        if (tidesim::fuzz::refused_inputs > refused_before) {
          ++refused[target];
          std::cout << "  refused  " << file.string() << "\n";
        } else {
          std::cout << "  accepted " << file.string() << "\n";
        }
      } catch (const std::exception& e) {
        ++failures;
        std::cerr << "FAIL " << target << " " << file.string() << ": " << type_name(typeid(e))
                  << ": " << e.what() << "\n";
      } catch (...) {
        ++failures;
        std::cerr << "FAIL " << target << " " << file.string() << ": a non-standard exception\n";
      }
    }
  }
  int empty = 0;
  for (const auto& [target, n] : counts) {
    std::cout << target << ": " << n << " input" << (n == 1 ? "" : "s") << ", " << refused[target]
              << " refused with an InputError\n";
    if (n == 0) {
      ++empty;
      std::cerr << "fuzz_replay: no input for " << target << " (a wrong corpus path?)\n";
    }
  }
  if (failures > 0) {
    std::cerr << "fuzz_replay: " << failures << " input(s) let an exception other than "
              << "tidesim::InputError escape\n";
  }
  return failures > 0 || empty > 0 ? 1 : 0;
}
