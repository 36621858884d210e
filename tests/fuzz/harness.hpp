#pragma once
/// The fuzz harnesses of tidesim's parsers (docs/fuzzing.md). Each harness feeds one input to one
/// parser entry point and swallows tidesim::InputError, the documented answer to bad input; any
/// other exception escapes and is a finding. A harness file also defines libFuzzer's
/// LLVMFuzzerTestOneInput when built as a fuzz target (TIDESIM_LIBFUZZER); the corpus replay test
/// (replay_main.cpp) links every harness into one program and calls them by name.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "tidesim/sim/input/error.hpp"

namespace tidesim::fuzz {

/// One harness: returns 0 (libFuzzer's convention); throws whatever the parser throws that is
/// not an InputError.
using Harness = int (*)(const std::uint8_t* data, std::size_t size);

int scenario(const std::uint8_t* data, std::size_t size);
int topology(const std::uint8_t* data, std::size_t size);
int trace(const std::uint8_t* data, std::size_t size);
int openb_nodes(const std::uint8_t* data, std::size_t size);
int manifest(const std::uint8_t* data, std::size_t size);
int k8s_workload(const std::uint8_t* data, std::size_t size);
int scheduler_config(const std::uint8_t* data, std::size_t size);
int kube_objects(const std::uint8_t* data, std::size_t size);
int kueue_admit(const std::uint8_t* data, std::size_t size);
int kueue_config(const std::uint8_t* data, std::size_t size);
int cluster_snapshot(const std::uint8_t* data, std::size_t size);
int result(const std::uint8_t* data, std::size_t size);
int llm(const std::uint8_t* data, std::size_t size);
int job_policy(const std::uint8_t* data, std::size_t size);
int gavel(const std::uint8_t* data, std::size_t size);
int slurm_trace(const std::uint8_t* data, std::size_t size);
int pai_trace(const std::uint8_t* data, std::size_t size);
int gfs_trace(const std::uint8_t* data, std::size_t size);
int volcano_hypernodes(const std::uint8_t* data, std::size_t size);

/// The input as text (the parsers take std::string).
inline std::string as_text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

/// How many inputs this process's harnesses refused with an InputError (the replay reports it).
inline std::size_t refused_inputs = 0;

/// Runs `parse`, treating InputError as the expected outcome of bad input.
template <class F>
int expect_input_error_only(F&& parse) {
  try {
    parse();
  } catch (const InputError&) {
    ++refused_inputs;
  }
  return 0;
}

/// Writes the input to `name` in a folder private to this process (created on first use, removed
/// at normal exit) and returns its path, for the entry points that read a file. The folder holds
/// nothing else, so a relative path inside the input resolves to nothing.
std::filesystem::path write_input(std::string_view name, const std::uint8_t* data,
                                  std::size_t size);

}  // namespace tidesim::fuzz
