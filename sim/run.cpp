#include "sim/run.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <set>

#include <fmt/core.h>

#include "policies/queue.hpp"
#include "policies/scheduler.hpp"
#include "sim/api/cluster_view.hpp"
#include "sim/engine/fluid.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/telemetry_pipeline.hpp"
#include "topologies/gpu_models.hpp"
#include "topologies/gpu_node.hpp"
#include "topologies/presets.hpp"
#include "topologies/storage.hpp"
#include "workloads/catalogue.hpp"
#include "workloads/lifecycle.hpp"
#include "workloads/memory.hpp"
#include "workloads/step_time.hpp"
#include "workloads/workload_spec.hpp"

namespace tidesim {
namespace {

namespace fs = std::filesystem;
using workloads::JobSpec;
using workloads::ModelProfile;
using workloads::StepConditions;
using workloads::StepTime;

// A preset name, or a file of `nvidia-smi topo -m` output relative to the scenario's folder.
Topology group_topology(const NodeGroup& g, const std::string& folder) {
  // A node without GPUs has no model to take link figures from: the defaults (PCIe Gen4).
  TopologyParams params = g.gpu_model.empty() ? TopologyParams{} : params_for_gpu(g.gpu_model);
  if (is_preset(g.topology)) {
    return load_topology(g.topology, params);
  }
  const fs::path file = fs::path(folder) / g.topology;
  if (!fs::exists(file)) {
    throw InputError(
        g.where, "topology",
        "'" + g.topology + "' is neither a preset nor a file (looked at " + file.string() + ")");
  }
  return load_topology(file.string(), params);
}

// The extended resource that carries fractional GPU shares to the scheduler: a pod asking for
// gpu_milli requests that many. A node in fractional mode advertises exactly what still fits
// (sync_fractional): its free share is the most any one card has left, and its free whole GPUs
// are the cards nobody holds a share of, so the scheduler's fit test is the device's.
constexpr const char* kGpuMilliResource = "tidesim.io/gpu-milli";

// The GPU model whose uncontended speed converts traced run times to steps: the first node
// group that has one ("" when no node has GPUs).
std::string reference_gpu(const Scenario& scenario) {
  for (const auto& g : scenario.cluster.groups) {
    if (!g.gpu_model.empty()) {
      return g.gpu_model;
    }
  }
  return "";
}

SharingMode sharing_mode(const std::string& s) {
  if (s == "time-slicing") {
    return SharingMode::kTimeSlicing;
  }
  if (s == "fractional") {
    return SharingMode::kFractional;
  }
  return SharingMode::kExclusive;
}

// The distinct cards of a pod with how many of its workers (device-plugin units) sit on each:
// under time-slicing two units of one pod can be two replicas of the same card.
std::map<int, int> card_counts(const std::vector<int>& cards) {
  std::map<int, int> out;
  for (const int c : cards) {
    ++out[c];
  }
  return out;
}

std::vector<int> distinct_cards(const std::vector<int>& cards) {
  std::vector<int> out;
  for (const auto& [card, count] : card_counts(cards)) {
    out.push_back(card);
  }
  return out;
}

class Run {
 public:
  Run(const Scenario& scenario, const Workload& workload, const PolicyConfig& policy,
      std::uint64_t seed, RunSignals& signals)
      : scenario_(scenario),
        catalogue_(workload.catalogue),
        signals_(signals),
        sim_(seed),
        reference_gpu_(reference_gpu(scenario)) {
    build_cluster();
    scheduler_ = policies::make_scheduler(policy.scheduler, seed);
    for (const auto& spec : workload.jobs) {
      Job j;
      j.spec = &spec;
      j.nvlink = workloads::nvlink_required(spec.pod_template);
      jobs_.push_back(std::move(j));
    }
    std::vector<std::string> names;
    for (const auto& n : nodes_) {
      names.push_back(n.name);
    }
    telemetry_ = std::make_unique<TelemetryPipeline>(
        sim_, scenario.telemetry, names, [this](int node) { return agent_sample(node); });
  }

