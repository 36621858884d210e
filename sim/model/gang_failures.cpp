#include "tidesim/sim/model/gang_failures.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "tidesim/sim/model/cluster.hpp"
#include "tidesim/sim/model/fabric_network.hpp"
#include "tidesim/topologies/fabric.hpp"
#include "tidesim/workloads/llm_job.hpp"

namespace tidesim {
namespace {

// Bytes per parameter of a mixed-precision Adam checkpoint: the 16-bit weights (2) and the
// optimizer states, an FP32 master copy and the two moments (12); the gradients are not saved
// (Rajbhandari et al., "ZeRO", SC 2020, section 3.1: 2 + 2 + 12 bytes of model states).
constexpr double kCheckpointBytesPerParameter = 14.0;

// The distinct nodes of job j's bound pods, in pod order.
std::vector<int> gang_nodes(const RunContext& run, int j) {
  std::vector<int> nodes;
  std::vector<char> seen(run.cluster.nodes().size(), 0);  // by node index
  for (const int p : run.jobs[static_cast<std::size_t>(j)].pods) {
    const int n = run.pods[static_cast<std::size_t>(p)].node;
    if (n >= 0 && seen[static_cast<std::size_t>(n)] == 0) {
      seen[static_cast<std::size_t>(n)] = 1;
      nodes.push_back(n);
    }
  }
  return nodes;
}

}  // namespace

GangFailures::GangFailures(RunContext& run, JobController& controller, Execution& execution,
                           FaultInjector& faults, const GangFailuresConfig& config,
                           std::uint64_t seed)
    : run_(run),
      controller_(controller),
      execution_(execution),
      faults_(faults),
      config_(config),
      seed_(seed) {
  for (std::size_t j = 0; j < run.jobs.size(); ++j) {
    index_.emplace(run.jobs[j].spec->name, static_cast<int>(j));
  }
  run.signals.job.connect([this](const JobEvent& e) { on_job(e); });
}

void GangFailures::start() {
  for (const InjectedGangFailure& f : config_.injected) {
    run_.sim.schedule_at(f.at, [this, f] {
      // A leaf component fails the node's leaf: every node under it.
      const bool leaf =
          f.component >= 0 && config_.components[static_cast<std::size_t>(f.component)].per ==
                                  FailureComponent::Per::kLeaf;
      const std::vector<int> lost = leaf ? leaf_members(f.node) : std::vector<int>{f.node};
      std::vector<std::pair<int, std::vector<int>>> hit;  // running gangs and their lost nodes
      for (const auto& [j, life] : lives_) {
        std::vector<int> mine;
        for (const int n : gang_nodes(run_, j)) {
          if (std::find(lost.begin(), lost.end(), n) != lost.end()) {
            mine.push_back(n);
          }
        }
        if (life.running && !mine.empty()) {
          hit.emplace_back(j, std::move(mine));
        }
      }
      for (const auto& [j, mine] : hit) {
        fail(j, f.component, mine);
      }
      take_out(lost, f.component);
    });
  }
}

std::vector<int> GangFailures::leaf_members(int n) const {
  const FabricNetwork* fabric = run_.cluster.fabric();
  if (!fabric) {
    return {n};  // without a fabric each node is its own leaf
  }
  const int leaf = fabric_domain(fabric->fabric(), 0, n);
  std::vector<int> members;
  for (int m = 0; m < static_cast<int>(run_.cluster.nodes().size()); ++m) {
    if (fabric_domain(fabric->fabric(), 0, m) == leaf) {
      members.push_back(m);
    }
  }
  return members;
}

void GangFailures::take_out(const std::vector<int>& nodes, int component) {
  if (component < 0) {
    return;
  }
  const Duration repair = config_.components[static_cast<std::size_t>(component)].repair;
  if (repair <= Duration::zero()) {
    return;
  }
  for (const int n : nodes) {
    faults_.take_down(n, repair, InterruptCause::kNodeFailure);
  }
}

void GangFailures::on_job(const JobEvent& e) {
  const auto it = index_.find(e.job);
  if (it == index_.end()) {
    return;
  }
  const int j = it->second;
  switch (e.kind) {
    case JobEventKind::kStarted:
      if (e.gpus > 0) {
        on_start(j);
      }
      return;
    case JobEventKind::kSucceeded:
    case JobEventKind::kFailed:
      close(j);
      return;
    case JobEventKind::kEvicted:
    case JobEventKind::kOomKilled:
      break;
    default:
      return;
  }
  const auto life = lives_.find(j);
  if (acting_ || life == lives_.end() || !life->second.running) {
    return;
  }
  // Stopped by another part (a preemption, a node failure of `faults:`): the gang's checkpoint
  // policy says what it keeps; no component is counted.
  Life& l = life->second;
  const AttemptTimes a = end_segment(l);
  l.acc.productive += a.kept;
  l.acc.lost_work += a.compute - a.kept;
  execution_.commit_share(j, l.from_steps, a.compute > 0 ? a.kept / a.compute : 0.0,
                          run_.sim.now());
  l.down = Down::kOther;
  l.down_since = run_.sim.now();
}

void GangFailures::on_start(int j) {
  Job& job = run_.jobs[static_cast<std::size_t>(j)];
  auto it = lives_.find(j);
  if (it == lives_.end()) {
    it = lives_.try_emplace(j, job.spec->name, seed_).first;
    it->second.first_start = run_.sim.now();
    it->second.acc.by_component.assign(config_.components.size(), 0);
  }
  Life& life = it->second;
  end_downtime(life);
  life.running = true;
  life.segment_start = run_.sim.now();
  life.from_steps = execution_.progress(j);
  life.shape = shape_of(j, total_gpus(job));
  life.cp = checkpoint_times(config_, life.shape);
  // Blocking checkpoints stall the gang: it computes interval / (interval + stall) of the time
  // it runs (Execution::update_rate, which runs after this event, reads the share).
  job.compute_share = std::isfinite(life.cp.interval) && life.cp.stall > 0.0
                          ? life.cp.interval / (life.cp.interval + life.cp.stall)
                          : 1.0;
  schedule_next(j, life);
}

void GangFailures::schedule_next(int j, Life& life) {
  if (!config_.random) {
    return;
  }
  const std::optional<GangDraw> d = random_gang_draws(config_, life.shape, life.rng)();
  if (!d || !std::isfinite(d->wait) || d->wait >= to_seconds(kMaxInputDuration)) {
    return;
  }
  life.next = run_.sim.schedule_in(from_seconds(d->wait), [this, j, draw = *d] {
    const std::vector<int> nodes = gang_nodes(run_, j);
    if (nodes.empty()) {
      return;
    }
    if (draw.component < 0) {
      fail(j, draw.component, {});
      return;
    }
    const FailureComponent& c = config_.components[static_cast<std::size_t>(draw.component)];
    std::vector<int> lost;  // the gang's nodes it loses
    for (const int k : lost_nodes(c, lives_.at(j).shape, draw.node)) {
      lost.push_back(nodes[static_cast<std::size_t>(k) % nodes.size()]);
    }
    fail(j, draw.component, lost);
    // A leaf's failure takes down every node under it, the gang's or not.
    take_out(c.per == FailureComponent::Per::kLeaf ? leaf_members(lost.front()) : lost,
             draw.component);
  });
}

AttemptTimes GangFailures::end_segment(Life& life) {
  run_.sim.cancel(life.next);
  life.running = false;
  const double ran = to_seconds(run_.sim.now() - life.segment_start);
  const AttemptTimes a = attempt_times(ran, life.cp);
  life.acc.running += ran;
  life.acc.checkpoint += a.stall;
  return a;
}

void GangFailures::end_downtime(Life& life) {
  const double dt = to_seconds(run_.sim.now() - life.down_since);
  switch (life.down) {
    case Down::kNone:
      return;
    case Down::kPlanned:
      life.acc.planned_downtime += dt;
      break;
    case Down::kUnexpected: {
      const double detection = std::min(dt, to_seconds(config_.detection));
      life.acc.detection += detection;
      life.acc.restart += dt - detection;
      break;
    }
    case Down::kOther:
      life.acc.restart += dt;
      break;
  }
  life.down = Down::kNone;
}

void GangFailures::fail(int j, int component, const std::vector<int>& lost) {
  Life& life = lives_.at(j);
  if (!life.running || run_.jobs[static_cast<std::size_t>(j)].phase != JobPhase::kRunning) {
    return;
  }
  const AttemptTimes a = end_segment(life);
  life.down_since = run_.sim.now();
  const double loading = loading_seconds(config_, life.shape.checkpoint_bytes);
  acting_ = true;
  if (component < 0) {
    // Planned: a checkpoint is taken first, nothing is lost; the downtime includes the reload.
    ++life.acc.planned;
    life.acc.productive += a.compute;
    life.down = Down::kPlanned;
    execution_.commit_share(j, life.from_steps, 1.0, run_.sim.now());
    controller_.restart_in_place(j, config_.planned_downtime + from_seconds(loading));
    acting_ = false;
    return;
  }
  ++life.acc.by_component[static_cast<std::size_t>(component)];
  life.acc.productive += a.kept;
  life.acc.lost_work += a.compute - a.kept;
  life.down = Down::kUnexpected;
  // The committed checkpoint's time: the end of the last whole cycle it holds.
  const double cycles = std::isfinite(life.cp.interval) ? a.kept / life.cp.interval : 0.0;
  execution_.commit_share(
      j, life.from_steps, a.compute > 0 ? a.kept / a.compute : 0.0,
      life.segment_start + from_seconds(cycles * (life.cp.interval + life.cp.stall)));
  const Duration restore = config_.detection + from_seconds(loading);
  const FailureComponent& c = config_.components[static_cast<std::size_t>(component)];
  if (c.repair <= Duration::zero()) {
    controller_.restart_in_place(j, restore);
  } else {
    recover(j, life, lost, restore, c);
  }
  acting_ = false;
}

void GangFailures::recover(int j, Life& life, const std::vector<int>& lost, Duration restore,
                           const FailureComponent& c) {
  const Job& job = run_.jobs[static_cast<std::size_t>(j)];
  // The gang's lost nodes that hold its pods, and per such node its pods (indices in job.pods)
  // and their GPUs.
  std::vector<int> nodes;
  std::vector<std::vector<int>> pods_on;
  std::vector<std::int64_t> gpus_on;
  for (std::size_t k = 0; k < job.pods.size(); ++k) {
    const Pod& pod = run_.pods[static_cast<std::size_t>(job.pods[k])];
    if (std::find(lost.begin(), lost.end(), pod.node) == lost.end()) {
      continue;
    }
    const auto at = std::find(nodes.begin(), nodes.end(), pod.node);
    const std::size_t i = static_cast<std::size_t>(at - nodes.begin());
    if (at == nodes.end()) {
      nodes.push_back(pod.node);
      pods_on.emplace_back();
      gpus_on.push_back(0);
    }
    pods_on[i].push_back(static_cast<int>(k));
    gpus_on[i] += pod.spec->requests.gpus;
  }
  if (config_.on_failure == OnFailure::kReplaceNode && !nodes.empty() && recovery_ &&
      recovery_->admitted_by_tas(j)) {
    recover_tas(j, nodes, pods_on, restore);
    return;
  }
  // The nodes going down: the failed ones, or every node under the failed leaf.
  std::vector<int> skip =
      c.per == FailureComponent::Per::kLeaf && !lost.empty() ? leaf_members(lost.front()) : lost;
  std::vector<JobController::PodReplacement> moves;
  const int count = static_cast<int>(nodes.size());
  const bool spare =
      config_.on_failure == OnFailure::kSpare && life.spares_used + count <= config_.spares;
  if (count > 0 && (spare || config_.on_failure == OnFailure::kReplaceNode)) {
    // One idle node for each lost node (all its pods go there), all or none.
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const int target = idle_node(skip, nodes[i], gpus_on[i], !spare);
      if (target < 0) {
        moves.clear();
        break;
      }
      skip.push_back(target);
      for (const int k : pods_on[i]) {
        moves.push_back({k, run_.cluster.node(target).name});
      }
    }
  } else if (count > 0 && config_.on_failure == OnFailure::kRestartPartition) {
    moves = partition_pods(job, pods_on);
  }
  const Recovery how = moves.empty()                                   ? Recovery::kGang
                       : spare                                         ? Recovery::kSpare
                       : config_.on_failure == OnFailure::kReplaceNode ? Recovery::kReplaceNode
                                                                       : Recovery::kPartition;
  restore += from_seconds(recovery_overhead(config_, how));
  if (how == Recovery::kGang) {
    // No spare or rack node free for every lost node: the whole gang is rescheduled.
    controller_.interrupt(j, InterruptCause::kNodeFailure, restore);
    return;
  }
  if (how == Recovery::kSpare) {
    // The spares are in use until the nodes they replaced are repaired and become spares.
    life.spares_used += count;
    run_.sim.schedule_in(c.repair, [this, j, count] {
      if (const auto it = lives_.find(j); it != lives_.end()) {
        it->second.spares_used -= count;
      }
    });
  }
  if (how == Recovery::kPartition && recovery_) {
    // The policy that placed the partitions places the restarted ones (the volcano policy: as
    // a sub-job within the partition's networkTopology).
    std::vector<int> ks;
    for (const JobController::PodReplacement& m : moves) {
      ks.push_back(m.k);
    }
    recovery_->replan_pods(j, ks);
  }
  controller_.replace_pods(j, moves, InterruptCause::kNodeFailure, restore);
}

