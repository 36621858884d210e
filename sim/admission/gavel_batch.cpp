#include "tidesim/sim/admission/gavel_batch.hpp"

#include <algorithm>
#include <cmath>

namespace tidesim::gavel {
namespace {

// The job's speed when it is a row of Shockwave's layout; null otherwise.
const workloads::GavelSpeed* shockwave_row(const JobView& v) {
  if (v.spec == nullptr || !v.spec->measured) {
    return nullptr;
  }
  const auto* g = dynamic_cast<const workloads::GavelSpeed*>(v.spec->measured.get());
  return g != nullptr && g->shockwave_batch() != nullptr ? g : nullptr;
}

// The steps of an epoch at `batch`: ceil(dataset / batch).
double epoch_steps(const workloads::ShockwaveModel& m, int batch) {
  return std::ceil(static_cast<double>(m.dataset) / batch);
}

// The simulator's epochs of a job `done` steps into its work at `batch` (_get_num_epochs:
// ceil(steps run / steps an epoch)).
double epochs_run(const workloads::ShockwaveModel& m, int batch, double done) {
  return std::ceil(done / epoch_steps(m, batch) - 1e-9);
}

void update_view(JobView& v, const workloads::GavelSpeed& speed, double done, double steps) {
  v.steps = static_cast<std::int64_t>(steps);
  v.progress = steps > 0.0 ? done / steps : 0.0;
  v.steps_left = speed.steps_left_at(done, steps);
  v.throughputs = speed.throughputs_at(done);
}

}  // namespace

BatchWork rescale(const workloads::ShockwaveModel& m, int from, int to, double done, double steps) {
  const double epoch_from = epoch_steps(m, from);
  const double epoch_to = epoch_steps(m, to);
  const double epochs = std::ceil(steps / epoch_from - 1e-9);
  double total = std::ceil(steps * from / to - 1e-9);
  if (std::ceil(total / epoch_to - 1e-9) != epochs) {
    total = epoch_to * epochs;
  }
  return {.done = epochs_run(m, from, done) * epoch_to, .steps = total};
}

std::map<int, SpeedChange> BatchChanges::round(std::vector<JobView>& jobs,
                                               const std::vector<int>& ran) {
  std::map<int, SpeedChange> out;
  std::map<int, int> asked;
  for (JobView& v : jobs) {
    const auto now = speeds_.find(v.id);
    const workloads::GavelSpeed* speed =
        now != speeds_.end() ? now->second.get() : shockwave_row(v);
    if (speed == nullptr) {
      continue;
    }
    const workloads::ShockwaveBatch& was = *speed->shockwave_batch();
    double steps = static_cast<double>(v.steps);
    double done = v.progress * steps;
    std::shared_ptr<const workloads::GavelSpeed> next;
    if (now == speeds_.end()) {  // the trace's steps at the initial batch
      steps = static_cast<double>(std::max<std::int64_t>(1, was.total_steps));
      done = v.progress * steps;
      next = speed->at_batch(was.model.batch, steps);
    } else if (const auto a = asked_.find(v.id);
               a != asked_.end() && std::binary_search(ran.begin(), ran.end(), v.id)) {
      const BatchWork work = rescale(was.model, was.batch, a->second, done, steps);
      next = speed->at_batch(a->second, work.steps);
      if (next) {
        done = std::min(work.done, work.steps);
        steps = work.steps;
      }
    } else if (a != asked_.end()) {
      asked[v.id] = a->second;  // still asked: it has not run since
    }
    if (next) {
      update_view(v, *next, done, steps);
      speeds_[v.id] = next;
      speed = next.get();
      out[v.id] = {.speed = next,
                   .done = done,
                   .steps = static_cast<std::int64_t>(steps),
                   .elastic = std::make_shared<workloads::GavelFixedSize>(v.replicas, next)};
    }
    const workloads::ShockwaveBatch& b = *speed->shockwave_batch();
    // _update_shockwave_scheduler: floor(steps run / steps an epoch at the batch now).
    v.epochs_done = std::floor(done / epoch_steps(b.model, b.batch) + 1e-9);
    if (asked.contains(v.id)) {
      continue;
    }
    if (const auto want = workloads::shockwave_batch_request(
            b.model, b.mode, b.batch, static_cast<std::int64_t>(epochs_run(b.model, b.batch, done)),
            b.scale_factor)) {
      asked[v.id] = *want;
    }
  }
  asked_ = std::move(asked);
  std::vector<int> active;
  for (const JobView& v : jobs) {
    active.push_back(v.id);
  }
  std::sort(active.begin(), active.end());
  std::erase_if(speeds_, [&active](const auto& s) {
    return !std::binary_search(active.begin(), active.end(), s.first);
  });
  return out;
}

}  // namespace tidesim::gavel
