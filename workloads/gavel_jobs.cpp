#include "tidesim/workloads/gavel_jobs.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "tidesim/workloads/shockwave_batch.hpp"

namespace tidesim::workloads {
namespace {

using Segments = std::vector<SpeedSegment>;

// A time far beyond any run for a step on a model the job cannot run on (a policy never places
// it there: its throughput row says 0).
constexpr double kNoSpeed = 1e15;

const Segments* find_segments(const std::map<std::string, Segments>& all, const std::string& gpu) {
  const auto it = all.find(gpu);
  return it == all.end() ? nullptr : &it->second;
}

const SpeedSegment* segment_at(const Segments& s, double done) {
  for (const SpeedSegment& x : s) {
    if (done < x.end) {
      return &x;
    }
  }
  return s.empty() ? nullptr : &s.back();
}

double seconds_at(const Segments& s, double done) {
  const SpeedSegment* x = segment_at(s, done);
  return x == nullptr ? kNoSpeed : x->seconds;
}

std::string with_batch(const ShockwaveModel& m, int batch) {
  return m.family + " (batch size " + std::to_string(batch) + ")";
}

// Seconds per unit (and steps per unit) of each epoch at `batches` on table type `type` (a batch
// the table lacks keeps the one before: Shockwave refuses such a change); empty if the initial
// batch cannot run there.
std::vector<std::pair<double, double>> epoch_seconds(const ThroughputTable& table,
                                                     const std::string& type,
                                                     const ShockwaveModel& m,
                                                     const std::vector<int>& batches, int sf) {
  const double units = std::ceil(static_cast<double>(m.dataset) / m.batch);
  std::vector<std::pair<double, double>> out;
  int batch = m.batch;
  double tput = table.isolated(type, {with_batch(m, batch), sf}).value_or(0.0);
  if (tput <= 0.0) {
    return out;
  }
  for (const int b : batches) {
    if (b != batch) {
      if (const auto t = table.isolated(type, {with_batch(m, b), sf}); t && *t > 0.0) {
        batch = b;
        tput = *t;
      }
    }
    const double steps = static_cast<double>(m.dataset) / batch;
    out.emplace_back(steps / tput / units, steps / units);
  }
  return out;
}

Segments merge(const std::vector<std::pair<double, double>>& per_epoch, double units_per_epoch) {
  Segments s;
  for (std::size_t e = 0; e < per_epoch.size(); ++e) {
    const double end = static_cast<double>(e + 1) * units_per_epoch;
    if (!s.empty() && s.back().seconds == per_epoch[e].first) {
      s.back().end = end;
    } else {
      s.push_back({end, per_epoch[e].first, per_epoch[e].second});
    }
  }
  return s;
}

JobSpec job_of(const GavelSource& source, const std::shared_ptr<const GavelPairs>& pairs,
               const GavelTraceJob& row, std::string name) {
  const ThroughputTable& table = *pairs->table;
  JobSpec job;
  job.name = std::move(name);
  job.job_class = row.job_type;
  job.submit_time = TimePoint(from_seconds(row.arrival_time_s));
  job.replicas = row.scale_factor;
  job.pod_template = source.pod;
  job.pod_template.name = job.name;
  job.pod_template.requests.gpus = 1;
  job.checkpoint_interval = Duration::zero();
  const SourceLocation at =
      source.generate ? source.generate->where : SourceLocation{source.trace, row.line, 1};
  const auto m = shockwave_model(row.job_type);
  const bool epochs = m && row.duration_s > 0.0;  // Shockwave's layout: whole epochs
  const bool dynamic = epochs && source.dynamic_batch && row.mode != "static";
  if (epochs && source.whole_steps_round_s > 0.0) {
    // A job of Shockwave's layout runs whole epochs at batch sizes that change by epoch; its
    // steps a round are not modelled, so whole_steps would be silently ignored.
    throw InputError(at, "whole_steps",
                     "workload.gavel.whole_steps runs whole steps for Gavel's layouts only; this "
                     "row is of Shockwave's layout (whole epochs): leave whole_steps at 0s");
  }
  std::int64_t n_epochs = 0;
  double per_epoch = 0.0;
  std::vector<int> run_batches;
  std::vector<int> plan_batches;
  if (epochs) {
    n_epochs = shockwave_epochs(*m, row.total_steps);
    per_epoch = std::ceil(static_cast<double>(m->dataset) / m->batch);
    run_batches =
        shockwave_batches(*m, dynamic ? row.mode : "static", n_epochs, row.scale_factor, false);
    plan_batches =
        shockwave_batches(*m, dynamic ? row.mode : "static", n_epochs, row.scale_factor, true);
  }
  const double units =
      epochs ? static_cast<double>(n_epochs) * per_epoch : static_cast<double>(row.total_steps);
  std::map<std::string, Segments> segments;
  double exclusive = 0.0;
  EpochProfile profile;
  for (const auto& [gpu, type] : source.gpu_types) {
    if (epochs) {
      const auto s = epoch_seconds(table, type, *m, run_batches, row.scale_factor);
      if (!s.empty()) {
        segments[gpu] = merge(s, per_epoch);
      }
      if (gpu == source.reference_gpu) {
        for (const auto& x : epoch_seconds(table, type, *m, plan_batches, row.scale_factor)) {
          exclusive += x.first * per_epoch;
          profile.seconds.push_back(x.first * per_epoch);
        }
        profile.batch = plan_batches;
      }
    } else if (const auto t = table.isolated(type, row.key()); t && *t > 0.0) {
      segments[gpu] = {{units, 1.0 / *t, 1.0}};
      if (gpu == source.reference_gpu) {
        exclusive = units / *t;
      }
    }
  }
  if (segments.empty()) {
    throw InputError(at, "job_type",
                     "'" + format_job_type_key(row.key()) + "' has no throughput above 0 in " +
                         source.throughputs + " on any of the cluster's GPU types");
  }
  if (exclusive <= 0.0) {
    throw InputError(at, "job_type",
                     "'" + format_job_type_key(row.key()) +
                         "' has no throughput on the reference "
                         "GPU " +
                         source.reference_gpu + " in " + source.throughputs);
  }
  job.steps = std::max<std::int64_t>(1, std::llround(units));
  if (profile.seconds.size() != profile.batch.size()) {
    profile = {};  // an epoch without a throughput on the reference: no planning profile
  }
  auto speed = std::make_shared<GavelSpeed>(std::move(segments), source.reference_gpu, exclusive,
                                            units, std::move(profile), epochs ? nullptr : pairs,
                                            row.key(), row.priority_weight, row.slo);
  if (epochs) {
    speed->set_shockwave_batch(
        {*m, dynamic ? row.mode : "static", row.scale_factor, m->batch, row.total_steps, pairs});
  }
  job.measured = std::move(speed);
  job.elastic = std::make_shared<const GavelFixedSize>(job.replicas, job.measured);
  return job;
}

}  // namespace

GavelSpeed::GavelSpeed(std::map<std::string, Segments> segments, std::string reference,
                       double exclusive_s, double units, EpochProfile profile,
                       std::shared_ptr<const GavelPairs> pairs, JobTypeKey key,
                       double priority_weight, double slo)
    : segments_(std::move(segments)),
      reference_(std::move(reference)),
      exclusive_s_(exclusive_s),
      units_(units),
      profile_(std::move(profile)),
      pairs_(std::move(pairs)),
      key_(std::move(key)),
      priority_weight_(priority_weight),
      slo_(slo) {}

std::optional<std::pair<double, double>> GavelSpeed::colocated_on(const std::string& gpu,
                                                                  const GavelSpeed& other) const {
  const GavelSpeed* o = &other;
  if (pairs_ == nullptr || o->pairs_ == nullptr || o->pairs_->table != pairs_->table) {
    return std::nullopt;
  }
  const auto type = pairs_->gpu_types.find(gpu);
  if (type == pairs_->gpu_types.end()) {
    return std::nullopt;
  }
  const auto c = pairs_->table->colocated(type->second, key_, o->key_);
  return c ? std::optional<std::pair<double, double>>({c->self, c->other}) : std::nullopt;
}

std::shared_ptr<const GavelSpeed> GavelSpeed::at_batch(int batch, double steps) const {
  if (!shockwave_) {
    throw std::logic_error("GavelSpeed::at_batch: not a row of Shockwave's layout");
  }
  const ShockwaveBatch& now = *shockwave_;
  std::map<std::string, Segments> segments;
  for (const auto& [gpu, type] : now.tables->gpu_types) {
    if (!segments_.contains(gpu)) {
      continue;
    }
    const auto t =
        now.tables->table->isolated(type, {with_batch(now.model, batch), now.scale_factor});
    if (!t || !(*t > 0.0)) {
      return nullptr;
    }
    segments[gpu] = {{steps, 1.0 / *t, 1.0}};
  }
  auto out = std::make_shared<GavelSpeed>(*this);
  out->segments_ = std::move(segments);
  out->units_ = steps;
  out->shockwave_->batch = batch;
  return out;
}

double GavelSpeed::step_seconds(const std::vector<int>& gpus_per_node) const {
  (void)gpus_per_node;
  return exclusive_s_ / units_;
}

double GavelSpeed::compute_seconds(const std::vector<int>& gpus_per_node) const {
  return step_seconds(gpus_per_node);
}

double GavelSpeed::step_seconds_on(const std::string& gpu, const std::vector<int>& gpus_per_node,
                                   double done) const {
  (void)gpus_per_node;
  const Segments* s = find_segments(segments_, gpu);
  if (s == nullptr) {
    return kNoSpeed;
  }
  const double seconds = seconds_at(*s, done);
  const double run = whole_steps(1.0 / seconds);
  return run == 1.0 / seconds ? seconds : 1.0 / run;
}

double GavelSpeed::whole_steps(double throughput) const {
  const double round = pairs_ == nullptr ? 0.0 : pairs_->whole_steps_round_s;
  const double steps = std::floor(throughput * round);
  return round > 0.0 && steps >= 1.0 ? steps / round : throughput;
}

std::optional<std::pair<double, double>> GavelSpeed::colocated_run_on(
    const std::string& gpu, const GavelSpeed& other) const {
  const auto c = colocated_on(gpu, other);
  if (!c) {
    return c;
  }
  return std::pair<double, double>{whole_steps(c->first), other.whole_steps(c->second)};
}

double GavelSpeed::compute_seconds_on(const std::string& gpu, const std::vector<int>& gpus_per_node,
                                      double done) const {
  return step_seconds_on(gpu, gpus_per_node, done);
}

std::optional<double> GavelSpeed::next_change(double done) const {
  double next = std::numeric_limits<double>::infinity();
  for (const auto& [gpu, s] : segments_) {
    for (std::size_t i = 0; i + 1 < s.size(); ++i) {
      if (s[i].end > done) {
        next = std::min(next, s[i].end);
        break;
      }
    }
  }
  return std::isfinite(next) ? std::optional<double>(next) : std::nullopt;
}

std::vector<std::pair<std::string, double>> GavelSpeed::throughputs_at(double done) const {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [gpu, s] : segments_) {
    if (const SpeedSegment* x = segment_at(s, done); x != nullptr) {
      out.emplace_back(gpu, x->steps_per_unit / x->seconds);
    }
  }
  return out;
}