  RunSummary execute() {
    unfinished_ = static_cast<int>(jobs_.size());
    for (std::size_t i = 0; i < jobs_.size(); ++i) {
      sim_.schedule_at(jobs_[i].spec->submit_time, [this, i] { submit(static_cast<int>(i)); });
    }
    telemetry_->start();
    sim_.schedule_in(Duration::zero(), [this] { sample(); });
    if (unfinished_ == 0) {
      sim_.stop();
    }
    sim_.run(TimePoint(scenario_.run.until));
    telemetry_->stop();
    // Close the books: bring running jobs' progress and rates to the end time.
    RunSummary s;
    s.end = sim_.now();
    for (auto& j : jobs_) {
      if (j.state == JobState::kRunning) {
        advance(j);
        emit_rate(j, false);
      }
    }
    sample_now();
    s.events = sim_.dispatched();
    s.jobs = static_cast<int>(jobs_.size());
    for (const auto& j : jobs_) {
      s.succeeded += j.state == JobState::kSucceeded;
      s.failed += j.state == JobState::kFailed;
      s.never_started += !j.ever_started;
    }
    s.unfinished = s.jobs - s.succeeded - s.failed;
    return s;
  }

 private:
  enum class JobState { kWaiting, kPending, kRunning, kBackoff, kSucceeded, kFailed };

  struct Node {
    std::string name;
    const NodeGroup* group = nullptr;
    std::shared_ptr<const Topology> topology;  // shared by the group's nodes
    bool has_nvlink = false;
    std::unique_ptr<GpuNodeState> gpus;
    std::int64_t card_memory = 0;
    int device = 0;      // storage device index
    std::set<int> jobs;  // running jobs with a pod here
    int nvlink_pods = 0;
    ResourceId uplink{};
    std::map<int, ResourceId> links;  // by directed link id
  };

  struct Device {
    StorageDevice device;
    ResourceId resource{};
  };

  struct Pod {
    std::shared_ptr<PodSpec> spec;
    int job = 0;
    int node = -1;
    std::vector<int> cards;
    std::uint64_t process = 0;
    bool alive = true;
    FlowId input{};
    bool has_input = false;
    bool running = false;  // counted in its node's jobs and NVLink tasks
  };

  struct Job {
    const JobSpec* spec = nullptr;
    JobState state = JobState::kWaiting;
    bool nvlink = false;
    bool ever_started = false;
    std::vector<int> pods;
    int bound = 0;
    int attempt = 0;
    int failures = 0;
    double done = 0.0;
    double checkpointed = 0.0;
    double rate = 0.0;  // steps per second
    TimePoint last_update{};
    TimePoint started{};
    EventId finish_event;
    EventId memory_event;
    EventId checkpoint_event;
    std::optional<ModelProfile> profile;
    std::optional<FlowId> ring;
    double ideal_ring = 0.0;
    StepTime step{};
  };

