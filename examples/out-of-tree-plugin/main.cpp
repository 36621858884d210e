// tidesim-fewest-pods: the tidesim command line with FewestPods added explicitly, as
// kube-scheduler's app.NewSchedulerCommand(app.WithPlugin(...)) adds an out-of-tree plugin.
#include <tidesim/tools/cli/command_line.hpp>

#include "fewest_pods.hpp"

int main(int argc, char** argv) {
  return tidesim::cli::run_command_line(
      argc, argv, {tidesim::cli::with_plugin("FewestPods", fewest::fewest_pods_entry())});
}
