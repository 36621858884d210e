#pragma once
/// Kubernetes manifests as job templates: batch/v1 Job and v1 Pod, one or many YAML documents per
/// file. Fields that change placement are read; fields that cannot change a simulated run
/// (commands, volumes, probes, ...) are accepted and ignored; anything else, and any supported-
/// looking field the simulator cannot honour (priorityClassName, namespaceSelector, ...), is an
/// InputError naming file, line and field. docs/scenario-workload.md lists them. The pod template
/// is read by the shared Pod reader (sim/api/pod_yaml.hpp, PodReadMode::kManifest).
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "sim/api/api.hpp"
#include "sim/engine/error.hpp"
#include "workloads/job.hpp"

namespace tidesim::workloads {

/// What one manifest describes.
struct JobTemplate {
  /// "Job" or "Pod".
  std::string kind;
  /// metadata.name (or generateName for a Job/Pod that only has that).
  std::string name;
  /// The pod template: containers, init containers and overhead with the effective request
  /// (pod_requests), labels and annotations of the pod template, first container's env and
  /// image, selectors, affinity, tolerations, priority, schedulerName.
  PodSpec pod;
  /// Job spec.parallelism (pods running at once); 1 for a Pod.
  int parallelism = 1;
  /// Job spec.completions (defaults to parallelism); 1 for a Pod.
  int completions = 1;
  /// Job spec.backoffLimit (default 6); 0 for a Pod (a bare pod is not restarted by a Job
  /// controller).
  int backoff_limit = 6;
  /// The Job's restartPolicy (Never when the template sets none; a bare Pod: Never).
  RestartPolicy restart_policy = RestartPolicy::kNever;
  /// Where the document starts.
  SourceLocation where;
};

/// Reads one manifest document from `file` (used in errors).
JobTemplate parse_manifest(const YAML::Node& document, const std::string& file);

/// Reads every document of a YAML text ("---" separated); empty documents are skipped, and at
/// least one manifest is required.
std::vector<JobTemplate> parse_manifests(const std::string& text, const std::string& name);

/// Reads every document of a manifest file.
std::vector<JobTemplate> load_manifests(const std::string& path);

}  // namespace tidesim::workloads
