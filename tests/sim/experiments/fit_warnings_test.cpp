// fit_warnings: a pod request that no single node can allocate is named once, with how many jobs
// ask it; a request some node holds is not.
#include "tidesim/sim/experiments/fit_warnings.hpp"

#include <gtest/gtest.h>

namespace tidesim {
namespace {

NodeInfo node(std::int64_t gpus, std::int64_t cpu_milli, std::int64_t memory) {
  NodeInfo n;
  n.node.allocatable.gpus = gpus;
  n.node.allocatable.cpu_milli = cpu_milli;
  n.node.allocatable.memory_bytes = memory;
  return n;
}

workloads::JobSpec job(const std::string& name, std::int64_t gpus, std::int64_t cpu_milli,
                       std::int64_t memory) {
  workloads::JobSpec j;
  j.name = name;
  j.pod_template.requests.gpus = gpus;
  j.pod_template.requests.cpu_milli = cpu_milli;
  j.pod_template.requests.memory_bytes = memory;
  return j;
}

constexpr std::int64_t kGi = 1LL << 30;

TEST(FitWarnings, APodMemoryUnderOneMebibyteIsNamed) {
  ClusterView view;
  view.nodes = {node(8, 64000, 512 * kGi)};
  const std::vector<workloads::JobSpec> jobs{job("bytes-1", 1, 1000, 192),
                                             job("bytes-2", 1, 1000, 192),
                                             job("mebibyte", 1, 1000, 1 << 20)};
  const auto w = fit_warnings(jobs, view);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0],
            "job 'bytes-1' and 1 more with the same request: each pod asks 192 bytes of memory, "
            "less than 1 MiB; a number without a unit is bytes (did you mean 192Gi?)");
}

TEST(FitWarnings, ARequestNoSingleNodeHoldsIsNamedOnce) {
  ClusterView view;
  // One node with many GPUs and few CPUs, one with many CPUs and one GPU.
  view.nodes = {node(8, 2000, 64 * kGi), node(1, 64000, 512 * kGi)};
  const std::vector<workloads::JobSpec> jobs{
      job("small-1", 1, 1000, kGi),       // fits either node
      job("wide-1", 4, 8000, 16 * kGi),   // 4 GPUs only on the first, 8 CPUs only on the second
      job("wide-2", 4, 8000, 16 * kGi),   // the same request
      job("huge-1", 16, 1000, kGi),       // more GPUs than any node
      job("edge-1", 8, 2000, 64 * kGi)};  // exactly the first node: fits
  const auto w = fit_warnings(jobs, view);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0],
            "job 'wide-1' and 1 more with the same request: each pod asks 4 GPUs, 8 CPU, 16GiB "
            "memory, which no node can allocate (the most any node has: 8 GPUs, 64 CPU, 512GiB "
            "memory); its pods will never bind");
  EXPECT_NE(w[1].find("job 'huge-1': each pod asks 16 GPUs"), std::string::npos) << w[1];
}

TEST(FitWarnings, NothingWhenEveryRequestFits) {
  ClusterView view;
  view.nodes = {node(4, 32000, 128 * kGi)};
  EXPECT_TRUE(fit_warnings({job("a", 4, 32000, 128 * kGi), job("b", 0, 0, 0)}, view).empty());
}

}  // namespace
}  // namespace tidesim