  void build_cluster() {
    if (scenario_.cluster.shared_storage) {
      const auto& s = *scenario_.cluster.shared_storage;
      devices_.push_back(Device{StorageDevice{s.name, s.bandwidth, s.latency, true},
                                fluid_.add_resource(s.bandwidth)});
    }
    // Groups with the same topology and GPU model share one Topology (a trace gives one group
    // per node).
    std::map<std::pair<std::string, std::string>, std::shared_ptr<const Topology>> topologies;
    for (const auto& g : scenario_.cluster.groups) {
      auto& topo = topologies[{g.topology, g.gpu_model}];
      if (!topo) {
        topo = std::make_shared<const Topology>(group_topology(g, scenario_.folder));
      }
      if (g.gpus >= 0 && topo->gpu_count() != g.gpus) {
        throw InputError(g.where, "topology",
                         fmt::format("topology '{}' has {} GPUs but node '{}' has {}", g.topology,
                                     topo->gpu_count(), g.name, g.gpus));
      }
      if (topo->gpu_count() > 0 && g.gpu_model.empty()) {
        throw InputError(g.where, "gpu", "a node with GPUs needs a GPU model");
      }
      // A node without GPUs keeps a nominal 1-byte card size (it has no card to fill).
      const std::int64_t memory = g.gpu_memory > 0      ? g.gpu_memory
                                  : g.gpu_model.empty() ? 1
                                                        : gpu_model(g.gpu_model).memory_bytes;
      for (int i = 1; i <= g.count; ++i) {
        Node n;
        n.name = node_name(g, i);
        n.group = &g;
        n.topology = topo;
        n.has_nvlink = !topo->nvlink_groups().empty();
        n.card_memory = memory;
        n.gpus = std::make_unique<GpuNodeState>(*n.topology, memory,
                                                GpuSharing{sharing_mode(g.sharing), g.replicas});
        if (scenario_.cluster.shared_storage) {
          n.device = 0;
        } else {
          n.device = static_cast<int>(devices_.size());
          devices_.push_back(
              Device{StorageDevice{g.storage.name, g.storage.bandwidth, g.storage.latency, false},
                     fluid_.add_resource(g.storage.bandwidth)});
        }
        n.uplink = fluid_.add_resource(g.uplink_bandwidth);
        NodeInfo info;
        info.node.name = n.name;
        info.node.labels = g.labels;
        info.node.labels["kubernetes.io/hostname"] = n.name;
        if (topo->gpu_count() > 0) {
          info.node.labels["nvidia.com/gpu.present"] = "true";
          info.node.labels["nvidia.com/gpu.product"] = g.gpu_model;
        }
        info.node.taints = g.taints;
        info.node.unschedulable = g.unschedulable;
        info.node.allocatable.cpu_milli = g.cpu_milli;
        info.node.allocatable.memory_bytes = g.memory_bytes;
        info.node.allocatable.gpus = n.gpus->schedulable_units();
        view_.nodes.push_back(std::move(info));
        nodes_.push_back(std::move(n));
        sync_fractional(static_cast<int>(nodes_.size()) - 1);
      }
    }
  }

  // Fractional nodes: sets the allocatable whole GPUs and GPU share so that allocatable minus
  // requested is what the device can still place (free cards; the largest share left on a card).
  void sync_fractional(int n) {
    const Node& node = nodes_[n];
    if (node.gpus->sharing().mode != SharingMode::kFractional || node.gpus->card_count() == 0) {
      return;
    }
    int free_cards = 0;
    std::int64_t most_left = 0;
    for (int c = 0; c < node.gpus->card_count(); ++c) {
      double used = 0.0;
      for (const std::uint64_t p : node.gpus->occupants(c)) {
        used += node.gpus->compute_share(p, c);
      }
      const auto used_milli = static_cast<std::int64_t>(std::llround(used * 1000.0));
      free_cards += used_milli == 0;
      most_left = std::max<std::int64_t>(most_left, 1000 - used_milli);
    }
    NodeInfo& info = view_.nodes[n];
    info.node.allocatable.gpus = info.requested.gpus + free_cards;
    const auto it = info.requested.extended.find(kGpuMilliResource);
    const std::int64_t requested = it == info.requested.extended.end() ? 0 : it->second;
    info.node.allocatable.extended[kGpuMilliResource] = requested + most_left;
  }

  // ---- arrivals, scheduling, binding ----

  void submit(int j) {
    Job& job = jobs_[j];
    job.state = JobState::kPending;
    signals_.job.emit(JobEvent{sim_.now(), JobEventKind::kSubmitted, job.spec->name, "", "",
                               total_gpus(job), job.nvlink});
    create_pods(j);
  }

  int total_gpus(const Job& job) const {
    return static_cast<int>(job.spec->pod_template.requests.gpus) * job.spec->replicas;
  }

  void create_pods(int j) {
    Job& job = jobs_[j];
    job.pods.clear();
    job.bound = 0;
    for (int r = 0; r < job.spec->replicas; ++r) {
      Pod p;
      auto spec = std::make_shared<PodSpec>(job.spec->pod_template);
      spec->name = fmt::format("{}-{}-{}", job.spec->name, r, job.attempt);
      if (spec->requests.gpu_milli > 0 && spec->requests.gpu_milli < 1000) {
        spec->requests.extended[kGpuMilliResource] = spec->requests.gpu_milli;
      }
      p.spec = spec;
      p.job = j;
      pod_index_[spec->name] = static_cast<int>(pods_.size());
      job.pods.push_back(static_cast<int>(pods_.size()));
      pods_.push_back(std::move(p));
      queue_.add(spec, sim_.now());
    }
    kick();
  }

