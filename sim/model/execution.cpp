#include "tidesim/sim/model/execution.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "tidesim/sim/engine/checked.hpp"
#include "tidesim/sim/model/node_order.hpp"
#include "tidesim/sim/model/ring_path.hpp"
#include "tidesim/topologies/mig.hpp"
#include "tidesim/workloads/gavel_jobs.hpp"
#include "tidesim/workloads/llm_job.hpp"
#include "tidesim/workloads/memory.hpp"

namespace tidesim {

Execution::Execution(RunContext& run, ExecutionListener& listener)
    : run_(run), listener_(listener) {
  for (const ClusterNode& node : run.cluster.nodes()) {
    const SharingMode mode = node.gpus ? node.gpus->sharing().mode : SharingMode::kExclusive;
    exclusive_.push_back(mode == SharingMode::kExclusive ? 1 : 0);
    time_sliced_ = time_sliced_ || mode == SharingMode::kTimeSlicing;
  }
}

void Execution::start(int j) {
  Job& job = run_.jobs[static_cast<std::size_t>(j)];
  Simulation& sim = run_.sim;
  run_.set_phase(j, JobPhase::kRunning);
  job.ever_started = true;
  job.started = sim.now();
  job.last_update = sim.now();
  const ClusterNode& first = run_.cluster.node(run_.pods[job.pods.front()].node);
  if (!job.profile) {
    // A pod without GPUs (a trace's CPU-only pod) runs at the reference GPU's uncontended
    // speed, so its traced run time is kept (steps were converted at that speed).
    const auto& req = job.spec->pod_template.requests;
    const bool gpu_job = req.gpus > 0 || req.gpu_milli > 0 || mig_request(req).has_value();
    const std::string& gpu =
        gpu_job && !first.group->gpu_model.empty() ? first.group->gpu_model : run_.reference_gpu;
    job.profile = run_.profile(*job.spec, gpu);
  }
  std::vector<int> nodes;  // the workers' nodes
  for (const int p : job.pods) {
    Pod& pod = run_.pods[static_cast<std::size_t>(p)];
    // A leader (JobSpec::leader) runs on its node but computes nothing: no input reads, no place
    // in the ring or the job's span.
    const bool worker = !job.spec->leader || p != job.pods.back();
    ClusterNode& node = run_.cluster.node(pod.node);
    node.jobs.insert(j);
    node.running_pods.push_back(p);
    node.nvlink_pods += job.nvlink;
    run_.cluster.touch(pod.node);
    pod.running = true;
    node.gpus->set_running(pod.process, true);
    if (!worker) {
      continue;
    }
    nodes.push_back(pod.node);
    // Input reads: a flow on the node's data device, bounded by what the pod would read at
    // full compute speed.
    const double demand = static_cast<double>(job.profile->input_bytes) /
                          std::max(job.profile->compute_seconds, 1e-9);
    if (demand > 0) {
      pod.input = run_.fluid.add_flow(
          {run_.cluster.devices()[static_cast<std::size_t>(node.device)].resource}, demand);
      own(*pod.input, j);
    }
  }
  add_ring(j);
  if (job.ring) {
    own(*job.ring, j);
  }
  sort_distinct_nodes(nodes, static_cast<int>(run_.cluster.nodes().size()));
  JobEvent started = run_.event(JobEventKind::kStarted, j);
  if (const FabricNetwork* fabric = run_.cluster.fabric()) {
    started.fabric_span = fabric->span(nodes);
  }
  run_.signals.job.emit(started);
  job.checkpoint_event = schedule_checkpoint(j);
  if (!apply_memory(j)) {
    return;  // killed at start
  }
  refresh(nodes);
}

std::vector<int> Execution::stop(int j, bool lose_progress) {
  Job& job = run_.jobs[static_cast<std::size_t>(j)];
  if (job.phase == JobPhase::kRunning) {
    advance(job);
    emit_rate(job, false);
  }
  if (lose_progress) {
    job.done = job.checkpointed;
  }
  run_.sim.cancel(job.finish_event);
  run_.sim.cancel(job.memory_event);
  run_.sim.cancel(job.checkpoint_event);
  if (job.ring) {
    own(*job.ring, -1);
    run_.fluid.remove_flow(*job.ring);
    job.ring.reset();
  }
  rings_.erase(j);
  std::vector<int> nodes;  // the nodes of its running pods
  for (const int p : job.pods) {
    Pod& pod = run_.pods[static_cast<std::size_t>(p)];
    if (pod.node < 0) {
      continue;
    }
    ClusterNode& node = run_.cluster.node(pod.node);
    if (pod.input) {
      own(*pod.input, -1);
      run_.fluid.remove_flow(*pod.input);
      pod.input.reset();
    }
    if (pod.running) {
      node.nvlink_pods -= job.nvlink;
      node.jobs.erase(j);
      std::erase(node.running_pods, p);
      run_.cluster.touch(pod.node);
      pod.running = false;
      // The container's process is gone: its memory is freed (its cards stay allocated).
      node.gpus->set_stopped(pod.process);
      nodes.push_back(pod.node);
    }
  }
  job.rate = 0.0;
  sort_distinct_nodes(nodes, static_cast<int>(run_.cluster.nodes().size()));
  return nodes;
}

void Execution::own(FlowId flow, int j) {
  const auto i = static_cast<std::size_t>(flow);
  if (flow_owner_.size() <= i) {
    flow_owner_.resize(i + 1, -1);
  }
  flow_owner_[i] = j;
}

void Execution::close_books() {
  for (auto& job : run_.jobs) {
    if (job.phase == JobPhase::kRunning) {
      advance(job);
      emit_rate(job, false);
    }
  }
}

// The all-reduce ring of a multi-GPU job as one fluid flow over its path (ring_path: the links
// of its best ring order on each node, each node's NICs when it spans nodes, the fabric's
// up-links of the domains it spans). The all-reduce runs in bursts, one per step: a burst moves
// at the path's bandwidth alone, and the flow is capped at the ring's average demand
// (cap_rings), so rings that share a link slow each other only when together they need more
// than it carries on average (docs/model-workloads.md, "Step time").
void Execution::add_ring(int j) {
  Job& job = run_.jobs[static_cast<std::size_t>(j)];
  if (total_gpus(job) <= 1) {
    return;
  }
  std::vector<PodPlace> pods;
  for (const int p : worker_pods(job)) {
    const Pod& pod = run_.pods[static_cast<std::size_t>(p)];
    pods.push_back(PodPlace{pod.node, pod.cards});
  }
  // A job of several pods keeps its ring for its next start (RingPaths); a one-pod ring is
  // found from its node's kept rings (TopologyFlows) anyway.
  const RingPath alone_pod =
      pods.size() > 1 ? RingPath{} : ring_path(run_.cluster, run_.fluid, pods);
  const RingPath& ring =
      pods.size() > 1 ? ring_paths_.ring(j, run_.cluster, run_.fluid, pods) : alone_pod;
  // Ideal: the same GPUs per pod on the best set of an idle node anywhere in the cluster (the
  // NVLink contention metric's reference: a placement without NVLink counts as contended when
  // the cluster has NVLink nodes).
  double ideal = ring.nic;
  const int per_pod = static_cast<int>(job.spec->pod_template.requests.gpus);
  if (per_pod > 1) {
    ideal = std::min(ideal, run_.cluster.best_ring_bandwidth(per_pod));
  }
  job.ideal_ring = std::isfinite(ideal) ? ideal : 0.0;
  if (!ring.path.empty()) {
    // A zero-capacity link (a failed one) leaves the burst bandwidth 0: the fluid rate decides.
    rings_[j] = RingState{ring.alone, 0.0, ring.latency};
    job.ring = run_.fluid.add_prepared(ring.prepared);
  }
}

void Execution::checkpoint_now(int j) {
  Job& job = run_.jobs[static_cast<std::size_t>(j)];
  if (job.phase != JobPhase::kRunning) {
    return;
  }
  advance(job);
  job.checkpointed = job.done;
  job.checkpointed_at = run_.sim.now();
}

double Execution::progress(int j) {
  Job& job = run_.jobs[static_cast<std::size_t>(j)];
  if (job.phase == JobPhase::kRunning) {
    advance(job);
  }
  return job.done;
}

void Execution::set_work(int j, double done) {
  Job& job = run_.jobs[static_cast<std::size_t>(j)];
  if (job.phase == JobPhase::kRunning) {
    job.last_update = run_.sim.now();  // the caller brought its progress to now
  }
  job.done = std::clamp(done, 0.0, static_cast<double>(job.spec->steps));
  job.checkpointed = job.done;
  job.checkpointed_at = run_.sim.now();
  if (job.phase == JobPhase::kRunning) {
    update_rate(j);
  }
}

void Execution::commit_share(int j, double from, double share, TimePoint at) {
  Job& job = run_.jobs[static_cast<std::size_t>(j)];
  const double done = progress(j);
  job.checkpointed = std::clamp(from + (done - from) * share, std::min(from, done), done);
  job.checkpointed_at = at;
}

EventId Execution::schedule_checkpoint(int j) {
  const Duration every = run_.jobs[static_cast<std::size_t>(j)].spec->checkpoint_interval;
  if (every <= Duration::zero()) {
    return {};
  }
  return run_.sim.schedule_in(every, [this, j] {
    Job& job = run_.jobs[static_cast<std::size_t>(j)];
    if (job.phase != JobPhase::kRunning) {
      return;
    }
    checkpoint_now(j);
    job.checkpoint_event = schedule_checkpoint(j);
  });
}

// Sets every card's memory for job j at its current age; on OOM kills (events, listener) and
// returns false. The allocation that takes a card past its capacity fails in job j; the other
// processes on that card still ramping up their memory fail too (their next allocations find the
// card full before the failed process has exited: docs/model-workloads.md). With per-container
// isolation, an allocation over the process's own limit fails in its container only.
bool Execution::apply_memory(int j) {
  Job& job = run_.jobs[static_cast<std::size_t>(j)];
  const Duration age = run_.sim.now() - job.started;
  const std::int64_t bytes = workloads::memory_at(*job.profile, age);
  for (const int p : job.pods) {
    const Pod& pod = run_.pods[static_cast<std::size_t>(p)];
    ClusterNode& node = run_.cluster.node(pod.node);
    run_.cluster.touch(pod.node);
    // Each worker (one per unit) holds `bytes` on its card, up to the first card it overfills.
    int card = -1;
    for_each_card_count(pod.cards, [&](int c, int workers) {
      // bytes <= kMaxWorkerMemoryBytes (2^50), workers <= the pod's units: saturating anyway.
      if (card < 0 && node.gpus->set_memory(pod.process, c, saturating_mul(bytes, workers))) {
        card = c;
      }
    });
    if (card >= 0) {
      // MIG: the instance's memory is its own; an allocation past it fails in this process only
      // and no neighbour is touched.
      const bool mig = node.gpus->sharing().mode == SharingMode::kMig;
      const bool card_full = !mig && node.gpus->memory_used(card) > node.gpus->memory_capacity();
      // Victims, in placement order after j: the other occupants' jobs still ramping.
      std::vector<std::pair<int, const Pod*>> victims{{j, &pod}};
      for (const std::uint64_t other : node.gpus->occupants(card)) {
        const auto it = run_.pod_by_process.find(other);
        if (!card_full || other == pod.process || it == run_.pod_by_process.end()) {
          continue;
        }
        const Pod& op = run_.pods[it->second];
        const Job& o = run_.jobs[static_cast<std::size_t>(op.job)];
        const bool listed = std::any_of(victims.begin(), victims.end(),
                                        [&](const auto& v) { return v.first == op.job; });
        if (!listed && o.phase == JobPhase::kRunning && op.running && o.profile &&
            workloads::ramping(*o.profile, run_.sim.now() - o.started)) {
          victims.emplace_back(op.job, &op);
        }
      }
      for (const auto& [v, vpod] : victims) {
        JobEvent e = run_.event(JobEventKind::kOomKilled, v);
        // The job resumes from its last checkpoint: the work since then is thrown away.
        const Job& victim = run_.jobs[static_cast<std::size_t>(v)];
        e.lost_gpu_seconds =
            to_seconds(run_.sim.now() - std::max(victim.started, victim.checkpointed_at)) * e.gpus;
        e.pod = vpod->spec->name;
        e.node = node.name;
        e.cards = {card};
        e.memory_used =
            mig ? node.gpus->memory_of(vpod->process, card) : node.gpus->memory_used(card);
        e.memory_capacity = node.gpus->memory_limit(vpod->process, card);
        for (const std::uint64_t other :
             mig ? std::vector<std::uint64_t>{} : node.gpus->occupants(card)) {
          const auto it = run_.pod_by_process.find(other);
          if (other != vpod->process && it != run_.pod_by_process.end()) {
            const Job& o = run_.jobs[static_cast<std::size_t>(run_.pods[it->second].job)];
            e.co_located.push_back(o.spec->name);
          }
        }
        run_.signals.job.emit(e);
      }
      for (const auto& [v, vpod] : victims) {
        if (run_.jobs[static_cast<std::size_t>(v)].phase == JobPhase::kRunning) {
          listener_.on_oom(v);
        }
      }
      return false;
    }
  }
  if (const auto next = workloads::next_memory_change(*job.profile, age)) {
    const int attempt = job.attempt;
    job.memory_event = run_.sim.schedule_at(job.started + *next, [this, j, attempt] {
      const Job& again = run_.jobs[static_cast<std::size_t>(j)];
      if (again.attempt == attempt && again.phase == JobPhase::kRunning) {
        apply_memory(j);
      }
    });
  }
  return true;
}

void Execution::advance(Job& job) {
  const double dt = to_seconds(run_.sim.now() - job.last_update);
  job.done = std::min(static_cast<double>(job.spec->steps), job.done + job.rate * dt);
  job.last_update = run_.sim.now();
}

void Execution::refresh(const std::vector<int>& touched) {
  std::set<int> affected;
  for (const int n : touched) {
    const auto& jobs = run_.cluster.node(n).jobs;
    affected.insert(jobs.begin(), jobs.end());
  }
  const auto collect = [&] {
    for (const FlowId f : run_.fluid.update()) {
      const auto i = static_cast<std::size_t>(f);
      if (i < flow_owner_.size() && flow_owner_[i] >= 0) {
        affected.insert(flow_owner_[i]);
      }
    }
  };
  collect();
  divide_cards(touched, affected);
  // The caps depend on compute shares and input rates, not on ring rates: one more solve after
  // capping settles the rings. The card shares are settled since divide_cards: each job's is
  // read once.
  std::map<int, double> shares;
  if (cap_rings(affected, shares)) {
    collect();
  }
  for (const int j : affected) {
    if (run_.jobs[static_cast<std::size_t>(j)].phase == JobPhase::kRunning) {
      const auto it = shares.find(j);
      update_rate(j, it != shares.end() ? std::optional<double>(it->second) : std::nullopt);
    }
  }
}

// Time-slicing: divides again every time-sliced card whose running processes changed (on the
// touched nodes) or whose running jobs' conditions changed (`affected`), and adds the jobs on
// those cards to `affected`. A process's busy time at share s is its step's at compute share
// s / workers, with its input rate as the storage gives it now and its ring at its burst
// bandwidth, never held back by the ring's average share: an upper bound of the time it will
// keep the card busy, so the card is never over-committed (docs/model-hardware.md,
// "Time-slicing").
void Execution::divide_cards(const std::vector<int>& touched, std::set<int>& affected) {
  if (!time_sliced_) {
    return;
  }
  std::set<std::pair<int, int>> cards;  // (node, card), in order: the result is deterministic
  const auto sliced_node = [this](int n) {
    return run_.cluster.node(n).gpus->sharing().mode == SharingMode::kTimeSlicing;
  };
  for (const int n : touched) {
    const ClusterNode& node = run_.cluster.node(n);
    if (!sliced_node(n)) {
      continue;
    }
    for (int c = 0; c < node.gpus->card_count(); ++c) {
      if (node.gpus->needs_division(c)) {
        cards.emplace(n, c);
      }
    }
  }
  for (const int j : affected) {
    const Job& job = run_.jobs[static_cast<std::size_t>(j)];
    if (job.phase != JobPhase::kRunning) {
      continue;
    }
    for (const int p : job.pods) {
      const Pod& pod = run_.pods[static_cast<std::size_t>(p)];
      if (sliced_node(pod.node)) {
        for_each_card_count(pod.cards, [&](int card, int) { cards.emplace(pod.node, card); });
      }
    }
  }
  for (const auto& [n, card] : cards) {
    ClusterNode& node = run_.cluster.node(n);
    // Each running process's job, workers on this card and conditions but its share, found once
    // for the division (which asks busy times at many shares).
    struct Sliced {
      std::uint64_t process;
      int job;
      int workers;
      workloads::StepConditions at;
    };
    std::vector<Sliced> sliced;
    for (const std::uint64_t process : node.gpus->occupants(card)) {
      if (!node.gpus->running(process)) {
        continue;
      }
      const Pod& pod = run_.pods[run_.pod_by_process.at(process)];
      Sliced s{process, pod.job, card_counts(pod.cards).at(card), network_conditions(pod.job)};
      s.at.allreduce_average_bandwidth = std::numeric_limits<double>::infinity();
      sliced.push_back(s);
    }
    node.gpus->divide_time(card, [&](std::uint64_t process, double share) {
      const Sliced& s = *std::find_if(sliced.begin(), sliced.end(),
                                      [process](const Sliced& x) { return x.process == process; });
      workloads::StepConditions c = s.at;
      c.compute_share = share / s.workers;
      return s.workers * step_of(s.job, c).gpu_utilization;
    });
    std::vector<std::pair<std::uint64_t, int>> single;
    for (const Sliced& s : sliced) {
      if (s.workers == 1) {
        single.emplace_back(s.process, s.job);
      }
    }
    if (single.size() != sliced.size()) {
      single.clear();
    }
    colocate(n, card, single);
    // Re-rated: the processes running there (a stopped job's pods keep their slots while it
    // crash-loops, and its phase changes only after this refresh).
    for (const Sliced& s : sliced) {
      affected.insert(s.job);
    }
  }
}

void Execution::colocate(int n, int card,
                         const std::vector<std::pair<std::uint64_t, int>>& running) {
  std::erase_if(colocated_, [&](const auto& e) {
    return std::get<0>(e.first) == n && std::get<1>(e.first) == card;
  });
  if (running.size() != 2 || running[0].second == running[1].second) {
    return;
  }
  const Job& a = run_.jobs[static_cast<std::size_t>(running[0].second)];
  const Job& b = run_.jobs[static_cast<std::size_t>(running[1].second)];
  if (!a.spec->measured || !b.spec->measured) {
    return;
  }
  const ClusterNode& node = run_.cluster.node(n);
  const auto pair =
      workloads::gavel_colocated_run(*a.spec->measured, *b.spec->measured, node.group->gpu_model);
  if (!pair || !(pair->first > 0.0) || !(pair->second > 0.0)) {
    return;
  }
  // Seconds per step alone on this card: the measured step at compute share 1.
  const auto alone = [this](int j) {
    workloads::StepConditions c = network_conditions(j);
    c.compute_share = 1.0;
    return step_of(j, c).seconds;
  };
  colocated_[{n, card, running[0].first}] =
      std::clamp(pair->first * alone(running[0].second), 0.0, 1.0);
  colocated_[{n, card, running[1].first}] =
      std::clamp(pair->second * alone(running[1].second), 0.0, 1.0);
}

workloads::StepConditions Execution::conditions(int j, std::optional<double> share) const {
  workloads::StepConditions c = network_conditions(j);
  c.compute_share = std::min(c.compute_share, share ? *share : card_share(j));
  return c;
}

double Execution::card_share(int j) const {
  const Job& job = run_.jobs[static_cast<std::size_t>(j)];
  double share = 1.0;
  for (const int p : job.pods) {
    const Pod& pod = run_.pods[static_cast<std::size_t>(p)];
    if (exclusive_[static_cast<std::size_t>(pod.node)] != 0) {
      continue;  // a share of 1 on each of its cards (distinct): the minimum does not move
    }
    const ClusterNode& node = run_.cluster.node(pod.node);
    // Workers of one pod on one card split the pod's share of it.
    for_each_card_count(pod.cards, [&](int card, int workers) {
      const auto pair = colocated_.find({pod.node, card, pod.process});
      const double s =
          pair != colocated_.end() ? pair->second : node.gpus->compute_share(pod.process, card);
      share = std::min(share, s / workers);
    });
  }
  return share;
}

workloads::StepConditions Execution::network_conditions(int j) const {
  const Job& job = run_.jobs[static_cast<std::size_t>(j)];
  workloads::StepConditions c;
  c.gpus = std::max(1, total_gpus(job));
  c.compute_share = 1.0;
  c.input_bandwidth = std::numeric_limits<double>::infinity();
  for (const int p : job.pods) {
    const Pod& pod = run_.pods[static_cast<std::size_t>(p)];
    if (pod.input) {
      c.input_bandwidth = std::min(c.input_bandwidth, run_.fluid.rate(*pod.input));
    }
  }
  if (job.ring) {
    const double rate = run_.fluid.rate(*job.ring);
    const auto ring = rings_.find(j);
    const double alone = ring != rings_.end() ? ring->second.alone : rate;
    // A ring with no bandwidth at all (a failed link) is stopped: its rate is the fluid's.
    c.allreduce_bandwidth = alone > 0 ? alone : std::max(rate, 1e-9);
    c.allreduce_average_bandwidth = std::max(rate, 1e-9);
    c.allreduce_latency = ring != rings_.end() ? ring->second.latency : 0.0;
  }
  return c;
}

bool Execution::cap_rings(const std::set<int>& jobs, std::map<int, double>& shares) {
  bool changed = false;
  for (const int j : jobs) {
    const Job& job = run_.jobs[static_cast<std::size_t>(j)];
    if (job.phase != JobPhase::kRunning || !job.ring || !job.profile) {
      continue;
    }
    const double share = card_share(j);
    shares.emplace(j, share);
    workloads::StepConditions c = conditions(j, share);
    c.allreduce_average_bandwidth = std::numeric_limits<double>::infinity();
    const double demand = workloads::job_average_demand(*job.spec, *job.profile, c);
    RingState& ring = rings_[j];
    if (demand > 0 && ring.cap != demand) {
      run_.fluid.set_max_rate(*job.ring, demand);
      ring.cap = demand;
      changed = true;
    }
  }
  return changed;
}

void Execution::update_rate(int j, std::optional<double> share) {
  Job& job = run_.jobs[static_cast<std::size_t>(j)];
  advance(job);
  for (const int p : job.pods) {
    run_.cluster.touch(run_.pods[static_cast<std::size_t>(p)].node);  // utilisation
  }
  job.step = step_of(j, conditions(j, share));
  job.rate = job.step.seconds > 0 ? job.compute_share / job.step.seconds : 0.0;
  run_.sim.cancel(job.finish_event);
  // The job's end, or the next step at which its speed changes (an elastic job's epoch).
  const auto steps = static_cast<double>(job.spec->steps);
  double target = steps;
  if (job.spec->measured) {
    if (const std::optional<double> next = job.spec->measured->next_change(job.done);
        next && *next > job.done && *next < steps) {
      target = *next;
    }
  }
  const double remaining = target - job.done;
  if (job.rate > 0 && target < steps) {
    const double seconds = std::max(0.0, remaining / job.rate);
    const Duration left = seconds < to_seconds(kMaxInputDuration)
                              ? from_seconds(seconds) + Duration(1)
                              : Duration::max();
    job.finish_event = run_.sim.schedule_in(left, [this, j, target] {
      Job& changed = run_.jobs[static_cast<std::size_t>(j)];
      advance(changed);
      changed.done = std::max(changed.done, target);
      update_rate(j);
    });
  } else if (job.rate > 0) {
    // remaining / rate is steps x seconds per step: up to 2^50 steps of a slow step can exceed
    // the clock's range (from_seconds refuses past 9e18 us). Anything beyond
    // kMaxInputDuration is after every horizon: the finish goes to the end of time instead.
    const double seconds = std::max(0.0, remaining / job.rate);
    const Duration left = seconds < to_seconds(kMaxInputDuration)
                              ? from_seconds(seconds) + Duration(1)
                              : Duration::max();
    job.finish_event = run_.sim.schedule_in(left, [this, j] {
      Job& done = run_.jobs[static_cast<std::size_t>(j)];
      advance(done);
      done.done = static_cast<double>(done.spec->steps);
      ring_paths_.forget(j);
      emit_rate(done, false);
      listener_.on_finished(j);
    });
  }
  emit_rate(job, true);
}

workloads::StepTime Execution::step_of(int j, const workloads::StepConditions& c) const {
  const Job& job = run_.jobs[static_cast<std::size_t>(j)];
  workloads::StepTime step = workloads::job_step_time(*job.spec, *job.profile, c);
  if (job.spec->measured) {
    // A measured step time per placement (workloads/pollux.hpp: it includes the gradient sync),
    // slowed by the job's compute share.
    std::vector<int> nodes;
    std::vector<int> gpus_per_node;
    for (const int p : worker_pods(job)) {
      const Pod& pod = run_.pods[static_cast<std::size_t>(p)];
      const auto it = std::find(nodes.begin(), nodes.end(), pod.node);
      if (it == nodes.end()) {
        nodes.push_back(pod.node);
        gpus_per_node.push_back(static_cast<int>(pod.cards.size()));
      } else {
        gpus_per_node[static_cast<std::size_t>(it - nodes.begin())] +=
            static_cast<int>(pod.cards.size());
      }
    }
    // The GPU model of its first pod's node (a job of Gavel's table runs on one GPU type).
    const std::string& gpu =
        nodes.empty() ? run_.reference_gpu : run_.cluster.node(nodes.front()).group->gpu_model;
    step.seconds =
        job.spec->measured->step_seconds_on(gpu, gpus_per_node, job.done) / c.compute_share;
    // The card computes the measured step less its gradient sync (at full speed) per step: the
    // catalogue model's compute_seconds / seconds, from the measurements.
    const double compute = job.spec->measured->compute_seconds_on(gpu, gpus_per_node, job.done);
    step.compute_seconds = compute / c.compute_share;
    step.gpu_utilization = step.seconds > 0 ? std::clamp(compute / step.seconds, 0.0, 1.0) : 0.0;
  }
  return step;
}

void Execution::emit_rate(const Job& job, bool running) {
  JobRate r;
  r.at = run_.sim.now();
  r.job = job.spec->name;
  r.running = running;
  r.nvlink_required = job.nvlink;
  // The bus bandwidth the all-reduce achieves over a step (bursts), not the flow's average rate.
  r.collective_bandwidth = job.ring ? job.step.allreduce_effective_bandwidth : 0.0;
  r.ideal_collective_bandwidth = job.ideal_ring;
  r.gpu_utilization = running ? job.step.gpu_utilization : 0.0;
  r.gpus = total_gpus(job);
  r.multi_pod = worker_pods(job).size() > 1;
  r.llm = job.spec->llm != nullptr;
  r.step_seconds = job.step.seconds;
  r.reference_step_seconds = job.spec->reference_step_seconds;
  r.comm_seconds = job.step.sync_seconds;
  r.mfu = job.step.mfu;
  const auto ring = rings_.find(static_cast<int>(&job - run_.jobs.data()));
  if (job.ring && ring != rings_.end()) {
    r.ring_rate = run_.fluid.rate(*job.ring);
    r.ring_demand = ring->second.cap > 0 ? ring->second.cap : ring->second.alone;
  }
  run_.signals.rate.emit(r);
}

}  // namespace tidesim
