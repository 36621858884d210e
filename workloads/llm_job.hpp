#pragma once
/// An LLM training job in a run (a job entry's `llm:`, docs/llm.md and docs/model-workloads.md,
/// "LLM jobs"): its transformer and parallel layout (tidesim::llm), the GPU it runs on as an
/// llm::System, and its step time where the scheduler placed it: tensor parallelism inside each
/// pod over NVLink; pipeline and data-parallel traffic over NVLink when the job is one pod, else
/// over the fabric at the bandwidth its pods' ring reaches there (per GPU: the ring's bandwidth
/// over the pod's GPUs), shared with other jobs as every ring is.
#include <cstdint>
#include <optional>
#include <string>

#include "tidesim/llm/execution.hpp"
#include "tidesim/llm/model.hpp"
#include "tidesim/llm/step.hpp"
#include "tidesim/llm/system.hpp"
#include "tidesim/workloads/catalogue.hpp"
#include "tidesim/workloads/job.hpp"
#include "tidesim/workloads/step_time.hpp"

namespace tidesim::workloads {

struct LlmSpec {
  llm::Model model;
  llm::Execution execution;
  /// The GPU as the job file states it; nullopt: the GPU of the node it runs on
  /// (llm_system_for_gpu).
  std::optional<llm::System> system;
};

/// The llm::System of catalogue GPU `gpu` (topologies/gpu_models.hpp): the built-in h100-80g for
/// GPUs of H100-class tensor throughput (>= 900 TFLOPS FP16), else a100-80g, with the model's own
/// FP16/BF16 tensor peak, memory size (what processes see) and memory bandwidth. Throws
/// InputError for an unknown GPU.
llm::System llm_system_for_gpu(const std::string& gpu);

/// The system job `spec` runs on on a node of `gpu`.
llm::System llm_system(const LlmSpec& spec, const std::string& gpu);

/// The job's step on `system` under `c` (its ring's burst and average bandwidth and latency, as
/// for every job), its pods of `pod_gpus` GPUs: llm::step with pipeline and data-parallel traffic
/// on NVLink for one pod, else on the fabric at c.allreduce_bandwidth / pod_gpus per GPU, the
/// step at least the bytes its pods send over the fabric over the average bandwidth; compute
/// slowed by c.compute_share.
StepTime llm_step_time(const LlmSpec& spec, const llm::System& system, const StepConditions& c,
                       int pod_gpus);

/// Bytes per second the job's ring moves on average under `c` (average bandwidth ignored): what
/// its pods send over the fabric per step over its step; 0 for one pod.
double llm_average_demand(const LlmSpec& spec, const llm::System& system, const StepConditions& c,
                          int pod_gpus);

/// The catalogue-shaped profile the run keeps for the job on `system` (its memory per GPU, as
/// model state and activations from the start, and its compute seconds per step): what the
/// memory model and OOM rule read.
ModelProfile llm_profile(const LlmSpec& spec, const llm::System& system, const std::string& gpu);

/// Whether `job` holds its model's card memory: false for a job whose measured speed holds none
/// (MeasuredSpeed::holds_memory).
inline bool holds_memory(const JobSpec& job) {
  return !job.measured || job.measured->holds_memory();
}

/// The profile of `job` on `gpu`: an LLM job's (llm_profile), else the catalogue's for its model,
/// batch and precision, without its memory for a job that holds none (holds_memory). Throws as
/// Catalogue::profile() does.
ModelProfile job_profile(const JobSpec& job, const Catalogue& catalogue, const std::string& gpu);

/// `job`'s step under `c` with `profile` (job_profile() on the GPU it runs on): an LLM job's
/// llm_step_time, else step_time(profile, c).
StepTime job_step_time(const JobSpec& job, const ModelProfile& profile, const StepConditions& c);

/// What `job`'s ring moves on average under `c`: llm_average_demand for an LLM job, else
/// allreduce_average_demand(profile, c).
double job_average_demand(const JobSpec& job, const ModelProfile& profile, const StepConditions& c);

}  // namespace tidesim::workloads