double GavelSpeed::steps_left_at(double done, double total) const {
  const Segments* s = find_segments(segments_, reference_);
  const SpeedSegment* x = s == nullptr ? nullptr : segment_at(*s, done);
  return std::max(0.0, total - done) * (x == nullptr ? 1.0 : x->steps_per_unit);
}

double gavel_priority_weight(const MeasuredSpeed& speed) {
  const auto* g = dynamic_cast<const GavelSpeed*>(&speed);
  return g != nullptr ? g->priority_weight() : 1.0;
}

std::optional<double> gavel_slo_seconds(const MeasuredSpeed& speed) {
  const auto* g = dynamic_cast<const GavelSpeed*>(&speed);
  if (g == nullptr || !(g->slo() > 0.0)) {
    return std::nullopt;
  }
  return g->slo() * g->exclusive_seconds();
}

namespace {

// `member` of a's GavelSpeed with b's on `gpu`, when both are GavelSpeeds.
using ColocatedFn = std::optional<std::pair<double, double>> (GavelSpeed::*)(
    const std::string&, const GavelSpeed&) const;
std::optional<std::pair<double, double>> both_gavel(const MeasuredSpeed& a, const MeasuredSpeed& b,
                                                    const std::string& gpu, ColocatedFn member) {
  const auto* x = dynamic_cast<const GavelSpeed*>(&a);
  const auto* y = dynamic_cast<const GavelSpeed*>(&b);
  return x != nullptr && y != nullptr ? (x->*member)(gpu, *y) : std::nullopt;
}

}  // namespace

