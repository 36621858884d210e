#include "tidesim/workloads/pollux_elastic.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>

namespace tidesim::workloads {
namespace {

constexpr double kEps = 1e-8;         // the artifact's tolerance for floor and ceil (goodput.py)
constexpr int kBatchCandidates = 50;  // np.geomspace's default count (GoodputFunction.optimize)

int ceil_eps(double x) {
  return static_cast<int>(std::ceil(x - kEps));
}

int replicas_of(const std::vector<int>& gpus_per_node) {
  int r = 0;
  for (const int g : gpus_per_node) {
    r += std::max(g, 0);
  }
  return r;
}

// The configuration at total batch `batch` split as `local` on the placement.
PolluxConfig evaluate(const PolluxApplication& app, const std::vector<int>& gpus_per_node,
                      int epoch, const PolluxApplication::LocalBatch& local, int replicas) {
  PolluxConfig c;
  c.local = local;
  c.batch_size = replicas * local.atomic * (local.accum_steps + 1);
  const PolluxSample s = app.throughput(gpus_per_node, local.atomic);
  c.step_seconds = s.step_time + (s.step_time - s.sync_time) * local.accum_steps;
  c.compute_seconds = (s.step_time - s.sync_time) * (1 + local.accum_steps);
  c.goodput = app.gain(c.batch_size, epoch) / c.step_seconds;
  return c;
}

}  // namespace

PolluxConfig pollux_config(const PolluxApplication& app, const std::vector<int>& gpus_per_node,
                           int epoch, int batch_size) {
  const int replicas = replicas_of(gpus_per_node);
  if (replicas < 1) {
    throw std::invalid_argument("a Pollux configuration needs at least one GPU");
  }
  if (batch_size > 0) {
    return evaluate(app, gpus_per_node, epoch, app.local_batch(batch_size, replicas), replicas);
  }
  // AdaptDL's choice (GoodputFunction.optimize with accumulation, then Job.update_local_bsz's
  // cap of the atomic batch at max_batch / (replicas x (accum + 1))).
  const double lo =
      std::max<double>(app.init_batch_size(), static_cast<double>(app.min_local_bsz()) * replicas);
  const double hi = std::max<double>(lo, app.max_batch_size());
  PolluxConfig best;
  bool found = false;
  for (int i = 0; i < kBatchCandidates; ++i) {
    const double batch =
        i == kBatchCandidates - 1
            ? hi
            : lo * std::pow(hi / lo, static_cast<double>(i) / (kBatchCandidates - 1));
    const double local = batch / replicas;
    PolluxApplication::LocalBatch b;
    b.accum_steps = ceil_eps(local / app.max_local_bsz()) - 1;
    if (replicas == 1 && local > app.init_batch_size() + kEps) {
      b.accum_steps = std::max(b.accum_steps, 1);
    }
    b.atomic = ceil_eps(local / (b.accum_steps + 1));
    if (b.atomic < app.min_local_bsz() || b.atomic > app.max_local_bsz()) {
      continue;
    }
    b.atomic = std::min(b.atomic, app.max_batch_size() / (replicas * (b.accum_steps + 1)));
    if (b.atomic < 1) {
      continue;
    }
    const PolluxConfig c = evaluate(app, gpus_per_node, epoch, b, replicas);
    if (!found || c.goodput > best.goodput) {  // the first of equals, as argmax
      best = c;
      found = true;
    }
  }
  if (!found) {  // no valid split (more replicas than the largest batch allows): one per GPU
    return evaluate(app, gpus_per_node, epoch,
                    app.local_batch(std::max(app.max_batch_size(), replicas), replicas), replicas);
  }
  return best;
}

PolluxElasticSpeed::PolluxElasticSpeed(std::shared_ptr<const PolluxApplication> app, int batch_size,
                                       bool whole_epochs)
    : app_(std::move(app)), batch_size_(batch_size), whole_epochs_(whole_epochs) {}

int PolluxElasticSpeed::epoch_at(double done) const {
  // The last epoch whose start is at or before `done` (progress is non-decreasing).
  int lo = 0;
  int hi = app_->max_epochs() - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (app_->progress(mid) <= done) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

double PolluxElasticSpeed::seconds_per_unit(const PolluxConfig& c, double done) const {
  if (!whole_epochs_) {
    return 1.0 / c.goodput;
  }
  const int e = epoch_at(done);
  const double end = app_->progress(e + 1);
  // The units the run counts to: the epoch's end, or in the last epoch the job's whole units
  // (PolluxElastic::steps), which the rounded time is spread over.
  const double target = e + 1 < app_->max_epochs()
                            ? end
                            : static_cast<double>(std::max<std::int64_t>(1, std::llround(end)));
  if (target <= done || end <= done) {
    return 1.0 / c.goodput;
  }
  // Python 3's round(): halves to even, as nearbyint in the default rounding mode. An epoch
  // the artifact ends at once (under half a second left) takes a microsecond here.
  const double seconds = std::max(std::nearbyint((end - done) / c.goodput), 1e-6);
  return seconds / (target - done);
}

double PolluxElasticSpeed::step_seconds_at(const std::vector<int>& gpus_per_node,
                                           double done) const {
  return seconds_per_unit(pollux_config(*app_, gpus_per_node, epoch_at(done), batch_size_), done);
}

double PolluxElasticSpeed::compute_seconds_at(const std::vector<int>& gpus_per_node,
                                              double done) const {
  const PolluxConfig c = pollux_config(*app_, gpus_per_node, epoch_at(done), batch_size_);
  return c.compute_seconds / c.step_seconds * seconds_per_unit(c, done);
}

std::optional<double> PolluxElasticSpeed::next_change(double done) const {
  const int e = epoch_at(done);
  if (e + 1 >= app_->max_epochs()) {
    return std::nullopt;
  }
  return app_->progress(e + 1);
}

std::optional<StepReport> PolluxElasticSpeed::report(const std::vector<int>& gpus_per_node,
                                                     double done) const {
  const int epoch = epoch_at(done);
  const PolluxConfig c = pollux_config(*app_, gpus_per_node, epoch, batch_size_);
  const PolluxSample s = app_->throughput(gpus_per_node, c.local.atomic);
  StepReport r;
  r.atomic_bsz = c.local.atomic;
  r.accum_steps = c.local.accum_steps;
  r.step_time = s.step_time;
  r.sync_time = s.sync_time;
  std::tie(r.grad_sqr, r.grad_var) = app_->grad_stats(c.batch_size, epoch);
  return r;
}

double PolluxElasticSpeed::step_seconds(const std::vector<int>& gpus_per_node) const {
  double seconds = 0;
  for (int e = 0; e < app_->max_epochs(); ++e) {
    const double units = app_->progress(e + 1) - app_->progress(e);
    seconds += units / pollux_config(*app_, gpus_per_node, e, batch_size_).goodput;
  }
  return seconds / app_->progress(app_->max_epochs());
}

double PolluxElasticSpeed::compute_seconds(const std::vector<int>& gpus_per_node) const {
  double seconds = 0;
  for (int e = 0; e < app_->max_epochs(); ++e) {
    const double units = app_->progress(e + 1) - app_->progress(e);
    const PolluxConfig c = pollux_config(*app_, gpus_per_node, e, batch_size_);
    seconds += units / c.goodput * c.compute_seconds / c.step_seconds;
  }
  return seconds / app_->progress(app_->max_epochs());
}

PolluxElastic::PolluxElastic(std::shared_ptr<const PolluxApplication> app, int batch_size,
                             int min_replicas, int max_replicas, int adaptive_batch,
                             bool whole_epochs)
    : app_(std::move(app)),
      batch_size_(batch_size),
      min_replicas_(std::max(1, min_replicas)),
      max_replicas_(max_replicas > 0 ? max_replicas
                                     : std::max(1, app_->max_batch_size() / app_->min_local_bsz())),
      adaptive_batch_(adaptive_batch),
      whole_epochs_(whole_epochs) {
  if (min_replicas_ > max_replicas_) {
    throw std::invalid_argument("elastic " + app_->name() + ": min replicas " +
                                std::to_string(min_replicas_) + " above max " +
                                std::to_string(max_replicas_));
  }
}

std::shared_ptr<const MeasuredSpeed> PolluxElastic::speed(int replicas, int batch_size) const {
  (void)replicas;  // the placement carries the replica count
  const int batch = batch_size > 0                 ? batch_size
                    : batch_size == kAdaptiveBatch ? adaptive_batch_
                                                   : batch_size_;
  return std::make_shared<const PolluxElasticSpeed>(app_, batch, whole_epochs_);
}

std::int64_t PolluxElastic::steps() const {
  return std::max<std::int64_t>(1, std::llround(app_->progress(app_->max_epochs())));
}

}  // namespace tidesim::workloads