void GangFailures::recover_tas(int j, const std::vector<int>& nodes,
                               const std::vector<std::vector<int>>& pods_on, Duration restore) {
  // Kueue replaces one failed node (KEP-2724, "Node failures"); a second one evicts the Workload
  // (pkg/controller/tas/node_controller.go, evictWorkloadIfNeeded), and so does a replacement
  // that does not fit, under TASFailedNodeReplacementFailFast (pkg/scheduler/scheduler.go,
  // handleFailedTASReplacement).
  if (nodes.size() == 1 && recovery_->replace_node(j, run_.cluster.node(nodes.front()).name)) {
    // The new pods go through the admission layer, which restricts each to its domain.
    std::vector<JobController::PodReplacement> moves;
    for (const int k : pods_on.front()) {
      moves.push_back({k, ""});
    }
    restore += from_seconds(recovery_overhead(config_, Recovery::kReplaceNode));
    controller_.replace_pods(j, moves, InterruptCause::kNodeFailure, restore);
    return;
  }
  restore += from_seconds(recovery_overhead(config_, Recovery::kGang));
  recovery_->evict(j, InterruptCause::kNodeFailure, restore);
}

std::vector<JobController::PodReplacement> GangFailures::partition_pods(
    const Job& job, const std::vector<std::vector<int>>& lost_pods) const {
  // Volcano's job controller labels pod ix of a task with partition ix / partitionSize
  // (pkg/controllers/job/job_controller_util.go, createJobPod); RestartPartition kills the pods
  // of the failed pod's partition (job_controller_actions.go, killPods, TargetTypePartition).
  // A job's own partitionPolicy (gang.partition_policy, as the volcano policy places it) gives
  // its partitions; `partition_size` gives those of jobs without one.
  const auto& own = job.spec->gang ? job.spec->gang->partition_policy : std::nullopt;
  const int size = own ? own->partition_size : config_.partition_size;
  std::set<int> partitions;
  for (const auto& pods : lost_pods) {
    for (const int k : pods) {
      partitions.insert(k / size);
    }
  }
  std::vector<JobController::PodReplacement> moves;
  for (int k = 0; k < static_cast<int>(job.pods.size()); ++k) {
    if (partitions.count(k / size) > 0) {
      moves.push_back({k, ""});
    }
  }
  return moves;
}