std::optional<std::pair<double, double>> gavel_colocated(const MeasuredSpeed& a,
                                                         const MeasuredSpeed& b,
                                                         const std::string& gpu) {
  return both_gavel(a, b, gpu, &GavelSpeed::colocated_on);
}

std::optional<std::pair<double, double>> gavel_colocated_run(const MeasuredSpeed& a,
                                                             const MeasuredSpeed& b,
                                                             const std::string& gpu) {
  return both_gavel(a, b, gpu, &GavelSpeed::colocated_run_on);
}

std::vector<JobSpec> gavel_jobs(const GavelSource& source, std::uint64_t run_seed) {
  auto pairs = std::make_shared<GavelPairs>();
  pairs->table = std::make_shared<const ThroughputTable>(read_throughput_table(source.throughputs));
  pairs->gpu_types = source.gpu_types;
  pairs->whole_steps_round_s = source.whole_steps_round_s;
  const ThroughputTable& table = *pairs->table;
  const std::vector<GavelTraceJob> rows =
      source.generate
          ? generate_gavel_jobs(*source.generate, source.generate->seed.value_or(run_seed), table,
                                source.gpu_types.at(source.reference_gpu))
          : read_gavel_trace(source.trace);
  std::vector<JobSpec> jobs;
  jobs.reserve(rows.size());
  for (const GavelTraceJob& row : rows) {
    jobs.push_back(
        job_of(source, pairs, row, std::to_string(source.generate ? row.line - 1 : row.line)));
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](const JobSpec& a, const JobSpec& b) {
    return a.submit_time < b.submit_time;
  });
  return jobs;
}

}  // namespace tidesim::workloads
