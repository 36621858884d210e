// An all-or-nothing gang's cycles, read from a replay's signals (explain_gang.hpp).
#include "tidesim/sim/experiments/explain_gang.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>

#include "tidesim/sim/admission/quota.hpp"
#include "tidesim/sim/experiments/replay.hpp"

namespace tidesim {
namespace {

// The replica and attempt of a pod named "<job>-<replica>-<attempt>" of job `job`; nullopt when
// the name is not one of its pods'.
std::optional<std::pair<int, int>> replica_attempt(const std::string& job, const std::string& pod) {
  if (pod.size() <= job.size() + 1 || pod.compare(0, job.size(), job) != 0 ||
      pod[job.size()] != '-') {
    return std::nullopt;
  }
  const std::string rest = pod.substr(job.size() + 1);
  const auto dash = rest.find('-');
  if (dash == std::string::npos) {
    return std::nullopt;
  }
  int replica = 0;
  int attempt = 0;
  const char* b = rest.data();
  const auto r1 = std::from_chars(b, b + dash, replica);
  const auto r2 = std::from_chars(b + dash + 1, b + rest.size(), attempt);
  if (r1.ec != std::errc() || r1.ptr != b + dash || r2.ec != std::errc() ||
      r2.ptr != b + rest.size()) {
    return std::nullopt;
  }
  return std::pair{replica, attempt};
}

// How many times `request` fits in `free` (no limit when nothing is requested).
std::int64_t times(std::int64_t free, std::int64_t request) {
  if (request <= 0) {
    return std::numeric_limits<std::int64_t>::max();
  }
  return free < request ? 0 : free / request;
}

std::string node_list(const std::vector<GangNodeRoom>& room) {
  std::string out;
  for (const auto& r : room) {
    out += fmt::format("{}{}: {}", out.empty() ? "" : ", ", r.node, r.members);
  }
  return out;
}

// What a failed cycle was missing, from the room the nodes had.
std::string missing_text(int members, const Resources& request,
                         const std::vector<GangNodeRoom>& room, int room_total, std::size_t tried) {
  const std::string pods = request.gpus > 0
                               ? fmt::format("{} pods of {} GPUs", members, request.gpus)
                               : fmt::format("{} pods", members);
  if (room_total >= members) {
    return fmt::format(
        "needs {}; the free resources hold {} ({}), but pod {} of {} found no node (a filter "
        "other than resources, or the placement of the pods before it)",
        pods, room_total, node_list(room), tried, members);
  }
  const std::string where =
      request.gpus > 0 ? fmt::format("nodes with {} free GPUs", request.gpus) : "nodes";
  return fmt::format("needs {}; {} found, holding {}{}: {} short", pods, where, room_total,
                     room.empty() ? "" : " (" + node_list(room) + ")", members - room_total);
}

// The observer of one gang's events in a replay.
class GangObserver {
 public:
  GangObserver(const Workload& workload, int job, TimePoint at, GangExplanation& out)
      : spec_(workload.jobs[static_cast<std::size_t>(job)]), at_(at), out_(out) {}

  void attach(RunSignals& signals, const ClusterView& view) {
    view_ = &view;
    signals.scheduling.connect([this](const SchedulingEvent& e) { on_cycle(e); });
    signals.job.connect([this](const JobEvent& e) { on_job(e); });
    signals.quota.connect([this](const QuotaEvent& e) {
      if (e.at <= at_) {
        last_quota_[e.queue] = e;
      }
    });
  }
  const std::map<std::string, QuotaEvent>& quota() const { return last_quota_; }
  /// Sets the latest attempt, since when it waited and where its members were bound.
  void finish() {
    int attempt = static_cast<int>(first_event_.size()) - 1;
    if (!out_.cycles.empty()) {
      attempt = std::max(attempt, out_.cycles.back().attempt);
    }
    out_.attempt = std::max(0, attempt);
    std::optional<TimePoint> since;
    if (static_cast<std::size_t>(out_.attempt) < first_event_.size()) {
      since = first_event_[static_cast<std::size_t>(out_.attempt)];
    }
    for (const GangCycle& c : out_.cycles) {
      if (c.attempt == out_.attempt && (!since || c.at < *since)) {
        since = c.at;
      }
    }
    out_.waiting_since = out_.attempt == 0 ? out_.submitted : since;
    for (const Bound& b : bound_) {
      if (b.attempt == out_.attempt) {
        out_.bound.emplace_back(b.pod, b.node);
        out_.bound_at = b.at;
      }
    }
  }

