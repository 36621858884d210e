#include "tidesim/policies/plugins/gang_scheduling.hpp"

namespace tidesim::policies {
namespace {

class GangScheduling final : public PreFilterPlugin, public PostFilterPlugin, public PermitPlugin {
 public:
  explicit GangScheduling(GangSchedulingArgs args) : args_(args) {}
  std::string_view name() const override { return "GangScheduling"; }
  bool pod_group_cycle() const override { return args_.pod_group_scheduling_cycle; }

  // gangscheduling.go PreEnqueue: the quorum of pods must exist before any is scheduled.
  Status pre_filter(CycleContext& ctx, const PodSpec& /*pod*/) override {
    const PodGroupStatus* g = ctx.pod_group;
    if (g == nullptr || g->members >= g->min_member) {
      return Status::success();
    }
    return Status::make(Code::kUnschedulableAndUnresolvable,
                        "waiting for minCount pods from a gang to appear in scheduling queue");
  }

  // No PostFilter upstream: the waiting siblings stay until the group's deadline.
  PostFilterResult post_filter(CycleContext& /*ctx*/, const PodSpec& /*pod*/,
                               FilterRunner& /*filters*/) override {
    return {};
  }

  // gangscheduling.go Permit: allow once the assumed or assigned pods (this one included) reach
  // minCount; otherwise wait until the group's deadline.
  Status permit(CycleContext& ctx, const PodSpec& /*pod*/, int /*node_index*/,
                Duration& timeout) override {
    const PodGroupStatus* g = ctx.pod_group;
    if (g == nullptr || g->assigned + 1 >= g->min_member) {
      return Status::success();
    }
    timeout = g->schedule_timeout;
    return Status::make(Code::kWait,
                        "waiting for minCount pods from a gang to be waiting on permit");
  }

 private:
  GangSchedulingArgs args_;
};

}  // namespace

GangSchedulingArgs parse_gang_scheduling_args(const PluginArgs& args) {
  Fields f = args_fields(args);
  GangSchedulingArgs a;
  a.pod_group_scheduling_cycle = f.boolean("podGroupSchedulingCycle", false);
  f.finish();
  return a;
}

std::unique_ptr<Plugin> make_gang_scheduling(const GangSchedulingArgs& args) {
  return std::make_unique<GangScheduling>(args);
}

}  // namespace tidesim::policies