  void kick() {
    if (cycle_pending_) {
      return;
    }
    cycle_pending_ = true;
    sim_.schedule_at(std::max(sim_.now(), busy_until_), [this] { cycle(); });
  }

  void cycle() {
    cycle_pending_ = false;
    const auto popped = queue_.pop(sim_.now());
    if (!popped) {
      if (const auto next = queue_.next_ready_time(sim_.now())) {
        cycle_pending_ = true;
        sim_.schedule_at(std::max(*next, sim_.now()), [this] { cycle(); });
      }
      return;
    }
    const auto it = pod_index_.find((*popped)->name);
    if (it == pod_index_.end() || !pods_[it->second].alive) {
      kick();  // a pod of a killed attempt: drop it
      return;
    }
    const int p = it->second;
    const policies::ScheduleResult r =
        scheduler_->schedule_one(*pods_[p].spec, view_, telemetry_.get(), sim_.now());
    busy_until_ = sim_.now() + scenario_.run.cycle_time + r.latency;
    SchedulingEvent ev{sim_.now(), pods_[p].spec->name, "", r.fallback_stage};
    bool placed = false;
    if (r.node) {
      placed = bind(p, *r.node);
      if (placed) {
        ev.node = nodes_[*r.node].name;
      }
    }
    signals_.scheduling.emit(ev);
    if (placed) {
      queue_.done(*pods_[p].spec);
    } else if (r.error) {
      queue_.add_backoff(pods_[p].spec, sim_.now());
    } else {
      queue_.add_unschedulable(pods_[p].spec, sim_.now());
    }
    kick();
  }

  bool bind(int p, int n) {
    Pod& pod = pods_[p];
    Node& node = nodes_[n];
    const auto& req = pod.spec->requests;
    pod.process = ++next_process_;
    // A pod without GPUs takes no card (a trace's CPU-only pod); a GPU-sharing pod asks for one
    // unit with its share.
    const bool wants_gpu = req.gpus > 0 || req.gpu_milli > 0;
    const auto cards =
        wants_gpu ? node.gpus->allocate(pod.process, std::max(1, static_cast<int>(req.gpus)),
                                        static_cast<int>(req.gpu_milli))
                  : std::optional<std::vector<int>>(std::vector<int>{});
    if (!cards) {
      return false;  // the device plugin cannot satisfy what the scheduler counted
    }
    if (cards) {
      pod.cards = *cards;
    }
    pod.node = n;
    view_.nodes[n].add_pod(pod.spec, sim_.now());
    sync_fractional(n);
    Job& job = jobs_[pod.job];
    ++job.bound;
    signals_.job.emit(JobEvent{sim_.now(), JobEventKind::kBound, job.spec->name, pod.spec->name,
                               node.name, total_gpus(job), job.nvlink});
    if (job.bound == static_cast<int>(job.pods.size())) {
      const int j = pod.job;
      const int attempt = job.attempt;
      sim_.schedule_in(scenario_.run.pod_startup, [this, j, attempt] {
        if (jobs_[j].attempt == attempt && jobs_[j].state == JobState::kPending) {
          start(j);
        }
      });
    }
    return true;
  }

  // ---- running jobs ----

  void start(int j) {
    Job& job = jobs_[j];
    job.state = JobState::kRunning;
    job.ever_started = true;
    job.started = sim_.now();
    job.last_update = sim_.now();
    const Node& first = nodes_[pods_[job.pods.front()].node];
    if (!job.profile) {
      // A pod without GPUs (a trace's CPU-only pod) runs at the reference GPU's uncontended
      // speed, so its traced run time is kept (steps were converted at that speed).
      const bool gpu_job =
          job.spec->pod_template.requests.gpus > 0 || job.spec->pod_template.requests.gpu_milli > 0;
      const std::string& gpu =
          gpu_job && !first.group->gpu_model.empty() ? first.group->gpu_model : reference_gpu_;
      job.profile =
          catalogue_.profile(job.spec->model, job.spec->batch_size, job.spec->precision, gpu);
    }
    std::set<int> touched;
    for (const int p : job.pods) {
      Pod& pod = pods_[p];
      Node& node = nodes_[pod.node];
      node.jobs.insert(j);
      node.nvlink_pods += job.nvlink;
      pod.running = true;
      touched.insert(pod.node);
      // Input reads: a flow on the node's data device, bounded by what the pod would read at
      // full compute speed.
      const double demand = static_cast<double>(job.profile->input_bytes) /
                            std::max(job.profile->compute_seconds, 1e-9);
      if (demand > 0) {
        pod.input = fluid_.add_flow({devices_[node.device].resource}, demand);
        pod.has_input = true;
        flow_owner_[static_cast<int>(pod.input)] = j;
      }
    }
    add_ring(job);
    if (job.ring) {
      flow_owner_[static_cast<int>(*job.ring)] = j;
    }
    signals_.job.emit(JobEvent{sim_.now(), JobEventKind::kStarted, job.spec->name, "", "",
                               total_gpus(job), job.nvlink});
    job.checkpoint_event = schedule_checkpoint(j);
    if (!apply_memory(j)) {
      return;  // killed at start
    }
    refresh(touched);
  }