 private:
  void on_job(const JobEvent& e) {
    if (e.job != spec_.name || e.at > at_) {
      return;
    }
    if (e.kind == JobEventKind::kSubmitted) {
      out_.submitted = e.at;
    }
    if (first_event_.size() <= static_cast<std::size_t>(e.attempt)) {
      first_event_.resize(static_cast<std::size_t>(e.attempt) + 1);
    }
    if (!first_event_[static_cast<std::size_t>(e.attempt)]) {
      first_event_[static_cast<std::size_t>(e.attempt)] = e.at;
    }
    if (e.kind == JobEventKind::kBound) {
      bound_.push_back({e.attempt, e.pod, e.node, e.at});
    }
  }

  void on_cycle(const SchedulingEvent& e) {
    const auto ra = replica_attempt(spec_.name, e.pod);
    if (!ra || e.at > at_) {
      return;
    }
    // A gang cycle's events are emitted together, at its start time; a new cycle starts with a
    // new time or a pod the cycle already tried.
    const bool same = !out_.cycles.empty() && out_.cycles.back().at == e.at &&
                      out_.cycles.back().attempt == ra->second &&
                      std::find(out_.cycles.back().tried.begin(), out_.cycles.back().tried.end(),
                                e.pod) == out_.cycles.back().tried.end();
    if (!same) {
      GangCycle c;
      c.at = e.at;
      c.attempt = ra->second;
      out_.cycles.push_back(std::move(c));
    }
    GangCycle& c = out_.cycles.back();
    c.tried.push_back(e.pod);
    c.nodes.push_back(e.node);
    c.placed = std::all_of(c.nodes.begin(), c.nodes.end(),
                           [](const std::string& n) { return !n.empty(); }) &&
               static_cast<int>(c.tried.size()) == out_.members;
    if (!e.node.empty()) {
      return;
    }
    // A failed cycle left the view as it found it: its room is the nodes' as the cycle saw them.
    c.room.clear();
    c.room_total = 0;
    for (const NodeInfo& n : view_->nodes) {
      const int m = members_fitting(n, out_.member_request, spec_.pod_template.node_selector);
      if (m > 0) {
        c.room.push_back(GangNodeRoom{n.node.name, n.node.allocatable.gpus - n.requested.gpus, m});
        c.room_total += m;
      }
    }
    c.missing =
        missing_text(out_.members, out_.member_request, c.room, c.room_total, c.tried.size());
  }

