// `tidesim validate` on scenarios whose jobs are Kubernetes manifests with PriorityClasses and
// PodGroups: the shipped one is accepted; a Job joining a PodGroup that no manifest declares is
// an input error (exit 2) naming the manifest file, line, column and label.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tests/common/cli.hpp"
#include "tests/common/require.hpp"
#include "tests/tools/sample_result.hpp"

namespace tidesim::app {
namespace {

using test::run;

TEST(CliManifest, ValidateAcceptsTheShippedScenario) {
  TIDESIM_REQUIRE_CLI();
  const auto o = run("validate scenarios/manifest-gangs.yaml");
  EXPECT_EQ(o.code, 0) << o.out;
  // Besides the ok line, its offered load (over 100%: a warning) and its job classes.
  EXPECT_NE(
      o.out.find("scenarios/manifest-gangs.yaml: ok (4 nodes, 80 jobs for seed 1, 2 policies)\n"),
      std::string::npos)
      << o.out;
}

TEST(CliManifest, AnUndeclaredPodGroupIsAnInputError) {
  TIDESIM_REQUIRE_CLI();
  const std::string dir = test::temp_dir("cli_manifest");
  std::ofstream(dir + "/job.yaml") << "apiVersion: batch/v1\n"
                                      "kind: Job\n"
                                      "metadata: {name: dp4}\n"
                                      "spec:\n"
                                      "  parallelism: 4\n"
                                      "  template:\n"
                                      "    metadata:\n"
                                      "      labels:\n"
                                      "        scheduling.x-k8s.io/pod-group: dp4\n"
                                      "    spec:\n"
                                      "      containers: [{name: c}]\n";
  std::ofstream(dir + "/s.yaml") << "name: s\n"
                                    "cluster:\n"
                                    "  node_groups:\n"
                                    "    - {name: gpu, count: 1, gpu: A10, topology: a10x4-pcie}\n"
                                    "workload:\n"
                                    "  arrivals: {process: burst, count: 1}\n"
                                    "  jobs:\n"
                                    "    - manifest: job.yaml\n"
                                    "      model: resnet50\n"
                                    "      batch_size: 64\n"
                                    "      duration: 100s\n"
                                    "policies: [default-k8s]\n";
  const auto o = run("validate " + dir + "/s.yaml");
  EXPECT_EQ(o.code, 2);
  // Line 9; column 40 = 8 spaces + "scheduling.x-k8s.io/pod-group: " (31 characters) + 1.
  EXPECT_EQ(o.out, "tidesim: error: " + dir +
                       "/job.yaml:9:40: spec.template.metadata.labels.scheduling.x-k8s.io/"
                       "pod-group: no PodGroup named 'dp4' (scheduling.x-k8s.io/v1alpha1) in the "
                       "scenario's manifests\n");
}

}  // namespace
}  // namespace tidesim::app