  // The all-reduce ring of a multi-GPU job as one fluid flow over the directed links its best
  // ring order crosses on each node (topology routes: NVLink, PCIe switches, host bridges, the
  // socket interconnect), plus each node's uplink when the job spans nodes.
  void add_ring(Job& job) {
    if (total_gpus(job) <= 1) {
      return;
    }
    std::vector<ResourceId> path;
    double ideal = std::numeric_limits<double>::infinity();
    const bool multi_node = job.pods.size() > 1;
    for (const int p : job.pods) {
      const Pod& pod = pods_[p];
      Node& node = nodes_[pod.node];
      const std::vector<int> cards = distinct_cards(pod.cards);
      if (cards.size() > 1) {
        const std::vector<int> order = node.topology->best_ring(cards);
        for (const int l : node.topology->ring_links(order)) {
          path.push_back(link(node, l));
        }
      }
      if (multi_node) {
        path.push_back(node.uplink);
        ideal = std::min(ideal, fluid_.capacity(node.uplink));
      }
    }
    // Ideal: the same GPUs per pod on the best set of an idle node anywhere in the cluster (the
    // NVLink contention metric's reference: a placement without NVLink counts as contended when
    // the cluster has NVLink nodes).
    const int per_pod = static_cast<int>(job.spec->pod_template.requests.gpus);
    if (per_pod > 1) {
      ideal = std::min(ideal, best_ring_bandwidth(per_pod));
    }
    job.ideal_ring = std::isfinite(ideal) ? ideal : 0.0;
    if (!path.empty()) {
      job.ring = fluid_.add_flow(path);
    }
  }

  // The best ring bandwidth of `k` GPUs on an idle node of any group (0 when none has k GPUs).
  double best_ring_bandwidth(int k) {
    const auto it = best_ring_bw_.find(k);
    if (it != best_ring_bw_.end()) {
      return it->second;
    }
    double best = 0.0;
    const Topology* seen = nullptr;
    for (const auto& n : nodes_) {
      if (n.topology.get() == seen) {
        continue;  // nodes of one group share their topology
      }
      seen = n.topology.get();
      const std::vector<bool> all_free(static_cast<std::size_t>(seen->gpu_count()), true);
      if (const auto set = seen->best_free_set(k, all_free)) {
        best = std::max(best, seen->ring_bandwidth(*set));
      }
    }
    best_ring_bw_.emplace(k, best);
    return best;
  }

  // The fluid resource of a node's directed link, created on first use.
  ResourceId link(Node& node, int directed_link) {
    const auto it = node.links.find(directed_link);
    if (it != node.links.end()) {
      return it->second;
    }
    const ResourceId r = fluid_.add_resource(node.topology->directed_link_bandwidth(directed_link));
    node.links.emplace(directed_link, r);
    return r;
  }

  EventId schedule_checkpoint(int j) {
    const Duration every = jobs_[j].spec->checkpoint_interval;
    if (every <= Duration::zero()) {
      return {};
    }
    return sim_.schedule_in(every, [this, j] {
      Job& job = jobs_[j];
      if (job.state != JobState::kRunning) {
        return;
      }
      advance(job);
      job.checkpointed = job.done;
      job.checkpoint_event = schedule_checkpoint(j);
    });
  }

