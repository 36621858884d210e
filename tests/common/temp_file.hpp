#pragma once
/// Test helper: input files written to the temporary folder, one per test process.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace tidesim::test {

/// A scenario's `workload:` and `policies:` sections for a test about the cluster: one 1-GPU
/// ResNet-50 job of 100 s under default-k8s.
inline constexpr const char* kOneJobWorkload =
    "workload:\n"
    "  arrivals: {process: burst, count: 1}\n"
    "  jobs:\n"
    "    - {name: job, pod: {gpus: 1}, model: resnet50, batch_size: 64, duration: 100s}\n"
    "policies: [default-k8s]\n";

/// Writes `text` to "tidesim-<name>-<pid>.yaml" in the temporary folder; returns its path.
inline std::string temp_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("tidesim-" + name + "-" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace tidesim::test
