#include "tidesim/workloads/llm_job.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tidesim/sim/input/error.hpp"
#include "tidesim/topologies/gpu_models.hpp"

namespace tidesim::workloads {

llm::System llm_system_for_gpu(const std::string& gpu) {
  const GpuModel& g = tidesim::gpu_model(gpu);  // InputError for an unknown model
  const bool h100_class = g.fp16_tensor_tflops >= 900.0;
  llm::System s = *llm::system_preset(h100_class ? "h100-80g" : "a100-80g");
  s.name = std::string(g.name);
  for (const char* type : {"float16", "bfloat16"}) {
    if (g.fp16_tensor_tflops > 0) {
      s.matrix[type].peak_flops = g.fp16_tensor_tflops * 1e12;
    }
  }
  s.mem1.capacity = static_cast<double>(visible_memory(g));
  if (g.memory_bandwidth > 0) {
    s.mem1.bandwidth = g.memory_bandwidth;
  }
  return s;
}

llm::System llm_system(const LlmSpec& spec, const std::string& gpu) {
  return spec.system ? *spec.system : llm_system_for_gpu(gpu);
}

namespace {

bool spans_pods(const LlmSpec& spec, int pod_gpus) {
  return spec.execution.num_procs > std::max(1, pod_gpus);
}

// Bytes a pod sends over the fabric per step: each of its GPUs' pipeline and data-parallel
// traffic leaves through its own NIC.
double pod_fabric_bytes(const LlmSpec& spec, int pod_gpus) {
  return llm::fabric_bytes_per_gpu(spec.model, spec.execution) * std::max(1, pod_gpus);
}

// The networks of the job's groups: TP on the system's first (NVLink); PP and DP there too for one
// pod, else on the fabric at the per-GPU share of the ring's burst bandwidth.
llm::NetworkChoice networks(const LlmSpec& spec, const llm::System& system, const StepConditions& c,
                            int pod_gpus) {
  const llm::Network& nvlink = system.networks.front();
  llm::NetworkChoice nets{nvlink, nvlink, nvlink};
  if (spans_pods(spec, pod_gpus) && std::isfinite(c.allreduce_bandwidth)) {
    llm::Network fabric = system.networks.size() > 1 ? system.networks[1] : nvlink;
    fabric.bandwidth = c.allreduce_bandwidth / std::max(1, pod_gpus);
    fabric.efficiency = 1.0;  // the fabric's capacities already count its efficiency
    fabric.latency = c.allreduce_latency;
    fabric.must_be_filled = false;
    nets.pp = fabric;
    nets.dp = fabric;
  }
  return nets;
}

}  // namespace

StepTime llm_step_time(const LlmSpec& spec, const llm::System& system, const StepConditions& c,
                       int pod_gpus) {
  const llm::StepBreakdown b =
      llm::step(spec.model, spec.execution, system, networks(spec, system, c, pod_gpus));
  StepTime s;
  const double compute = b.parts.compute();
  s.compute_seconds = compute / c.compute_share;
  s.sync_seconds = b.parts.dp_comm + b.parts.pp_comm;
  s.seconds = s.compute_seconds + (b.step_seconds - compute);
  if (spans_pods(spec, pod_gpus)) {
    const double volume = pod_fabric_bytes(spec, pod_gpus);
    s.seconds = std::max(s.seconds, volume / c.allreduce_average_bandwidth);
    // The fabric's share of the step: what is neither compute nor on-node communication.
    const double on_fabric =
        s.seconds - s.compute_seconds - (b.step_seconds - compute - s.sync_seconds);
    s.allreduce_effective_bandwidth =
        on_fabric > 0 ? std::min(c.allreduce_bandwidth, volume / on_fabric) : c.allreduce_bandwidth;
  }
  s.gpu_utilization = s.seconds > 0 ? std::min(1.0, compute / s.seconds) : 0.0;
  s.mfu = s.seconds > 0 ? b.mfu * b.step_seconds / s.seconds : 0.0;
  return s;
}

double llm_average_demand(const LlmSpec& spec, const llm::System& system, const StepConditions& c,
                          int pod_gpus) {
  if (!spans_pods(spec, pod_gpus)) {
    return 0.0;
  }
  StepConditions burst = c;
  burst.allreduce_average_bandwidth = std::numeric_limits<double>::infinity();
  const double seconds = llm_step_time(spec, system, burst, pod_gpus).seconds;
  const double volume = pod_fabric_bytes(spec, pod_gpus);
  return seconds > 0 ? volume / seconds : 0.0;
}

ModelProfile llm_profile(const LlmSpec& spec, const llm::System& system, const std::string& gpu) {
  const llm::StepBreakdown b =
      llm::step(spec.model, spec.execution, system, llm::networks_of(system, spec.execution));
  ModelProfile p;
  p.model = spec.model.name;
  p.gpu = gpu;
  p.precision = spec.execution.datatype;
  p.batch_size = static_cast<int>(spec.execution.microbatch_size);
  const auto bytes = [](double x) {
    return static_cast<std::int64_t>(std::min(x, static_cast<double>(kMaxWorkerMemoryBytes)));
  };
  p.model_state_bytes = bytes(b.memory.weights + b.memory.gradients + b.memory.optimizer);
  p.activation_bytes = bytes(b.memory.activations + b.memory.activation_workspace);
  p.compute_seconds = b.parts.compute();
  return p;
}

ModelProfile job_profile(const JobSpec& job, const Catalogue& catalogue, const std::string& gpu) {
  if (job.llm) {
    return llm_profile(*job.llm, llm_system(*job.llm, gpu), gpu);
  }
  ModelProfile p = catalogue.profile(job.model, job.batch_size, job.precision, gpu);
  if (!holds_memory(job)) {
    p.context_bytes = p.model_state_bytes = p.activation_bytes = p.workspace_bytes = 0;
    p.peak = {};
  }
  return p;
}

StepTime job_step_time(const JobSpec& job, const ModelProfile& profile, const StepConditions& c) {
  if (job.llm) {
    return llm_step_time(*job.llm, llm_system(*job.llm, profile.gpu), c,
                         static_cast<int>(job.pod_template.requests.gpus));
  }
  return step_time(profile, c);
}

double job_average_demand(const JobSpec& job, const ModelProfile& profile,
                          const StepConditions& c) {
  if (job.llm) {
    return llm_average_demand(*job.llm, llm_system(*job.llm, profile.gpu), c,
                              static_cast<int>(job.pod_template.requests.gpus));
  }
  return allreduce_average_demand(profile, c);
}

}  // namespace tidesim::workloads
