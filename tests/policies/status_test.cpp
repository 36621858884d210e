// Status and Filter reasons: reject() builds a reason only when the cycle records reasons, and the
// scheduler records them exactly where something reads them (FitError text, explain's details).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/policies/test_cluster.hpp"
#include "tidesim/policies/scheduler.hpp"

namespace tidesim::policies {
namespace {

using testing::make_context;
using testing::make_node;
using testing::make_pod;

// Every filter call returns a Status by value: it stays no bigger than a vector, a string_view
// and the code (a std::string plugin name made it 64 bytes).
TEST(Status, StaysSmall) {
  EXPECT_LE(sizeof(Status), sizeof(std::vector<std::string>) + sizeof(std::string_view) + 8);
}

TEST(Status, RejectRecordsTheReasonWhenAsked) {
  const ClusterView c;
  const CycleContext ctx = make_context(c, true);
  const Status literal = reject(ctx, Code::kUnschedulable, "node(s) were unschedulable");
  EXPECT_EQ(literal.code, Code::kUnschedulable);
  EXPECT_EQ(literal.reasons, std::vector<std::string>{"node(s) were unschedulable"});
  EXPECT_EQ(literal.message(),
            Status::make(Code::kUnschedulable, "node(s) were unschedulable").message());
  const std::string key = "gpu";
  const Status built = reject(ctx, Code::kUnschedulableAndUnresolvable,
                              [&] { return "node(s) had untolerated taint {" + key + ": }"; });
  EXPECT_EQ(built.code, Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(built.message(), "node(s) had untolerated taint {gpu: }");
  EXPECT_FALSE(built.ok());
}

TEST(Status, RejectIsABareCodeWhenReasonsAreNotRecorded) {
  const ClusterView c;
  const CycleContext ctx = make_context(c, false);
  int built = 0;
  const Status s = reject(ctx, Code::kUnschedulable, [&] {
    ++built;
    return std::string("never");
  });
  EXPECT_EQ(s.code, Code::kUnschedulable);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.reasons.empty());
  EXPECT_EQ(s.message(), "");
  EXPECT_EQ(built, 0);
  EXPECT_TRUE(reject(ctx, Code::kUnschedulable, "literal").reasons.empty());
}

// A filter that rejects the first node with reject() and notes whether each call recorded reasons.
class ReasonProbe final : public FilterPlugin {
 public:
  explicit ReasonProbe(std::vector<bool>& seen) : seen_(seen) {}
  std::string_view name() const override { return "ReasonProbe"; }
  Status filter(CycleContext& ctx, const PodSpec&, int node_index) override {
    seen_.push_back(ctx.record_reasons);
    if (node_index == 0) {
      return reject(ctx, Code::kUnschedulable, [] { return std::string("probe says no"); });
    }
    return Status::success();
  }

 private:
  std::vector<bool>& seen_;
};

std::unique_ptr<Scheduler> probe_scheduler(std::vector<bool>& seen) {
  Registry r = builtin_registry();
  r["ReasonProbe"] = plugin_without_args(
      [&seen]() -> std::unique_ptr<Plugin> { return std::make_unique<ReasonProbe>(seen); });
  const SchedulerConfig cfg =
      load_scheduler_config_string(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: probe
    plugins:
      filter:
        enabled:
          - name: ReasonProbe
)",
                                   "probe.yaml", r);
  return std::make_unique<Scheduler>(cfg, cfg.profiles.front(), 1, r);
}

ClusterView two_nodes() {
  ClusterView c;
  c.nodes.push_back(make_node("node-1", 8000, 1LL << 34, 1));
  c.nodes.push_back(make_node("node-2", 8000, 1LL << 34, 1));
  return c;
}

TEST(Status, SchedulerRecordsReasonsForFitErrorsAndDetailsOnly) {
  const ClusterView c = two_nodes();
  const auto big = make_pod("big", 1000, 1 << 30, 1);
  big->node_name = "node-1";  // NodeName rejects node-2, the probe node-1
  std::vector<bool> seen;
  auto s = probe_scheduler(seen);

  // Default: FitError text, so the probe builds its reason.
  auto r = s->schedule_one(*big, c, nullptr, TimePoint{});
  EXPECT_FALSE(r.node);
  EXPECT_EQ(r.reason,
            "0/2 nodes are available: 1 node(s) didn't match the requested node name, 1 probe "
            "says no.");
  EXPECT_EQ(seen, std::vector<bool>({true}));  // NodeName stops node-2 before the probe

  // A run's scheduling loop: nothing reads them.
  seen.clear();
  s->set_record_reasons(false);
  const auto quiet = s->schedule_one(*big, c, nullptr, TimePoint{});
  EXPECT_FALSE(quiet.node);
  EXPECT_EQ(quiet.reason, "");
  EXPECT_EQ(quiet.evaluated_nodes, r.evaluated_nodes);
  EXPECT_EQ(seen, std::vector<bool>({false}));

  // explain's details need them even then.
  seen.clear();
  s->set_record_details(true);
  const auto detailed = s->schedule_one(*big, c, nullptr, TimePoint{});
  EXPECT_EQ(seen, std::vector<bool>({true}));
  EXPECT_EQ(detailed.details.at(0).failed_plugin, "ReasonProbe");
  EXPECT_EQ(detailed.details.at(0).reasons, std::vector<std::string>{"probe says no"});
  EXPECT_EQ(detailed.details.at(1).reasons,
            std::vector<std::string>{"node(s) didn't match the requested node name"});
}

TEST(Status, VerdictOnlyChecksDoNotRecordReasons) {
  const ClusterView c = two_nodes();
  const auto pod = make_pod("p", 1000, 1 << 30, 1);
  std::vector<bool> seen;
  auto s = probe_scheduler(seen);
  // PostFilter's dry runs (FilterRunner::fits).
  EXPECT_FALSE(s->fits(*pod, c, 0));
  EXPECT_TRUE(s->fits(*pod, c, 1));
  EXPECT_EQ(seen, std::vector<bool>({false, false}));
  // A nominated node that fails its check falls back to the full Filter pass, which records.
  seen.clear();
  const auto r = s->schedule_one(*pod, c, nullptr, TimePoint{}, nullptr, 0);
  ASSERT_TRUE(r.node);
  EXPECT_EQ(*r.node, 1);
  ASSERT_GE(seen.size(), 2u);
  EXPECT_FALSE(seen.front());
  EXPECT_TRUE(seen.back());
}

// NodeResourcesFit gives the same verdicts either way, its "Insufficient <name>" reasons only when
// they are recorded.
TEST(Status, NodeResourcesFitReasonsOnlyWhenRecorded) {
  const ClusterView c = two_nodes();
  const auto greedy = make_pod("greedy", 16000, 1 << 30, 2);
  auto s = make_scheduler("default-k8s", 1);
  const auto loud = s->schedule_one(*greedy, c, nullptr, TimePoint{});
  EXPECT_FALSE(loud.node);
  EXPECT_EQ(loud.reason,
            "0/2 nodes are available: 2 Insufficient cpu, 2 Insufficient nvidia.com/gpu.");
  s->set_record_reasons(false);
  const auto quiet = s->schedule_one(*greedy, c, nullptr, TimePoint{});
  EXPECT_FALSE(quiet.node);
  EXPECT_EQ(quiet.reason, "");
  EXPECT_EQ(quiet.evaluated_nodes, loud.evaluated_nodes);
  EXPECT_EQ(quiet.feasible_nodes, 0);
}

}  // namespace
}  // namespace tidesim::policies
