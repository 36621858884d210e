#pragma once
/// Helpers for tests that run the `tidesim` CLI binary (TIDESIM_CLI, defined by tidesim_add_test)
/// as a user would. Header-only; tests run with the repository root as working directory.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace tidesim::test {

/// What one CLI invocation produced: its exit code (-1 when it did not exit normally or could
/// not be started) and its standard output and error, interleaved.
struct CliOutput {
  int code = -1;
  std::string out;
};

/// True when the CLI binary has been built (see TIDESIM_REQUIRE_CLI() in require.hpp).
inline bool have_cli() {
  return std::filesystem::exists(TIDESIM_CLI);
}

/// Runs `tidesim ARGS` through the shell with stdout and stderr redirected to the file `out`;
/// returns the exit code, or -1 when the process did not exit normally.
inline int run(const std::string& args, const std::string& out) {
  const int rc =
      std::system((std::string(TIDESIM_CLI) + " " + args + " > " + out + " 2>&1").c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/// Runs `tidesim ARGS` through the shell and captures its standard output; `redirect` says where
/// standard error goes ("2>&1": captured with it; "2> FILE": to a file).
inline CliOutput run_capturing(const std::string& args, const std::string& redirect) {
  CliOutput r;
  const std::string cmd = std::string(TIDESIM_CLI) + " " + args + " " + redirect;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) {
    return r;
  }
  std::array<char, 65536> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) {
    r.out.append(buf.data(), n);
  }
  const int status = pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

/// Runs `tidesim ARGS` through the shell and captures stdout and stderr together.
inline CliOutput run(const std::string& args) {
  return run_capturing(args, "2>&1");
}

/// The whole content of the file at `path` (empty when it cannot be read).
inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace tidesim::test
