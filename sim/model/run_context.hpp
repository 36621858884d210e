#pragma once
/// What the parts of a run share: the simulation, the fluid solver, the cluster, the jobs and
/// pods, the catalogue, the signals and the run's settings. Each part holds a reference.
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tidesim/sim/api/run_signals.hpp"
#include "tidesim/sim/engine/fluid.hpp"
#include "tidesim/sim/engine/simulation.hpp"
#include "tidesim/sim/model/cluster.hpp"
#include "tidesim/sim/model/jobs.hpp"
#include "tidesim/sim/scenario/scenario.hpp"
#include "tidesim/workloads/catalogue.hpp"
#include "tidesim/workloads/llm_job.hpp"

namespace tidesim {

struct RunContext {
  const Scenario& scenario;
  const workloads::Catalogue& catalogue;
  RunSignals& signals;
  Simulation& sim;
  FluidSolver& fluid;
  Cluster& cluster;
  std::vector<Job> jobs;
  std::vector<Pod> pods;
  /// Pod index by its spec (the object the scheduling loop holds), and by process id on its
  /// cards.
  std::unordered_map<const PodSpec*, int> pod_by_spec;
  std::unordered_map<std::uint64_t, int> pod_by_process;
  /// The specs of the pods alive (Pod::alive: created and not deleted), so that asking whether a
  /// pod is alive searches the live pods only, not every pod of the run.
  std::unordered_set<const PodSpec*> live_pods;
  /// The GPU model whose uncontended speed converts traced run times to steps ("" when no node
  /// has GPUs).
  std::string reference_gpu;
  /// Jobs in JobPhase::kRunning (kept by set_phase).
  int running_jobs = 0;
  /// The profiles handed out by profile(), by model, batch size, precision and GPU model.
  std::map<std::tuple<std::string, int, std::string, std::string>,
           std::shared_ptr<const workloads::ModelProfile>>
      profiles{};

  /// catalogue.profile() of job `job`'s model, batch size and precision on `gpu`, computed once
  /// per run and shared by every job that asks for the same (a profile is about 200 bytes: a
  /// copy per job was 20 MB at 100,000 jobs).
  std::shared_ptr<const workloads::ModelProfile> profile(const workloads::JobSpec& job,
                                                         const std::string& gpu) {
    // An LLM job's profile is its own layout's: keyed by its spec. A job that holds no memory
    // (workloads::holds_memory) has its model's profile without it.
    auto key = std::make_tuple(
        job.llm ? "llm/" + std::to_string(reinterpret_cast<std::uintptr_t>(job.llm.get()))
                : (workloads::holds_memory(job) ? "" : "no-memory/") + job.model,
        job.batch_size, job.precision, gpu);
    if (const auto it = profiles.find(key); it != profiles.end()) {
      return it->second;
    }
    auto made = std::make_shared<const workloads::ModelProfile>(
        workloads::job_profile(job, catalogue, gpu));  // may throw
    profiles.emplace(std::move(key), made);
    return made;
  }

  /// Moves job `j` to `phase`: the one place a job's phase is written.
  void set_phase(int j, JobPhase phase) {
    Job& job = jobs[static_cast<std::size_t>(j)];
    running_jobs += (phase == JobPhase::kRunning) - (job.phase == JobPhase::kRunning);
    job.phase = phase;
  }

  /// A job event of job `j` with the fields every event carries.
  JobEvent event(JobEventKind kind, int j) const {
    const Job& job = jobs[static_cast<std::size_t>(j)];
    JobEvent e;
    e.at = sim.now();
    e.kind = kind;
    e.job = job.spec->name;
    e.gpus = total_gpus(job);
    e.nvlink_required = job.nvlink;
    e.attempt = job.attempt;
    e.gang = job.spec->gang.has_value();
    return e;
  }
};

}  // namespace tidesim
