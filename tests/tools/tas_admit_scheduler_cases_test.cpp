// Kueue's scheduler-level TAS cases with admission checks, partial admission and resource
// transformations, run through `tidesim admit` (app::admit, tools/lib/tas_admit_queue.hpp).
//
// Source: kubernetes-sigs/kueue @ff69552e79ad21652c36caa97038382e55625cf7,
// pkg/scheduler/scheduler_tas_test.go, TestScheduleForTAS. Each case is ported by hand to a
// folder of tests/tools/data/admit_kueue_scheduler/ (the cluster as Kubernetes objects in
// snapshot.yaml, the Workload with its status in workload.yaml, the Kueue Configuration in
// kueue-config.yaml) with the upstream case name beside it here and in the files. Each compares
// what upstream's wantNewAssignments holds for the Workload (each PodSet's flavours, count,
// delayedTopologyRequest and topologyAssignment), whether it is Admitted or only has quota
// reserved (upstream's events QuotaReserved and Admitted), or upstream's event message for a
// Workload left pending ("couldn't assign flavors to pod set NAME: " and the reason).
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tests/common/temp_file.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/sim/scenario/kueue_config.hpp"
#include "tidesim/tools/lib/tas_admit.hpp"

namespace tidesim::app {
namespace {

const std::string kDir = "tests/tools/data/admit_kueue_scheduler/";

struct WantPodSet {
  std::string name;
  std::int32_t count = 1;
  std::map<std::string, std::string> flavors;
  std::string delayed;                    // delayedTopologyRequest
  std::vector<std::string> hosts;         // one pod count per host below
  std::vector<std::int32_t> host_counts;  // empty with hosts: no topologyAssignment
};

struct SchedulerCase {
  std::string dir;
  std::string upstream;  // the case name in TestScheduleForTAS
  bool admitted = false;
  bool quota_reserved = false;
  std::vector<std::string> waiting_for;
  std::vector<WantPodSet> podsets;
  std::string message;  // the event message of a Workload left pending
};

const std::map<std::string, std::string> kDefault = {{"cpu", "tas-default"}};
const std::map<std::string, std::string> kSecond = {{"cpu", "tas-second"}};

// The admission check cases (ProvisioningRequest and custom).
std::vector<SchedulerCase> check_cases() {
  const auto& def = kDefault;
  const auto& second = kSecond;
  return {
      {"prov-second-pass",
       "workload in CQ with ProvisioningRequest; second pass; baseline scenario",
       true,
       true,
       {},
       {{"one", 1, def, "Ready", {"x1"}, {1}}},
       ""},
      {"prov-second-pass-full-quota",
       "workload in CQ with ProvisioningRequest; second pass; multi-resource workload fully "
       "consumes quota",
       true,
       true,
       {},
       {{"one", 1, {{"cpu", "tas-default"}, {"memory", "tas-default"}}, "Ready", {"x1"}, {1}}},
       ""},
      {"prov-on-second-flavor-only",
       "workload in CQ with two TAS flavors, only the second is using Provisioning Admission Check",
       true,
       true,
       {},
       {{"one", 1, {{"cpu", "tas-reservation"}}, "", {"x1"}, {1}}},
       ""},
      {"prov-second-pass-large",
       "large workload in CQ with ProvisioningRequest; second pass",
       true,
       true,
       {},
       {{"one", 26, def, "Ready", {"x1"}, {26}}},
       ""},
      {"prov-second-pass-two-flavors",
       "workload in CQ with ProvisioningRequest when two TAS flavors; second pass",
       true,
       true,
       {},
       {{"one", 1, second, "Ready", {"y1"}, {1}}},
       ""},
      {"prov-second-pass-one-regular-flavor",
       "workload in CQ with two TAS flavors - one with ProvisioningRequest, one regular; second "
       "pass",
       true,
       true,
       {},
       {{"one", 1, def, "", {"x1"}, {1}}, {"two", 1, second, "Ready", {"y1"}, {1}}},
       ""},
      {"prov-quota-reserved-implied",
       "workload in CQ with ProvisioningRequest gets QuotaReserved only; implicit defaulting",
       false,
       true,
       {"prov-check (Pending)"},
       {{"one", 1, def, "Pending", {}, {}}},
       ""},
      {"prov-second-pass-two-flavors-implied",
       "workload in CQ with ProvisioningRequest when two TAS flavors; second pass; implicit "
       "defaulting",
       true,
       true,
       {},
       {{"one", 1, second, "Ready", {"y1"}, {1}}},
       ""},
      {"prov-quota-reserved",
       "workload in CQ with ProvisioningRequest gets QuotaReserved only",
       false,
       true,
       {"prov-check (Pending)"},
       {{"one", 1, def, "Pending", {}, {}}},
       ""},
      {"custom-check",
       "workload with a custom AdmissionCheck gets TAS assigned",
       false,
       true,
       {"custom-check (Pending)"},
       {{"one", 1, def, "", {"x1"}, {1}}},
       ""},
  };
}

// Partial admission and resource transformations.
std::vector<SchedulerCase> quota_cases() {
  const auto& def = kDefault;
  return {
      {"partial-admission",
       "TAS workload gets scheduled as trimmed by partial admission",
       true,
       true,
       {},
       {{"one", 1, def, "", {"x1"}, {1}}},
       ""},
      {"transformation-credits",
       "workload with Resource Transformation (Retain CPU → cpu_credits)",
       true,
       true,
       {},
       {{"one", 1, {{"cpu", "tas-default"}, {"cpu_credits", "credits"}}, "", {"x1"}, {1}}},
       ""},
      {"transformation-not-enough-credits",
       "workload with Resource Transformation (Retain CPU → cpu_credits, not enough credits)",
       false,
       false,
       {},
       {},
       "couldn't assign flavors to pod set one: insufficient quota for cpu_credits in flavor "
       "credits, previously considered podsets requests (0) + current podset request (2) > "
       "maximum capacity (1)"},
  };
}

std::vector<SchedulerCase> cases() {
  std::vector<SchedulerCase> out = check_cases();
  for (SchedulerCase& c : quota_cases()) {
    out.push_back(std::move(c));
  }
  return out;
}

class TasAdmitSchedulerCases : public ::testing::TestWithParam<SchedulerCase> {};

TEST_P(TasAdmitSchedulerCases, SameAdmissionAsKueue) {
  const SchedulerCase& c = GetParam();
  SCOPED_TRACE("upstream case: " + c.upstream);
  const std::string dir = kDir + c.dir + "/";
  const bool config = std::filesystem::exists(dir + "kueue-config.yaml");
  const AdmitOutcome o = admit({.snapshot = dir + "snapshot.yaml",
                                .workload = dir + "workload.yaml",
                                .gates = {},
                                .flavor = "",
                                .kueue_config = config ? dir + "kueue-config.yaml" : ""});
  EXPECT_EQ(o.workload, "default/foo");
  EXPECT_EQ(o.admitted(), c.admitted);
  EXPECT_EQ(o.quota_reserved, c.quota_reserved);
  EXPECT_EQ(o.waiting_for, c.waiting_for);
  if (!c.message.empty()) {
    ASSERT_FALSE(o.podsets.empty());
    EXPECT_EQ(
        "couldn't assign flavors to pod set " + o.podsets[0].name + ": " + o.podsets[0].reason,
        c.message);
    return;
  }
  ASSERT_EQ(o.podsets.size(), c.podsets.size());
  ASSERT_EQ(o.quota.size(), c.podsets.size());
  for (std::size_t i = 0; i < c.podsets.size(); ++i) {
    const WantPodSet& want = c.podsets[i];
    SCOPED_TRACE("podset " + want.name);
    EXPECT_EQ(o.podsets[i].name, want.name);
    EXPECT_EQ(o.podsets[i].reason, "");
    EXPECT_EQ(o.quota[i].count, want.count);
    EXPECT_EQ(o.quota[i].flavors, want.flavors);
    EXPECT_EQ(o.quota[i].delayed, want.delayed);
    if (want.hosts.empty()) {
      EXPECT_FALSE(o.podsets[i].assignment.has_value());
      continue;
    }
    tas::TopologyAssignment a{.levels = {"kubernetes.io/hostname"}, .domains = {}};
    for (std::size_t h = 0; h < want.hosts.size(); ++h) {
      a.domains.push_back({{want.hosts[h]}, want.host_counts[h]});
    }
    ASSERT_TRUE(o.podsets[i].assignment.has_value());
    EXPECT_EQ(*o.podsets[i].assignment, a);
  }
}

INSTANTIATE_TEST_SUITE_P(Kueue, TasAdmitSchedulerCases, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<SchedulerCase>& info) {
                           std::string name;
                           for (const char ch : info.param.dir) {
                             name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           }
                           return name;
                         });

// The Workload waits: `admit` says so in its table and JSON.
TEST(TasAdmitSchedulerOutput, WaitingForChecksIsPrinted) {
  const std::string dir = kDir + "custom-check/";
  const AdmitOutcome o = admit({.snapshot = dir + "snapshot.yaml",
                                .workload = dir + "workload.yaml",
                                .gates = {},
                                .flavor = ""});
  EXPECT_NE(admit_table(o).find("quota reserved, waiting for admission checks custom-check "
                                "(Pending)"),
            std::string::npos)
      << admit_table(o);
  EXPECT_NE(admit_json(o).find("\"waiting_for_checks\": [\n    \"custom-check (Pending)\""),
            std::string::npos)
      << admit_json(o);
}

// Worked by hand (no upstream case has podSetUpdates): the Ready ProvisioningRequest check's
// podSetUpdates nodeSelector restricts the second pass's placement (Kueue's
// FindTopologyAssignment merges it into the PodSet before filtering nodes), and one that
// contradicts the template's nodeSelector is Kueue's merge error.
TEST(TasAdmitSchedulerHand, PodSetUpdatesRestrictTheSecondPass) {
  const std::string dir = kDir + "hand-podset-updates/";
  auto run = [&](const std::string& workload) {
    return admit(
        {.snapshot = dir + "snapshot.yaml", .workload = dir + workload, .gates = {}, .flavor = ""});
  };
  const tas::TopologyAssignment x1{.levels = {"kubernetes.io/hostname"}, .domains = {{{"x1"}, 1}}};
  const tas::TopologyAssignment x2{.levels = {"kubernetes.io/hostname"}, .domains = {{{"x2"}, 1}}};
  const AdmitOutcome plain = run("workload-no-update.yaml");
  ASSERT_TRUE(plain.admitted());
  EXPECT_EQ(*plain.podsets[0].assignment, x1);
  const AdmitOutcome updated = run("workload.yaml");
  ASSERT_TRUE(updated.admitted());
  EXPECT_EQ(*updated.podsets[0].assignment, x2);
  EXPECT_EQ(updated.quota[0].delayed, "Ready");
  const AdmitOutcome conflict = run("workload-conflict.yaml");
  EXPECT_FALSE(conflict.admitted());
  EXPECT_EQ(conflict.podsets[0].reason,
            "invalid podSetUpdate for PodSet one, error: invalid admission check PodSetUpdate: "
            "conflict for nodeSelector: conflict for key=pool, value1=a, value2=b");
}

TEST(KueueConfiguration, ReadsTransformations) {
  const KueueConfiguration c =
      read_kueue_configuration(kDir + "transformation-credits/kueue-config.yaml");
  ASSERT_EQ(c.transformations.size(), 1U);
  EXPECT_EQ(c.transformations[0].input, "cpu");
  EXPECT_FALSE(c.transformations[0].replace);
  EXPECT_EQ(c.transformations[0].outputs_milli.at("cpu_credits"), 1000);
}

TEST(KueueConfiguration, BadValueNamesFileLineColumnAndField) {
  const std::string path =
      test::temp_file("kueue-config-bad",
                      "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nresources:\n"
                      "  transformations:\n  - input: cpu\n    strategy: Keep\n");
  try {
    (void)read_kueue_configuration(path);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 6);
    EXPECT_EQ(e.where().column, 15);
    EXPECT_EQ(e.field(), "resources.transformations[0].strategy");
    EXPECT_NE(std::string(e.what()).find("expected Retain or Replace"), std::string::npos);
  }
  const std::string dup =
      test::temp_file("kueue-config-dup",
                      "kind: Configuration\nresources:\n  transformations:\n  - input: cpu\n"
                      "    outputs: {a: 1}\n  - input: cpu\n    outputs: {b: 2x}\n");
  try {
    (void)read_kueue_configuration(dup);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "resources.transformations[1].outputs.b");
    EXPECT_EQ(e.where().line, 7);
  }
}

// A bad status field of the Workload names file, line, column and field.
TEST(TasAdmitSchedulerInput, BadCheckStateIsAnInputError) {
  const std::string dir = kDir + "custom-check/";
  std::ifstream in(dir + "workload.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string from = "state: Pending";
  text.replace(text.find(from), from.size(), "state: Waiting");
  const std::string path = test::temp_file("tas-admit-workload", text);
  try {
    (void)admit({.snapshot = dir + "snapshot.yaml", .workload = path, .gates = {}, .flavor = ""});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "Workload.status.admissionChecks[0].state");
    EXPECT_EQ(e.where().file, path);
    EXPECT_GT(e.where().line, 0);
    EXPECT_NE(std::string(e.what()).find("Waiting"), std::string::npos);
  }
}

}  // namespace
}  // namespace tidesim::app
