#include "tidesim/workloads/pollux_source.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

#include "tidesim/workloads/csv.hpp"
#include "tidesim/workloads/pollux.hpp"
#include "tidesim/workloads/pollux_elastic.hpp"
#include "tidesim/workloads/pollux_generate.hpp"

namespace tidesim::workloads {

namespace {

// One job of a Pollux workload from its row; `error(field, message)` places a bad row.
JobSpec pollux_job(const PolluxSource& source, const std::shared_ptr<const PolluxApplication>& it,
                   const std::string& name, double time, std::int64_t replicas,
                   std::int64_t batch_size,
                   const std::function<InputError(const std::string&, const std::string&)>& error) {
  const PolluxApplication& app = *it;
  JobSpec job;
  job.name = name;
  job.job_class = app.name();
  if (job.name.empty()) {
    throw error("name", "empty job name");
  }
  job.submit_time = TimePoint(from_seconds(time));
  job.replicas = static_cast<int>(replicas);
  const auto batch = static_cast<int>(batch_size);
  const auto local = app.local_batch(batch, job.replicas);
  if (local.atomic < 1) {
    throw error("num_replicas",
                fmt::format("{} replicas cannot split a batch of {} ({} takes at most {})",
                            job.replicas, batch, app.name(), app.max_batch_size()));
  }
  const int actual = job.replicas * local.atomic * (local.accum_steps + 1);
  job.steps = std::max<std::int64_t>(1, std::llround(app.work_steps(actual)));
  job.pod_template = source.pod;
  job.pod_template.name = job.name;
  job.pod_template.requests.gpus = 1;
  job.model = source.model;
  job.batch_size = source.batch_size;
  job.precision = source.precision;
  job.checkpoint_interval = source.checkpoint_interval;
  job.gang = source.gang;
  job.measured =
      std::make_shared<const PolluxSpeed>(it, batch, job.replicas, source.whole_epochs, job.steps);
  if (source.elastic != PolluxSource::Elastic::kNone) {
    // simulator.py: ncf runs on one GPU under Optimus and Pollux (max_replicas = 1), at a batch
    // of 32,768 under Pollux (Cluster.__init__).
    const bool ncf = app.name() == "ncf";
    const int pinned = ncf ? std::min(32'768, app.max_batch_size()) : 0;
    int fixed = source.elastic == PolluxSource::Elastic::kFixed ? batch : 0;
    if (fixed == 0) {
      fixed = pinned;
    }
    const int most = fixed > 0 ? std::max(1, fixed / app.min_local_bsz()) : 0;
    const auto model = std::make_shared<const PolluxElastic>(it, fixed, 1, ncf ? 1 : most, pinned,
                                                             source.whole_epochs);
    job.replicas = std::clamp(job.replicas, model->min_replicas(), model->max_replicas());
    job.steps = model->steps();
    job.measured = model->speed(job.replicas, 0);
    job.elastic = model;
  }
  return job;
}

}  // namespace

std::vector<JobSpec> pollux_jobs(const PolluxSource& source, RandomStream& rng) {
  const auto apps = load_pollux_applications(source.applications);
  std::vector<JobSpec> jobs;
  if (source.generate) {
    const PolluxGenerate& g = *source.generate;
    for (const PolluxRow& row :
         generate_pollux_rows(g.trace, g.jobs, g.start_hour, g.hours, apps, rng, source.where)) {
      jobs.push_back(pollux_job(source, apps.at(row.application), row.name, row.time, row.replicas,
                                row.batch_size,
                                [&source](const std::string& field, const std::string& message) {
                                  return InputError(source.where, field, message);
                                }));
    }
    return jobs;
  }
  const CsvTable t(source.file, {"name", "time", "application", "num_replicas", "batch_size"}, {});
  for (std::size_t r = 0; r < t.rows(); ++r) {
    const auto it = apps.find(t.text(r, "application"));
    if (it == apps.end()) {
      throw t.error(r, "application",
                    "unknown application (bert, cifar10, deepspeech2, imagenet, ncf, yolov3)");
    }
    const PolluxApplication& app = *it->second;
    jobs.push_back(
        pollux_job(source, it->second, t.text(r, "name"), t.number(r, "time", 0, 3.0e10),
                   t.integer(r, "num_replicas", 1, 4096),
                   t.integer(r, "batch_size", app.init_batch_size(), app.max_batch_size()),
                   [&t, r](const std::string& field, const std::string& message) {
                     return t.error(r, field, message);
                   }));
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](const JobSpec& a, const JobSpec& b) {
    return a.submit_time < b.submit_time;
  });
  return jobs;
}

}  // namespace tidesim::workloads
