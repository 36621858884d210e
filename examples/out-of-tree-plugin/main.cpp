// tidesim-fewest-pods: the tidesim command line with the Score plugin FewestPods added explicitly,
// as kube-scheduler's app.NewSchedulerCommand(app.WithPlugin(...)) adds an out-of-tree plugin, and
// the job-level policy LargestFirst registered before any scenario is read.
#include <tidesim/sim/admission/job_policy_registry.hpp>
#include <tidesim/tools/cli/command_line.hpp>

#include "fewest_pods.hpp"
#include "largest_first.hpp"

int main(int argc, char** argv) {
  tidesim::register_job_policy(fewest::largest_first_entry());
  return tidesim::cli::run_command_line(
      argc, argv, {tidesim::cli::with_plugin("FewestPods", fewest::fewest_pods_entry())});
}
