#include "workloads/manifest.hpp"

#include <initializer_list>

#include "sim/api/pod_yaml.hpp"
#include "sim/engine/yaml_fields.hpp"

namespace tidesim::workloads {
namespace {

// Marks keys that never change a simulated run as allowed (their values are not read).
void ignore(Fields& f, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    f.get(k);
  }
}

// Rejects keys the simulator cannot honour, with a reason.
void reject(Fields& f, std::initializer_list<const char*> keys, const std::string& why) {
  for (const char* k : keys) {
    if (f.has(k)) {
      throw f.error(f.get(k), k, "not supported: " + why);
    }
  }
}

}  // namespace

JobTemplate parse_manifest(const YAML::Node& doc, const std::string& file) {
  Fields top(doc, file, "");
  JobTemplate t;
  t.where = location_of(doc, file);
  const std::string api = top.string("apiVersion");
  t.kind = top.string("kind");
  if (!((t.kind == "Job" && api == "batch/v1") || (t.kind == "Pod" && api == "v1"))) {
    throw top.error(
        top.get("kind"), "kind",
        "unsupported kind '" + api + " " + t.kind + "'; supported: batch/v1 Job, v1 Pod");
  }
  PodSpec& pod = t.pod;
  if (top.has("metadata")) {
    // An object's own labels and annotations belong to the pod only for a Pod.
    read_pod_metadata(top.get("metadata"), file, "metadata", PodReadMode::kManifest, &t.name,
                      t.kind == "Pod" ? &pod : nullptr);
  }
  ignore(top, {"status"});
  if (t.kind == "Pod") {
    read_pod_spec(top.require("spec"), file, "spec", PodReadMode::kManifest, pod);
    t.parallelism = 1;
    t.completions = 1;
    t.backoff_limit = 0;
  } else {
    Fields spec(top.require("spec"), file, "spec");
    t.parallelism = static_cast<int>(spec.integer("parallelism", 1, 1, 100'000));
    t.completions = static_cast<int>(spec.integer("completions", t.parallelism, 1, 100'000));
    t.backoff_limit = static_cast<int>(spec.integer("backoffLimit", 6, 0, 1'000'000));
    Fields tmpl(spec.require("template"), file, "spec.template");
    if (tmpl.has("metadata")) {
      read_pod_metadata(tmpl.get("metadata"), file, "spec.template.metadata",
                        PodReadMode::kManifest, nullptr, &pod);
    }
    const YAML::Node pod_spec = tmpl.require("spec");
    read_pod_spec(pod_spec, file, "spec.template.spec", PodReadMode::kManifest, pod);
    tmpl.finish();
    // A Job's pods restart Never or OnFailure (the API server rejects Always). The seed's
    // manifests set none: tidesim applies Never, the Job controller's own replacement
    // (docs/model-workloads.md, "Restarts").
    if (pod.restart_policy == "Always") {
      Fields ps(pod_spec, file, "spec.template.spec");
      throw ps.error(ps.get("restartPolicy"), "restartPolicy",
                     "a Job's pods must restart Never or OnFailure, not Always");
    }
    t.restart_policy =
        pod.restart_policy == "OnFailure" ? RestartPolicy::kOnFailure : RestartPolicy::kNever;
    reject(spec,
           {"podFailurePolicy", "successPolicy", "backoffLimitPerIndex", "maxFailedIndexes",
            "podReplacementPolicy"},
           "only backoffLimit governs restarts in the simulator");
    ignore(spec, {"activeDeadlineSeconds", "ttlSecondsAfterFinished", "completionMode", "selector",
                  "manualSelector", "suspend", "managedBy"});
    spec.finish();
    // The Job controller labels its pods with the job's name.
    if (!t.name.empty()) {
      pod.labels.emplace("job-name", t.name);
      pod.labels.emplace("batch.kubernetes.io/job-name", t.name);
    }
  }
  pod.name = t.name;
  top.finish();
  return t;
}

std::vector<JobTemplate> parse_manifests(const std::string& text, const std::string& name) {
  // A yaml-cpp exception escaping the reader (a bad conversion, say) still names the file.
  return yaml_guard(name, [&] {
    std::vector<JobTemplate> out;
    for (const auto& doc : load_all_yaml_string(text, name)) {
      if (!doc || doc.IsNull()) {
        continue;
      }
      out.push_back(parse_manifest(doc, name));
    }
    if (out.empty()) {
      throw InputError(SourceLocation{name, 0, 0}, "", "no manifest in the file");
    }
    return out;
  });
}

std::vector<JobTemplate> load_manifests(const std::string& path) {
  std::vector<JobTemplate> out;
  for (const auto& doc : load_all_yaml_file(path)) {
    if (!doc || doc.IsNull()) {
      continue;
    }
    out.push_back(parse_manifest(doc, path));
  }
  if (out.empty()) {
    throw InputError(SourceLocation{path, 0, 0}, "", "no manifest in the file");
  }
  return out;
}

}  // namespace tidesim::workloads