  // Sets every card's memory for job j at its current age; kills it on OOM. False if killed.
  bool apply_memory(int j) {
    Job& job = jobs_[j];
    const Duration age = sim_.now() - job.started;
    const std::int64_t bytes = workloads::memory_at(*job.profile, age);
    for (const int p : job.pods) {
      const Pod& pod = pods_[p];
      Node& node = nodes_[pod.node];
      // Each worker (one per unit) holds `bytes` on its card.
      for (const auto& [card, workers] : card_counts(pod.cards)) {
        if (node.gpus->set_memory(pod.process, card, bytes * workers)) {
          signals_.job.emit(JobEvent{sim_.now(), JobEventKind::kOomKilled, job.spec->name,
                                     pod.spec->name, node.name, total_gpus(job), job.nvlink});
          kill(j);
          return false;
        }
      }
    }
    if (const auto next = workloads::next_memory_change(*job.profile, age)) {
      const int attempt = job.attempt;
      job.memory_event = sim_.schedule_at(job.started + *next, [this, j, attempt] {
        if (jobs_[j].attempt == attempt && jobs_[j].state == JobState::kRunning) {
          apply_memory(j);
        }
      });
    }
    return true;
  }

  void advance(Job& job) {
    const double dt = to_seconds(sim_.now() - job.last_update);
    job.done = std::min(static_cast<double>(job.spec->steps), job.done + job.rate * dt);
    job.last_update = sim_.now();
  }

  // Recomputes the speed of every running job on `touched` nodes and of every job whose link or
  // storage share changed, and reschedules their completions.
  void refresh(const std::set<int>& touched) {
    std::set<int> affected;
    for (const int n : touched) {
      affected.insert(nodes_[n].jobs.begin(), nodes_[n].jobs.end());
    }
    for (const FlowId f : fluid_.update()) {
      const auto it = flow_owner_.find(static_cast<int>(f));
      if (it != flow_owner_.end()) {
        affected.insert(it->second);
      }
    }
    for (const int j : affected) {
      if (jobs_[j].state == JobState::kRunning) {
        update_rate(j);
      }
    }
  }

  void update_rate(int j) {
    Job& job = jobs_[j];
    advance(job);
    StepConditions c;
    c.gpus = std::max(1, total_gpus(job));
    c.compute_share = 1.0;
    c.input_bandwidth = std::numeric_limits<double>::infinity();
    for (const int p : job.pods) {
      const Pod& pod = pods_[p];
      const Node& node = nodes_[pod.node];
      // Workers of one pod on one card split the pod's share of it.
      for (const auto& [card, workers] : card_counts(pod.cards)) {
        c.compute_share =
            std::min(c.compute_share, node.gpus->compute_share(pod.process, card) / workers);
      }
      if (pod.has_input) {
        c.input_bandwidth = std::min(c.input_bandwidth, fluid_.rate(pod.input));
      }
    }
    c.allreduce_bandwidth =
        job.ring ? fluid_.rate(*job.ring) : std::numeric_limits<double>::infinity();
    job.step = workloads::step_time(*job.profile, c);
    job.rate = job.step.seconds > 0 ? 1.0 / job.step.seconds : 0.0;
    sim_.cancel(job.finish_event);
    const double remaining = static_cast<double>(job.spec->steps) - job.done;
    if (job.rate > 0) {
      const Duration left = from_seconds(std::max(0.0, remaining / job.rate)) + Duration(1);
      job.finish_event = sim_.schedule_in(left, [this, j] { finish(j); });
    }
    emit_rate(job, true);
  }

  void emit_rate(const Job& job, bool running) {
    JobRate r;
    r.at = sim_.now();
    r.job = job.spec->name;
    r.running = running;
    r.nvlink_required = job.nvlink;
    r.collective_bandwidth = job.ring ? fluid_.rate(*job.ring) : 0.0;
    r.ideal_collective_bandwidth = job.ideal_ring;
    r.gpu_utilization = running ? job.step.gpu_utilization : 0.0;
    signals_.rate.emit(r);
  }

