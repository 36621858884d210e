// The rules behind Kueue's partial admission, resource transformations, admission checks and its
// quota message (sim/admission/kueue_partial.hpp, kueue_transform.hpp, kueue_checks.hpp,
// kueue_quota_message.hpp). The partial admission search is checked on Kueue's own cases; the
// others by hand from Kueue's code (cited beside each).
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "tidesim/sim/admission/kueue_checks.hpp"
#include "tidesim/sim/admission/kueue_partial.hpp"
#include "tidesim/sim/admission/kueue_quota_message.hpp"
#include "tidesim/sim/admission/kueue_transform.hpp"

namespace tidesim::tas {
namespace {

struct SearchCase {
  const char* name;
  std::vector<std::int32_t> counts;
  std::vector<std::int32_t> mins;
  std::int32_t limit;
  bool want_found;
  std::int32_t want_count;
};

// kubernetes-sigs/kueue @ff69552, pkg/scheduler/flavorassigner/podset_reducer_test.go,
// TestSearch: fits when the total count is within the limit; the search finds the largest total.
TEST(KueuePartialAdmission, TestSearchCasesOfKueue) {
  const std::vector<std::int32_t> five(4, 5);
  const std::vector<std::int32_t> big(8, 150000);
  std::vector<std::int32_t> one_big = {150000, 1, 1, 1, 1, 1, 1, 1};
  const std::vector<SearchCase> cases = {
      {"empty", {}, {}, 10, false, 0},
      {"partial not available", {1, 2}, {1, 2}, 2, false, 0},
      {"partial available", five, {3, 4, 1, 2}, 15, true, 15},
      {"one partial available", five, {3, 5, 5, 5}, 19, true, 19},
      {"to min", five, {3, 4, 1, 2}, 10, true, 10},
      {"to max", five, {3, 4, 1, 2}, 20, true, 20},
      {"no overflow", big, std::vector<std::int32_t>(8, 1), 150000, true, 150000},
      {"max pods on 1.27", one_big, {1, 1, 1, 1, 1, 1, 1, 1}, 150000, true, 150000},
      {"podset with replica count 0", {0}, {0}, 0, false, 0},
  };
  for (const SearchCase& c : cases) {
    SCOPED_TRACE(c.name);
    const auto got = reduce_counts(c.counts, c.mins, [&](const std::vector<std::int32_t>& n) {
      return std::accumulate(n.begin(), n.end(), std::int64_t{0}) <= c.limit;
    });
    ASSERT_EQ(got.has_value(), c.want_found);
    const std::int64_t total = got ? std::accumulate(got->begin(), got->end(), std::int64_t{0}) : 0;
    EXPECT_EQ(total, c.want_count);
  }
}

// The counts walk down together: step i of D = 4 takes floor(delta * i / D) off each PodSet.
TEST(KueuePartialAdmission, CountsWalkDownTogether) {
  const auto got = reduce_counts({5, 3}, {1, 3}, [](const std::vector<std::int32_t>& n) {
    return n[0] <= 2;  // 5, 4, 3, 2 pods of the first PodSet; the second cannot be reduced
  });
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, (std::vector<std::int32_t>{2, 3}));
  EXPECT_FALSE(can_be_partially_admitted({5, 3}, {5, 3}));
  EXPECT_TRUE(can_be_partially_admitted({5, 3}, {5, 2}));
}

// applyResourceTransformations (pkg/workload/workload.go): outputs per unit of input, Retain
// keeps the input, Replace drops it; exact products rounded up to the output's unit.
TEST(KueueResourceTransformations, RetainReplaceMultiplyAndRounding) {
  const ResourceTransformation credits{.input = "cpu",
                                       .replace = false,
                                       .multiply_by = "",
                                       .outputs_milli = {{"cpu_credits", 1000}}};
  EXPECT_EQ(transform_requests({{"cpu", 2000}}, {credits}),
            (ResourceMap{{"cpu", 2000}, {"cpu_credits", 2}}));
  // 500m CPU x 1 credit = 0.5 credits: Quantity.Value() rounds up to 1.
  EXPECT_EQ(transform_requests({{"cpu", 500}}, {credits}).at("cpu_credits"), 1);
  const ResourceTransformation gpu_units{
      .input = "nvidia.com/mig-1g.5gb",
      .replace = true,
      .multiply_by = "",
      .outputs_milli = {{"example.com/accelerator-memory", 5000}, {"example.com/credits", 250}}};
  EXPECT_EQ(
      transform_requests({{"nvidia.com/mig-1g.5gb", 2}, {"memory", 7}}, {gpu_units}),
      (ResourceMap{
          {"example.com/accelerator-memory", 10}, {"example.com/credits", 1}, {"memory", 7}}));
  // multiplyBy: 4 GPUs x 2 (the pod's `example.com/slices`) x 1.5 = 12 units.
  const ResourceTransformation by{.input = "nvidia.com/gpu",
                                  .replace = true,
                                  .multiply_by = "example.com/slices",
                                  .outputs_milli = {{"units", 1500}}};
  EXPECT_EQ(transform_requests({{"nvidia.com/gpu", 4}, {"example.com/slices", 2}}, {by}),
            (ResourceMap{{"example.com/slices", 2}, {"units", 12}}));
  // A negative factor (an allowance) cancels other outputs of the same name; a negative total is
  // zero, and it does not reduce the pod's own request of that name.
  const ResourceTransformation allowance{.input = "memory",
                                         .replace = false,
                                         .multiply_by = "",
                                         .outputs_milli = {{"cpu_credits", -5000}}};
  EXPECT_EQ(
      transform_requests({{"cpu", 2000}, {"memory", 1}, {"cpu_credits", 3}}, {credits, allowance}),
      (ResourceMap{{"cpu", 2000}, {"cpu_credits", 3}, {"memory", 1}}));
}

// Kueue's HasProvRequestAdmissionCheck, admissionChecksForAdmission and PodSetInfo.Merge.
TEST(KueueAdmissionChecks, ProvisioningDelaysOnItsFlavorsAndUpdatesMerge) {
  const std::vector<QueueCheck> checks = {
      {.name = "prov",
       .controller = kProvisioningRequestController,
       .on_flavors = {"tas-provisioning"}},
      {.name = "custom", .controller = "example.com/custom", .on_flavors = {}}};
  EXPECT_TRUE(delays_topology(checks, "tas-provisioning"));
  EXPECT_FALSE(delays_topology(checks, "tas-reservation"));
  EXPECT_EQ(checks_for(checks, {"tas-reservation"}), (std::set<std::string>{"custom"}));
  const std::vector<CheckState> states = {
      {.name = "custom",
       .state = "Ready",
       .updates = {{.podset = "one",
                    .node_selector = {{"pool", "a"}},
                    .tolerations = {{.key = "t", .op = "Exists", .value = "", .effect = ""}}}}},
  };
  EXPECT_EQ(waiting_for({"custom", "prov"}, states), (std::vector<std::string>{"prov (Pending)"}));
  TasPodSet ps{.name = "one",
               .count = 1,
               .requests = {},
               .topology = std::nullopt,
               .tolerations = {},
               .node_selector = {{"zone", "z1"}},
               .required_affinity = {},
               .preferred_affinity = {},
               .previous_assignment = std::nullopt};
  EXPECT_EQ(apply_updates(ps, states), "");
  EXPECT_EQ(ps.node_selector.at("pool"), "a");
  ASSERT_EQ(ps.tolerations.size(), 1U);
  EXPECT_EQ(apply_updates(ps, states), "");  // the same toleration is not added twice
  EXPECT_EQ(ps.tolerations.size(), 1U);
  ps.node_selector["pool"] = "b";
  EXPECT_EQ(apply_updates(ps, states),
            "invalid admission check PodSetUpdate: conflict for nodeSelector: conflict for "
            "key=pool, value1=b, value2=a");
}

// pkg/resources/resource_formatter.go: cpu from millicores in canonical decimal form, memory in
// binary form, others decimal.
TEST(KueueQuotaMessage, QuantitiesAsKueuePrintsThem) {
  EXPECT_EQ(quantity_string("cpu", 2000), "2");
  EXPECT_EQ(quantity_string("cpu", 1500), "1500m");
  EXPECT_EQ(quantity_string("cpu", 0), "0");
  EXPECT_EQ(quantity_string("cpu", 50000000), "50k");
  EXPECT_EQ(quantity_string("memory", 1073741824), "1Gi");
  EXPECT_EQ(quantity_string("memory", 1610612736), "1536Mi");
  EXPECT_EQ(quantity_string("memory", 1000), "1000");
  EXPECT_EQ(quantity_string("cpu_credits", 2), "2");
}

}  // namespace
}  // namespace tidesim::tas