int GangFailures::idle_node(const std::vector<int>& skip, int n, std::int64_t gpus,
                            bool same_rack) const {
  const FabricNetwork* fabric = run_.cluster.fabric();
  const auto rack = [fabric](int m) { return fabric ? fabric_domain(fabric->fabric(), 0, m) : 0; };
  const auto& view = run_.cluster.view().nodes;
  for (int m = 0; m < static_cast<int>(view.size()); ++m) {
    const ClusterNode& node = run_.cluster.node(m);
    const NodeInfo& info = view[static_cast<std::size_t>(m)];
    if (std::find(skip.begin(), skip.end(), m) != skip.end() || !node.gpus ||
        node.gpus->card_count() == 0 || info.node.allocatable.gpus < gpus || !info.pods.empty() ||
        info.node.unschedulable || faults_.down(m) || (same_rack && rack(m) != rack(n))) {
      continue;
    }
    return m;
  }
  return -1;
}

GangShape GangFailures::shape_of(int j, int gpus) const {
  const Job& job = run_.jobs[static_cast<std::size_t>(j)];
  GangShape s;
  s.gpus = gpus;
  const std::vector<int> nodes = gang_nodes(run_, j);
  s.nodes = static_cast<int>(nodes.size());
  const FabricNetwork* fabric = run_.cluster.fabric();
  for (const int n : nodes) {
    s.leaf_of.push_back(fabric ? fabric_domain(fabric->fabric(), 0, n) : n);
  }
  s.cluster_nodes = static_cast<int>(run_.cluster.nodes().size());
  s.spares = config_.spares;
  if (config_.checkpoint.size_bytes) {
    s.checkpoint_bytes = *config_.checkpoint.size_bytes;
  } else if (job.spec->llm) {
    s.checkpoint_bytes = job.spec->llm->model.parameters() * kCheckpointBytesPerParameter;
  }
  return s;
}