  const workloads::JobSpec& spec_;
  TimePoint at_;
  GangExplanation& out_;
  const ClusterView* view_ = nullptr;
  std::map<std::string, QuotaEvent> last_quota_;
  // The time of each attempt's first job event, and the binds of every attempt.
  std::vector<std::optional<TimePoint>> first_event_;
  struct Bound {
    int attempt = 0;
    std::string pod;
    std::string node;
    TimePoint at{};
  };
  std::vector<Bound> bound_;
};

// Why admission holds `spec` at the end of the replay (it released none of its latest attempt's
// pods): the policy, and the job's ClusterQueue with its admitted GPUs.
std::string admission_reason(const AdmissionConfig& admission, const workloads::JobSpec& spec,
                             const std::map<std::string, QuotaEvent>& quota) {
  const std::int64_t gpus =
      std::int64_t{std::max(1, spec.replicas)} * spec.pod_template.requests.gpus;
  std::string reason =
      fmt::format("not admitted: the job-level policy '{}' holds its pods (the job asks {} GPUs)",
                  admission.policy, gpus);
  if (!admission.quotas) {
    return reason;
  }
  const auto label = spec.pod_template.labels.find(kQueueNameLabel);
  const auto local = label == spec.pod_template.labels.end()
                         ? admission.quotas->local_queues.end()
                         : admission.quotas->local_queues.find(label->second);
  if (local == admission.quotas->local_queues.end()) {
    return reason + "; it names no LocalQueue, so no quota applies";
  }
  const ClusterQueueConfig& queue =
      admission.quotas->cluster_queues[static_cast<std::size_t>(local->second)];
  const auto it = quota.find(queue.name);
  const std::int64_t used = it == quota.end() ? 0 : it->second.usage_gpus;
  const std::int64_t nominal =
      it == quota.end() ? nominal_of(*admission.quotas, local->second, 0) : it->second.nominal_gpus;
  return reason + fmt::format("; its ClusterQueue '{}' has {} of its {} nominal GPUs admitted{}",
                              queue.name, used, nominal,
                              queue.cohort.empty() ? "" : " (cohort '" + queue.cohort + "')");
}

}  // namespace

int members_fitting(const NodeInfo& node, const Resources& request,
                    const std::map<std::string, std::string>& node_selector) {
  if (node.node.unschedulable) {
    return 0;
  }
  for (const auto& [key, value] : node_selector) {
    const auto it = node.node.labels.find(key);
    if (it == node.node.labels.end() || it->second != value) {
      return 0;
    }
  }
  const Resources& a = node.node.allocatable;
  const Resources& r = node.requested;
  std::int64_t n = std::min({times(a.gpus - r.gpus, request.gpus),
                             times(a.cpu_milli - r.cpu_milli, request.cpu_milli),
                             times(a.memory_bytes - r.memory_bytes, request.memory_bytes)});
  if (n == std::numeric_limits<std::int64_t>::max()) {
    n = 1'000'000;  // a pod that requests nothing fits any number of times
  }
  return static_cast<int>(std::min<std::int64_t>(n, 1'000'000));
}

std::optional<int> all_or_nothing_job(const Workload& workload, const std::string& pod) {
  for (std::size_t j = 0; j < workload.jobs.size(); ++j) {
    const workloads::JobSpec& spec = workload.jobs[j];
    if (spec.gang && spec.gang->mode == workloads::GangMode::kAllOrNothing) {
      if (const auto ra = replica_attempt(spec.name, pod); ra && ra->first < spec.replicas) {
        return static_cast<int>(j);
      }
    }
  }
  return std::nullopt;
}

std::optional<GangExplanation> explain_gang(const Scenario& scenario, const Workload& workload,
                                            const PolicyConfig& policy, std::uint64_t seed,
                                            TimePoint at, const std::string& pod) {
  const std::optional<int> job = all_or_nothing_job(workload, pod);
  if (!job) {
    return std::nullopt;
  }
  const workloads::JobSpec& spec = workload.jobs[static_cast<std::size_t>(*job)];
  GangExplanation out;
  out.job = spec.name;
  out.pod = pod;
  out.members = std::max(1, spec.replicas);
  out.member_request = spec.pod_template.requests;
  GangObserver observer(workload, *job, at, out);
  replay_observed(scenario, workload, policy, seed, at,
                  [&](RunSignals& s, const ClusterView& v) { observer.attach(s, v); });
  observer.finish();
  if (!out.submitted) {
    return std::nullopt;
  }
  const bool attempt_cycled = !out.cycles.empty() && out.cycles.back().attempt == out.attempt;
  if (policy.admission && !attempt_cycled && out.bound.empty()) {
    out.admission = admission_reason(*policy.admission, spec, observer.quota());
  }
  return out;
}

}  // namespace tidesim
