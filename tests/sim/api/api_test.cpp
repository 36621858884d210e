#include "tidesim/sim/api/api.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>

#include "tidesim/sim/api/cluster_view.hpp"
#include "tidesim/sim/api/telemetry.hpp"

namespace tidesim {
namespace {

TEST(LabelSelector, MatchLabelsAndExpressions) {
  const std::map<std::string, std::string> labels{{"app", "gpt2-dp"}, {"tier", "3"}};
  LabelSelector s;
  EXPECT_TRUE(matches(s, labels)) << "empty selector matches everything";
  s.match_labels = {{"app", "gpt2-dp"}};
  EXPECT_TRUE(matches(s, labels));
  s.match_expressions = {{"tier", "Gt", {"2"}}};
  EXPECT_TRUE(matches(s, labels));
  s.match_expressions = {{"tier", "Lt", {"2"}}};
  EXPECT_FALSE(matches(s, labels));
  s.match_expressions = {{"zone", "DoesNotExist", {}}, {"app", "In", {"a", "gpt2-dp"}}};
  EXPECT_TRUE(matches(s, labels));
  s.match_expressions = {{"app", "NotIn", {"gpt2-dp"}}};
  EXPECT_FALSE(matches(s, labels));
}

TEST(Toleration, FollowsKubernetesRules) {
  const Taint t{"nvidia.com/gpu", "present", "NoSchedule"};
  EXPECT_TRUE(tolerates({"nvidia.com/gpu", "Exists", "", ""}, t));
  EXPECT_TRUE(tolerates({"", "Exists", "", ""}, t)) << "empty key with Exists tolerates all";
  EXPECT_TRUE(tolerates({"nvidia.com/gpu", "Equal", "present", "NoSchedule"}, t));
  EXPECT_FALSE(tolerates({"nvidia.com/gpu", "Equal", "absent", ""}, t));
  EXPECT_FALSE(tolerates({"nvidia.com/gpu", "Exists", "", "NoExecute"}, t));
}

TEST(NodeInfo, TracksRequestsWithNonZeroDefaults) {
  NodeInfo n;
  auto p1 = std::make_shared<PodSpec>();
  p1->name = "a";
  p1->requests.gpus = 1;
  p1->requests.memory_bytes = 16LL << 30;
  n.add_pod(p1);
  EXPECT_EQ(n.requested.cpu_milli, 0);
  EXPECT_EQ(n.non_zero_requested.cpu_milli, kDefaultMilliCpuRequest);
  EXPECT_EQ(n.non_zero_requested.memory_bytes, 16LL << 30);
  EXPECT_EQ(n.requested.gpus, 1);
  EXPECT_TRUE(n.remove_pod("a"));
  EXPECT_FALSE(n.remove_pod("a"));
  EXPECT_EQ(n.requested, Resources{});
  EXPECT_EQ(n.non_zero_requested.cpu_milli, 0);
}

Container container(std::optional<std::int64_t> cpu, std::optional<std::int64_t> memory) {
  Container c;
  c.cpu_set = cpu.has_value();
  c.memory_set = memory.has_value();
  c.requests.cpu_milli = cpu.value_or(0);
  c.requests.memory_bytes = memory.value_or(0);
  return c;
}

constexpr std::int64_t kMi = 1LL << 20;

// NonMissingContainerRequests: a container that does not set CPU or memory counts 100m / 200Mi
// for it; one that sets it (even to 0) counts what it set. Two containers: one sets only CPU
// 500m, the other only memory 1Gi -> effective 500m / 1Gi, non-zero 600m / 1Gi + 200Mi.
TEST(PodRequests, NonZeroDefaultsArePerContainerAndPerMissingKey) {
  PodSpec p;
  p.containers =
      std::vector<Container>{container(500, std::nullopt), container(std::nullopt, 1024 * kMi)};
  EXPECT_EQ(pod_requests(p).cpu_milli, 500);
  EXPECT_EQ(pod_requests(p).memory_bytes, 1024 * kMi);
  EXPECT_EQ(pod_requests(p, RequestKind::kNonZero).cpu_milli, 600);
  EXPECT_EQ(pod_requests(p, RequestKind::kNonZero).memory_bytes, 1224 * kMi);
  p.containers = std::vector<Container>{container(0, 0)};  // cpu: "0", memory: "0"
  EXPECT_EQ(pod_requests(p, RequestKind::kNonZero).cpu_milli, 0);
  EXPECT_EQ(pod_requests(p, RequestKind::kNonZero).memory_bytes, 0);
  p.containers = std::vector<Container>{};  // no containers at all: nothing
  EXPECT_EQ(pod_requests(p, RequestKind::kNonZero).cpu_milli, 0);
  EXPECT_EQ(pod_requests(p, RequestKind::kNonZero).memory_bytes, 0);
}

// A pod built without a container list is one container setting its non-zero keys.
TEST(PodRequests, PodWithoutContainerListIsOneContainer) {
  PodSpec p;
  p.requests.memory_bytes = 16LL << 30;
  p.requests.gpus = 2;
  const Resources nz = pod_requests(p, RequestKind::kNonZero);
  EXPECT_EQ(nz.cpu_milli, kDefaultMilliCpuRequest);
  EXPECT_EQ(nz.memory_bytes, 16LL << 30);
  EXPECT_EQ(nz.gpus, 2);
  EXPECT_EQ(pod_requests(p), p.requests);
}

// resource.PodRequests: max(sum of containers + sidecars, each init container + the sidecars
// started before it) + overhead. Containers 1000m; sidecar 500m; then an init container 1200m
// runs beside the sidecar: max(1000 + 500, 1200 + 500) = 1700m, + overhead 250m = 1950m.
// Memory: nobody sets it; non-zero: containers 200Mi + sidecar 200Mi = 400Mi vs init 200Mi +
// sidecar 200Mi = 400Mi -> 400Mi, + overhead 0.
TEST(PodRequests, InitContainersSidecarsAndOverhead) {
  PodSpec p;
  p.containers = std::vector<Container>{container(1000, std::nullopt)};
  Container sidecar = container(500, std::nullopt);
  sidecar.restartable = true;
  p.init_containers = {sidecar, container(1200, std::nullopt)};
  p.overhead.cpu_milli = 250;
  EXPECT_EQ(pod_requests(p).cpu_milli, 1950);
  EXPECT_EQ(pod_requests(p).memory_bytes, 0);
  EXPECT_EQ(pod_requests(p, RequestKind::kNonZero).cpu_milli, 1950);
  EXPECT_EQ(pod_requests(p, RequestKind::kNonZero).memory_bytes, 400 * kMi);
  // The same init container BEFORE the sidecar runs alone: max(1500, 1200, 500) = 1500 + 250.
  p.init_containers = {container(1200, std::nullopt), sidecar};
  EXPECT_EQ(pod_requests(p).cpu_milli, 1750);
  // A large init container wins the max: 4000m + 250m.
  p.init_containers = {container(4000, 0)};
  EXPECT_EQ(pod_requests(p).cpu_milli, 4250);
  EXPECT_EQ(pod_requests(p, RequestKind::kNonZero).memory_bytes, 200 * kMi);  // containers' default
}

// The one index the run publishes and the load-aware plugins read (it was written twice, in
// topologies and in the plugin).
TEST(Telemetry, NvlinkCompetitionIndex) {
  // SEED-DIGEST 2.2: 2 NVLink tasks on a 4-GPU node -> 2 / (4 x 2) = 0.25.
  EXPECT_DOUBLE_EQ(nvlink_competition_index(2, 4), 0.25);
  // One task's step on an 8-GPU node: 1 / 16 = 0.0625 (what an estimated bound pod adds).
  EXPECT_DOUBLE_EQ(nvlink_competition_index(1, 8), 0.0625);
  EXPECT_DOUBLE_EQ(nvlink_competition_index(0, 8), 0.0);
  EXPECT_DOUBLE_EQ(nvlink_competition_index(3, 0), 0.0);  // a node without GPUs
  EXPECT_THROW(nvlink_competition_index(-1, 4), std::invalid_argument);
  EXPECT_THROW(nvlink_competition_index(1, -4), std::invalid_argument);
}

// NodeInfo keeps Kubernetes' PodsWithAffinity / PodsWithRequiredAntiAffinity lists in step with
// its pods, so InterPodAffinity walks only those.
TEST(NodeInfo, TracksPodsWithAffinityTerms) {
  NodeInfo n;
  auto plain = std::make_shared<PodSpec>();
  plain->name = "plain";
  auto preferred = std::make_shared<PodSpec>();
  preferred->name = "preferred";
  preferred->pod_affinity.preferred.push_back(WeightedPodAffinityTerm{10, {}});
  auto anti = std::make_shared<PodSpec>();
  anti->name = "anti";
  anti->pod_anti_affinity.required.push_back(PodAffinityTerm{});
  n.add_pod(plain);
  n.add_pod(preferred);
  n.add_pod(anti);
  ASSERT_EQ(n.pods_with_affinity.size(), 2u);
  EXPECT_EQ(n.pods_with_affinity[0]->name, "preferred");
  EXPECT_EQ(n.pods_with_affinity[1]->name, "anti");
  ASSERT_EQ(n.pods_with_required_anti_affinity.size(), 1u);
  EXPECT_EQ(n.pods_with_required_anti_affinity[0]->name, "anti");
  EXPECT_TRUE(n.remove_pod("anti"));
  EXPECT_EQ(n.pods_with_affinity.size(), 1u);
  EXPECT_TRUE(n.pods_with_required_anti_affinity.empty());
  EXPECT_TRUE(n.remove_pod("plain"));
  EXPECT_EQ(n.pods_with_affinity.size(), 1u);
}

}  // namespace
}  // namespace tidesim