void GangFailures::close(int j) {
  const auto it = lives_.find(j);
  if (it == lives_.end()) {
    return;
  }
  Life& life = it->second;
  if (life.running) {
    life.acc.productive += end_segment(life).compute;  // the work goes on (or is done)
  }
  end_downtime(life);
  GangLifeRecord r;
  r.at = run_.sim.now();
  r.job = life.job;
  r.gpus = life.shape.gpus;
  r.wall = to_seconds(run_.sim.now() - life.first_start);
  r.productive = life.acc.productive;
  r.lost_work = life.acc.lost_work;
  r.detection = life.acc.detection;
  r.restart = life.acc.restart;
  r.checkpoint = life.acc.checkpoint;
  r.planned_downtime = life.acc.planned_downtime;
  r.running = life.acc.running;
  r.planned = life.acc.planned;
  for (std::size_t c = 0; c < config_.components.size(); ++c) {
    r.unexpected.emplace_back(config_.components[c].name, life.acc.by_component[c]);
  }
  lives_.erase(it);
  run_.signals.gang_life.emit(r);
}

void GangFailures::close_all() {
  while (!lives_.empty()) {
    close(lives_.begin()->first);
  }
}

std::unique_ptr<GangFailures> make_gang_failures(RunContext& run, JobController& controller,
                                                 Execution& execution, FaultInjector* faults,
                                                 const GangFailuresConfig& config,
                                                 std::uint64_t seed) {
  if (!config.enabled || faults == nullptr) {
    return nullptr;
  }
  return std::make_unique<GangFailures>(run, controller, execution, *faults, config, seed);
}

}  // namespace tidesim