  void finish(int j) {
    Job& job = jobs_[j];
    advance(job);
    job.done = static_cast<double>(job.spec->steps);
    job.state = JobState::kSucceeded;
    signals_.job.emit(JobEvent{sim_.now(), JobEventKind::kSucceeded, job.spec->name, "", "",
                               total_gpus(job), job.nvlink});
    emit_rate(job, false);
    release(j);
    job_terminal();
  }

  // Kills the current attempt (OOM or eviction): progress back to the last checkpoint, pods
  // deleted, and the Job controller's back-off before new pods.
  void kill(int j) {
    Job& job = jobs_[j];
    advance(job);
    job.done = job.checkpointed;
    const bool was_running = job.state == JobState::kRunning;
    if (was_running) {
      emit_rate(job, false);
    }
    release(j);
    ++job.failures;
    if (job.failures > job.spec->backoff_limit) {
      job.state = JobState::kFailed;
      signals_.job.emit(JobEvent{sim_.now(), JobEventKind::kFailed, job.spec->name, "", "",
                                 total_gpus(job), job.nvlink});
      job_terminal();
      return;
    }
    job.state = JobState::kBackoff;
    const int attempt = job.attempt;
    sim_.schedule_in(workloads::backoff_delay(job.failures), [this, j, attempt] {
      Job& again = jobs_[j];
      if (again.attempt != attempt || again.state != JobState::kBackoff) {
        return;
      }
      ++again.attempt;
      again.state = JobState::kPending;
      signals_.job.emit(JobEvent{sim_.now(), JobEventKind::kRestarted, again.spec->name, "", "",
                                 total_gpus(again), again.nvlink});
      create_pods(j);
    });
  }

  // Deletes the job's pods: devices, flows, allocation state. Re-rates the neighbours.
  void release(int j) {
    Job& job = jobs_[j];
    sim_.cancel(job.finish_event);
    sim_.cancel(job.memory_event);
    sim_.cancel(job.checkpoint_event);
    if (job.ring) {
      flow_owner_.erase(static_cast<int>(*job.ring));
      fluid_.remove_flow(*job.ring);
      job.ring.reset();
    }
    std::set<int> touched;
    for (const int p : job.pods) {
      Pod& pod = pods_[p];
      pod.alive = false;
      if (pod.node < 0) {
        continue;
      }
      Node& node = nodes_[pod.node];
      if (pod.has_input) {
        flow_owner_.erase(static_cast<int>(pod.input));
        fluid_.remove_flow(pod.input);
        pod.has_input = false;
      }
      if (pod.running) {
        node.nvlink_pods -= job.nvlink;
        pod.running = false;
      }
      node.jobs.erase(j);
      node.gpus->release(pod.process);
      view_.nodes[pod.node].remove_pod(pod.spec->name);
      sync_fractional(pod.node);
      touched.insert(pod.node);
      pod.node = -1;
    }
    job.rate = 0.0;
    refresh(touched);
    queue_.on_cluster_event(sim_.now());
    kick();
  }

  void job_terminal() {
    if (--unfinished_ == 0) {
      sim_.stop();
    }
  }

  // ---- observation ----

