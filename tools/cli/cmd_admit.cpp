// `tidesim admit SNAPSHOT WORKLOAD [--format table|json] [--feature-gates A=true,B=false]
// [--flavor NAME] [--kueue-config FILE]`: would Kueue's topology-aware scheduling admit this
// Workload on this cluster, and where (tools/lib/tas_admit.hpp, docs/topology-aware.md). Exit 0
// when it is admitted, 1 when a PodSet does not fit or it waits for admission checks, 2 on bad
// input.
#include <fmt/core.h>

#include <memory>
#include <string>

#include "tidesim/tools/cli/commands.hpp"
#include "tidesim/tools/lib/tas_admit.hpp"

namespace tidesim::cli {

namespace {
struct AdmitOptions {
  std::string snapshot;
  std::string workload;
  std::string format = "table";
  std::string feature_gates;
  std::string flavor;
  std::string kueue_config;
};
}  // namespace

void add_admit_command(CLI::App& app, Context& ctx) {
  auto opts = std::make_shared<AdmitOptions>();
  auto* cmd = app.add_subcommand(
      "admit", "What-if: place a pending Kueue Workload on a cluster snapshot with Kueue's TAS");
  cmd->add_option("snapshot", opts->snapshot,
                  "File or folder of Kubernetes objects (kubectl get -o yaml): Nodes, Pods, "
                  "Topology, ResourceFlavor, ClusterQueue, LocalQueue")
      ->required();
  cmd->add_option("workload", opts->workload, "File with one pending Kueue Workload")->required();
  cmd->add_option("--format", opts->format, "Output format")
      ->check(CLI::IsMember({"table", "json"}));
  cmd->add_option("--feature-gates", opts->feature_gates,
                  "Kueue feature gates, as Kueue's flag: TASBalancedPlacement=true,...");
  cmd->add_option("--flavor", opts->flavor,
                  "ResourceFlavor to place on (default: the Workload queue's flavors with a "
                  "topology, in order)");
  cmd->add_option("--kueue-config", opts->kueue_config,
                  "Kueue Configuration file: its resources.transformations apply to the quota");
  cmd->callback([&ctx, opts] {
    ctx.input = opts->workload;
    ctx.run = [opts] {
      app::AdmitRequest request{.snapshot = opts->snapshot,
                                .workload = opts->workload,
                                .gates = app::parse_feature_gates(opts->feature_gates),
                                .flavor = opts->flavor,
                                .kueue_config = opts->kueue_config};
      const app::AdmitOutcome outcome = app::admit(request);
      fmt::print("{}",
                 opts->format == "json" ? app::admit_json(outcome) : app::admit_table(outcome));
      return outcome.admitted() ? 0 : 1;
    };
  });
}

}  // namespace tidesim::cli
