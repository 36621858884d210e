#include "tidesim/policies/plugins/coscheduling.hpp"

#include <fmt/core.h>

namespace tidesim::policies {
namespace {

class Coscheduling final : public PreFilterPlugin, public PostFilterPlugin, public PermitPlugin {
 public:
  std::string_view name() const override { return "Coscheduling"; }

  // core.go PreFilter: enough sibling pods, and (minResources set) room for the whole group.
  Status pre_filter(CycleContext& ctx, const PodSpec& /*pod*/) override {
    const PodGroupStatus* g = ctx.pod_group;
    if (g == nullptr) {
      return Status::success();
    }
    if (g->members < g->min_member) {
      return Status::make(
          Code::kUnschedulableAndUnresolvable,
          fmt::format("pre-filter pod cannot find enough sibling pods, current pods number: {}, "
                      "minMember of group: {}",
                      g->members, g->min_member));
    }
    if (g->min_gpus > 0) {
      // CheckClusterResource: the nodes' free resources, with the group's own assigned pods
      // counted as free, must cover minResources.
      std::int64_t free = g->assigned_gpus;
      for (const NodeInfo& n : ctx.cluster.nodes) {
        if (!n.node.unschedulable) {
          free += std::max<std::int64_t>(0, n.node.allocatable.gpus - n.requested.gpus);
        }
      }
      if (free < g->min_gpus) {
        return Status::make(Code::kUnschedulableAndUnresolvable,
                            fmt::format("pre-filter pod cannot find enough resources for its "
                                        "PodGroup {}: needs {} nvidia.com/gpu, {} free",
                                        g->name, g->min_gpus, free));
      }
    }
    return Status::success();
  }

  // coscheduling.go PostFilter: a member that fits no node rejects the group's waiting pods
  // ("optimistic rejection"), unless minMember are assigned or at most 10 % of minMember are
  // still missing (later pods may still complete the group).
  PostFilterResult post_filter(CycleContext& ctx, const PodSpec& /*pod*/,
                               FilterRunner& /*filters*/) override {
    PostFilterResult r;
    if (const PodGroupStatus* g = ctx.pod_group) {
      const int missing = g->min_member - g->assigned;
      r.reject_waiting = missing > 0 && 10 * missing > g->min_member;
    }
    return r;
  }

  // coscheduling.go Permit: Success once minMember pods are assigned, else Wait.
  Status permit(CycleContext& ctx, const PodSpec& /*pod*/, int /*node_index*/,
                Duration& timeout) override {
    const PodGroupStatus* g = ctx.pod_group;
    if (g == nullptr || g->assigned + 1 >= g->min_member) {
      return Status::success();
    }
    timeout = g->schedule_timeout;
    return Status::make(Code::kWait, fmt::format("waiting for PodGroup {}: {} of {} assigned",
                                                 g->name, g->assigned + 1, g->min_member));
  }
};

}  // namespace

std::unique_ptr<Plugin> make_coscheduling() {
  return std::make_unique<Coscheduling>();
}

}  // namespace tidesim::policies