  NodeState node_state(int n) const {
    const Node& node = nodes_[n];
    NodeState s;
    s.name = node.name;
    const int cards = node.topology->gpu_count();
    s.gpu_utilization.assign(static_cast<std::size_t>(cards), 0.0);
    s.gpu_memory_used.assign(static_cast<std::size_t>(cards), 0);
    // Nodes without NVLink report no NVLink utilisation at all (not zeros), so that they stay
    // out of NVLink statistics.
    if (node.has_nvlink) {
      s.nvlink_utilization.assign(static_cast<std::size_t>(cards), 0.0);
    }
    s.gpu_memory_capacity = node.card_memory;
    for (int c = 0; c < cards; ++c) {
      s.gpu_memory_used[static_cast<std::size_t>(c)] = node.gpus->memory_used(c);
    }
    for (const int j : node.jobs) {
      const Job& job = jobs_[j];
      if (job.step.seconds <= 0) {
        continue;
      }
      // The card computes this job's kernels for compute_seconds (at full speed) per step.
      const double busy = job.profile->compute_seconds / job.step.seconds;
      const double sync = job.step.sync_seconds / job.step.seconds;
      const double ring_rate = job.ring ? fluid_.rate(*job.ring) : 0.0;
      for (const int p : job.pods) {
        const Pod& pod = pods_[p];
        if (pod.node != n) {
          continue;
        }
        for (const auto& [card, workers] : card_counts(pod.cards)) {
          auto& u = s.gpu_utilization[static_cast<std::size_t>(card)];
          u = std::min(1.0, u + busy * workers);
          double nvlink_capacity = 0.0;
          for (int other = 0; other < cards; ++other) {
            if (other != card && node.topology->link(card, other) == LinkType::kNVLink) {
              nvlink_capacity += node.topology->bandwidth(card, other);
            }
          }
          if (nvlink_capacity > 0 && !s.nvlink_utilization.empty()) {
            auto& v = s.nvlink_utilization[static_cast<std::size_t>(card)];
            v = std::min(1.0, v + ring_rate * sync / nvlink_capacity);
          }
        }
      }
    }
    s.nvlink_competition_index = nvlink_competition_index(node.nvlink_pods, cards);
    const Device& d = devices_[static_cast<std::size_t>(node.device)];
    s.storage_await_ms =
        storage_await_ms(d.device, fluid_.utilisation(d.resource), scenario_.cluster.max_await_ms);
    s.gpus_allocatable = node.gpus->schedulable_units();
    s.gpus_allocated = static_cast<int>(view_.nodes[n].requested.gpus);
    return s;
  }

  NodeMetrics agent_sample(int n) const {
    const NodeState s = node_state(n);
    NodeMetrics m;
    for (const auto used : s.gpu_memory_used) {  // none on a node without GPUs
      m.gpu_memory_utilization.push_back(static_cast<double>(used) /
                                         static_cast<double>(s.gpu_memory_capacity));
    }
    m.nvlink_competition_index = s.nvlink_competition_index;
    m.storage_await_ms[devices_[static_cast<std::size_t>(nodes_[n].device)].device.name] =
        s.storage_await_ms;
    return m;
  }

  void sample_now() {
    ClusterSample c;
    c.at = sim_.now();
    for (std::size_t n = 0; n < nodes_.size(); ++n) {
      c.nodes.push_back(node_state(static_cast<int>(n)));
    }
    c.pending_pods = static_cast<int>(queue_.size());
    for (const auto& j : jobs_) {
      c.running_jobs += j.state == JobState::kRunning;
    }
    signals_.sample.emit(c);
  }

  void sample() {
    sample_now();
    sim_.schedule_in(scenario_.run.sample_interval, [this] { sample(); });
  }

  const Scenario& scenario_;
  const workloads::Catalogue& catalogue_;
  RunSignals& signals_;
  Simulation sim_;
  std::string reference_gpu_;
  FluidSolver fluid_;
  std::vector<Node> nodes_;
  std::vector<Device> devices_;
  ClusterView view_;
  std::vector<Job> jobs_;
  std::vector<Pod> pods_;
  std::map<std::string, int> pod_index_;
  std::map<int, int> flow_owner_;
  std::map<int, double> best_ring_bw_;  // by GPUs per pod
  std::unique_ptr<policies::Scheduler> scheduler_;
  policies::SchedulingQueue queue_;
  std::unique_ptr<TelemetryPipeline> telemetry_;
  bool cycle_pending_ = false;
  TimePoint busy_until_{};
  std::uint64_t next_process_ = 0;
  int unfinished_ = 0;
};

}  // namespace

Workload make_jobs(const Scenario& scenario, std::uint64_t seed) {
  const workloads::WorkloadSpec spec =
      workloads::parse_workload(scenario.workload, scenario.path, scenario.folder);
  RandomStream rng(seed, "workload");
  workloads::SpeedReference speed;
  speed.gpu = reference_gpu(scenario);
  Workload w{workloads::catalogue_of(spec), workloads::generate_jobs(spec, rng, speed)};
  return w;
}

void check_policy(const Scenario& /*scenario*/, const PolicyConfig& policy) {
  (void)policies::make_scheduler(policy.scheduler, 1);
}

RunSummary run_policy(const Scenario& scenario, const Workload& workload,
                      const PolicyConfig& policy, std::uint64_t seed, RunSignals& signals) {
  Run run(scenario, workload, policy, seed, signals);
  return run.execute();
}

}  // namespace tidesim
