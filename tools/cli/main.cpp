// The `tidesim` command line. Exit codes: 0 success, 1 runtime failure, 2 bad input or usage.
#include "tidesim/tools/cli/command_line.hpp"

int main(int argc, char** argv) {
  return tidesim::cli::run_command_line(argc, argv);
}
