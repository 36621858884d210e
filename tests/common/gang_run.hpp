#pragma once
/// Test helper: the leaf/spine gang runs of tests/sim/data/volcano-run.yaml, tas-run.yaml,
/// volcano-partition-run.yaml (a 4-pod gang on eight nodes) and
/// kep5732-run.yaml (four one-GPU nodes, gpu-01/gpu-02 in leaf-0000 and gpu-03/gpu-04 in
/// leaf-0001 under one spine): a 2-pod gang G submitted at 1 s after one-pod fillers F1, F2, ...
/// pinned to their nodes at 0 s, and where and when each job's pods were bound.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tidesim/sim/experiments/run.hpp"

namespace tidesim::test {

struct Filler {
  std::string node;
  int hundreds_of_seconds = 1;
};

struct GangOutcome {
  RunSummary summary;
  std::map<std::string, std::multiset<std::string>> nodes;  // job -> its pods' nodes
  std::map<std::string, double> bound_s;                    // job -> its last bind
};

/// The scenario's first job (the gang, 100 s) as G, submitted at 1 s, after fillers F1, F2, ...
/// (one pod, no gang, their hundreds of seconds) submitted at 0 s with a node selector on their
/// node's hostname.
inline Workload gang_after_fillers(const Scenario& s, const std::vector<Filler>& fillers) {
  Workload w = make_jobs(s, 1);
  w.jobs.resize(fillers.size() + 1, w.jobs[0]);
  const std::int64_t per_100s = w.jobs[0].steps;
  for (std::size_t i = 0; i < w.jobs.size(); ++i) {
    workloads::JobSpec& j = w.jobs[i];
    const bool gang = i == fillers.size();
    j.name = gang ? "G" : "F" + std::to_string(i + 1);
    j.pod_template.name = j.name;
    j.submit_time = TimePoint(std::chrono::seconds(gang ? 1 : 0));
    if (gang) {
      j.steps = per_100s;
    } else {
      j.replicas = 1;
      j.gang.reset();
      j.steps = per_100s * fillers[i].hundreds_of_seconds;
      j.pod_template.node_selector["kubernetes.io/hostname"] = fillers[i].node;
    }
  }
  return w;
}

/// Runs `w` (seed 1) under the scenario's policy named `policy` (the first when empty), recording
/// the binds into `out`; `signals` may carry the caller's own listeners.
inline void run_recording_binds(const Scenario& s, const Workload& w, const std::string& policy,
                                RunSignals& signals, GangOutcome& out) {
  const auto it = policy.empty()
                      ? s.policies.begin()
                      : std::find_if(s.policies.begin(), s.policies.end(),
                                     [&](const PolicyConfig& p) { return p.name == policy; });
  signals.job.connect([&out](const JobEvent& e) {
    if (e.kind == JobEventKind::kBound) {
      out.nodes[e.job].insert(e.node);
      out.bound_s[e.job] = to_seconds(e.at);
    }
  });
  out.summary = run_policy(s, w, *it, 1, signals);
}

/// The gang of `scenario_file` after `fillers`, run under its policy named `policy` (the first
/// when empty).
inline GangOutcome run_gang_after_fillers(const std::string& scenario_file,
                                          const std::string& policy,
                                          const std::vector<Filler>& fillers) {
  const Scenario s = load_scenario(scenario_file);
  RunSignals signals;
  GangOutcome o;
  run_recording_binds(s, gang_after_fillers(s, fillers), policy, signals, o);
  return o;
}

/// A gang run's outcome with the topology decisions about G (RunSignals::topology: the TAS and
/// Volcano admission layers' placements and refusals; the fillers are placed too, unconstrained).
struct TopologyGangOutcome : GangOutcome {
  std::vector<TopologyEvent> topology;
};

/// run_recording_binds, also recording G's topology events into `out.topology`.
inline void run_recording_topology(const Scenario& s, const Workload& w, const std::string& policy,
                                   RunSignals& signals, TopologyGangOutcome& out) {
  signals.topology.connect([&out](const TopologyEvent& e) {
    if (e.job == "G") {
      out.topology.push_back(e);
    }
  });
  run_recording_binds(s, w, policy, signals, out);
}

}  // namespace tidesim::test
