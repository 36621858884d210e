#include "tidesim/sim/experiments/offered_load.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "tidesim/sim/engine/fluid.hpp"
#include "tidesim/sim/model/cluster.hpp"
#include "tidesim/sim/model/reference_speed.hpp"
#include "tidesim/workloads/uncontended_time.hpp"

namespace tidesim {
namespace {

// A job's class: its name less a trailing "-<arrival index>".
std::string class_of(const std::string& name) {
  const auto dash = name.rfind('-');
  if (dash == std::string::npos || dash + 1 == name.size() ||
      !std::all_of(name.begin() + static_cast<long>(dash) + 1, name.end(),
                   [](unsigned char c) { return std::isdigit(c) != 0; })) {
    return name;
  }
  return name.substr(0, dash);
}

// GPUs the whole job asks: every pod's whole GPUs, or its share of one.
double asked_gpus(const workloads::JobSpec& job) {
  const auto& r = job.pod_template.requests;
  const double per_pod =
      r.gpus > 0 ? static_cast<double>(r.gpus) : static_cast<double>(r.gpu_milli) / 1000.0;
  return per_pod * std::max(1, job.replicas);
}

// A duration for people: seconds, minutes, hours or days with three significant digits.
std::string span_text(double s) {
  if (s < 120.0) {
    return fmt::format("{:.0f} s", s);
  }
  if (s < 7200.0) {
    return fmt::format("{:.1f} min", s / 60.0);
  }
  if (s < 3.0 * 86400.0) {
    return fmt::format("{:.1f} h", s / 3600.0);
  }
  return fmt::format("{:.1f} d", s / 86400.0);
}

}  // namespace

std::optional<double> OfferedLoad::load() const {
  if (window_s() <= 0.0 || capacity_gpus <= 0.0) {
    return std::nullopt;
  }
  return gpu_seconds / (capacity_gpus * window_s());
}

double OfferedLoad::drain_s() const {
  return capacity_gpus > 0.0 ? gpu_seconds / capacity_gpus : 0.0;
}

namespace {

// The run time the model gives `job` alone on its reference placement: its steps x its reference
// step; a measured (elastic) job's at its GPUs packed onto nodes of `node_gpus`, as the job-level
// policies reckon it (workloads::uncontended_seconds); 0 when unknown.
double alone_seconds(const workloads::JobSpec& job, const Workload& workload,
                     const std::string& gpu, int node_gpus) {
  if (job.reference_step_seconds > 0.0 && job.steps > 0) {
    return static_cast<double>(job.steps) * job.reference_step_seconds;
  }
  if (job.measured) {
    try {
      return workloads::uncontended_seconds(job, workload.catalogue, gpu, node_gpus);
    } catch (const std::exception&) {
      return 0.0;  // no profile of its model there
    }
  }
  return 0.0;
}

// "751", "1.24", "0.0417": GPU-hours with three significant digits, whole from 100 up.
std::string hours_text(double gpu_seconds) {
  const double h = gpu_seconds / 3600.0;
  return h >= 100.0 ? fmt::format("{:.0f}", h) : fmt::format("{:.3g}", h);
}

}  // namespace

OfferedLoad offered_load(const Scenario& scenario, const Workload& workload) {
  OfferedLoad out;
  int node_gpus = 0;
  {
    FluidSolver fluid;
    const Cluster cluster(scenario, fluid);
    for (const auto& n : cluster.nodes()) {
      const int cards = n.gpus ? n.gpus->card_count() : 0;
      out.capacity_gpus += cards;
      node_gpus = std::max(node_gpus, cards);
    }
  }
  const std::string fallback = default_reference_gpu(scenario);
  std::map<std::string, JobClassLoad> classes;
  for (const auto& job : workload.jobs) {
    const double submit = to_seconds(job.submit_time);
    out.first_submit_s = out.jobs == 0 ? submit : std::min(out.first_submit_s, submit);
    out.last_submit_s = out.jobs == 0 ? submit : std::max(out.last_submit_s, submit);
    ++out.jobs;
    const std::string gpu = workloads::reference_gpu_of(job, fallback);
    const double seconds = alone_seconds(job, workload, gpu, node_gpus);
    if (seconds <= 0.0) {
      ++out.unknown;
      continue;
    }
    const double gpus = asked_gpus(job);
    JobClassLoad& c = classes[class_of(job.name)];
    c.name = class_of(job.name);
    c.jobs += 1;
    c.gpus += gpus;
    c.run_seconds += seconds;
    c.gpu_seconds += gpus * seconds;
    c.reference_gpu = gpu;
    out.gpu_seconds += gpus * seconds;
  }
  for (auto& [name, c] : classes) {
    out.classes.push_back(std::move(c));
  }
  std::stable_sort(
      out.classes.begin(), out.classes.end(),
      [](const JobClassLoad& a, const JobClassLoad& b) { return a.gpu_seconds > b.gpu_seconds; });
  return out;
}

std::vector<std::string> offered_load_lines(const OfferedLoad& load, std::size_t max_classes) {
  std::vector<std::string> out;
  if (load.unknown == load.jobs) {
    out.push_back(fmt::format("offered load unknown: no job has a known run time alone"));
  } else if (const auto l = load.load()) {
    out.push_back(fmt::format(
        "offered load {:.3g}%: {} GPU-h asked over {:.0f} GPUs x {} of arrivals (run times "
        "alone on each job's reference GPU)",
        *l * 100.0, hours_text(load.gpu_seconds), load.capacity_gpus, span_text(load.window_s())));
  } else if (load.capacity_gpus > 0.0) {
    out.push_back(fmt::format(
        "jobs arrive at once: {} GPU-h asked, {} of the whole cluster's {:.0f} GPUs (run "
        "times alone on each job's reference GPU)",
        hours_text(load.gpu_seconds), span_text(load.drain_s()), load.capacity_gpus));
  }
  if (load.unknown > 0) {
    out.push_back(fmt::format("  {} of {} jobs without a known run time alone are left out",
                              load.unknown, load.jobs));
  }
  for (std::size_t i = 0; i < load.classes.size() && i < max_classes; ++i) {
    const JobClassLoad& c = load.classes[i];
    const double gpus = c.gpus / static_cast<double>(c.jobs);
    out.push_back(fmt::format(
        "  {}: {} jobs of {:.3g} GPU{}, {} alone on {} (mean), {} GPU-h", c.name, c.jobs, gpus,
        gpus == 1.0 ? "" : "s", span_text(c.run_seconds / static_cast<double>(c.jobs)),
        c.reference_gpu.empty() ? "no GPU" : c.reference_gpu, hours_text(c.gpu_seconds)));
  }
  if (load.classes.size() > max_classes) {
    out.push_back(fmt::format("  and {} more job classes", load.classes.size() - max_classes));
  }
  return out;
}

std::optional<std::string> overload_warning(const OfferedLoad& load) {
  const auto l = load.load();
  if (!l || *l <= 1.0) {
    return std::nullopt;
  }
  return fmt::format(
      "offered load {:.3g}%: the jobs ask {} GPU-h over {} of arrivals, more than the "
      "cluster's {:.0f} GPUs can give ({} GPU-h); the queue grows for as long as jobs arrive "
      "and the run lasts at least {} from the first arrival ({:.1f} x the arrival window)",
      *l * 100.0, hours_text(load.gpu_seconds), span_text(load.window_s()), load.capacity_gpus,
      hours_text(load.capacity_gpus * load.window_s()), span_text(load.drain_s()), *l);
}

std::string makespan_line(const OfferedLoad& load, const std::vector<PolicyMakespan>& makespans) {
  const bool window = load.window_s() > 0.0;
  const double against = window ? load.window_s() : load.drain_s();
  std::string out =
      window ? fmt::format("makespan against the arrival window ({}):", span_text(against))
             : fmt::format(
                   "makespan against the whole cluster's time for the "
                   "work ({}):",
                   span_text(against));
  for (std::size_t i = 0; i < makespans.size(); ++i) {
    const PolicyMakespan& m = makespans[i];
    out += fmt::format("{} {} {}{}", i == 0 ? "" : ",", m.policy, span_text(m.seconds),
                       m.unfinished ? " (jobs unfinished at the end)" : "");
    if (against > 0.0) {
      out += fmt::format(" ({:.1f} x)", m.seconds / against);
    }
  }
  return out;
}

}  // namespace tidesim
