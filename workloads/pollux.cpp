#include "tidesim/workloads/pollux.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <mutex>
#include <tuple>

#include "tidesim/sim/input/error.hpp"
#include "tidesim/workloads/csv.hpp"

namespace tidesim::workloads {
namespace fs = std::filesystem;
namespace {

// ceil(x - 1e-8), as the artifact rounds local batches (simulator.py update_local_bsz).
int ceil_eps(double x) {
  return static_cast<int>(std::ceil(x - 1e-8));
}

// Linear interpolation of step and sync time in the local batch over `samples` (sorted by local
// batch); outside the measured range the nearest end (the artifact's interp1d would refuse).
PolluxSample interpolate(const std::vector<PolluxSample>& samples, double local_bsz) {
  if (local_bsz <= samples.front().local_bsz) {
    return samples.front();
  }
  if (local_bsz >= samples.back().local_bsz) {
    return samples.back();
  }
  const auto hi = std::lower_bound(samples.begin(), samples.end(), local_bsz,
                                   [](const PolluxSample& s, double b) { return s.local_bsz < b; });
  const auto lo = hi - 1;
  const double t = (local_bsz - lo->local_bsz) / (hi->local_bsz - lo->local_bsz);
  PolluxSample out;
  out.local_bsz = local_bsz;
  out.step_time = lo->step_time + t * (hi->step_time - lo->step_time);
  out.sync_time = lo->sync_time + t * (hi->sync_time - lo->sync_time);
  return out;
}

// The non-zero counts in the order given, then their smallest rotation, as digits ({4, 4, 2, 2}
// -> "2244"; {2, 4, 2, 4} -> "2424"), as the artifact normalises a job's placement
// (applications.py get_throughput). The order is the job's: its pods' (ranks'), which the
// artifact's policies give as their allocations list the nodes (Tiresias and Optimus from the
// most free node down, Pollux in node order: sim/admission/artifact_placement.hpp, pollux.hpp).
// The measured placements are keyed the same way, so "123" and "132" stay two measurements.
std::string placement_key(const std::vector<int>& gpus_per_node) {
  // The nodes with GPUs, in a buffer on the stack for the placements seen (a job spans at most
  // 16 nodes in the artifact's runs), and their smallest rotation found by comparing rotations in
  // place: the rotations are asked at each rate change, so nothing here allocates.
  constexpr std::size_t kInline = 64;
  std::array<int, kInline> inline_buffer{};
  std::vector<int> heap;
  int* p = inline_buffer.data();
  std::size_t n = 0;
  for (const int g : gpus_per_node) {
    n += g > 0;
  }
  if (n > kInline) {
    heap.resize(n);
    p = heap.data();
  }
  n = 0;
  for (const int g : gpus_per_node) {
    if (g > 0) {
      p[n++] = g;
    }
  }
  // Rotation i below rotation `best` in lexicographic order.
  const auto below = [p, n](std::size_t i, std::size_t best) {
    for (std::size_t k = 0; k < n; ++k) {
      const int a = p[(i + k) % n];
      const int b = p[(best + k) % n];
      if (a != b) {
        return a < b;
      }
    }
    return false;
  };
  std::size_t best = 0;
  for (std::size_t i = 1; i < n; ++i) {
    if (below(i, best)) {
      best = i;
    }
  }
  std::string key;
  for (std::size_t k = 0; k < n; ++k) {
    const int g = p[(best + k) % n];
    if (g < 10) {
      key += static_cast<char>('0' + g);
    } else {
      key += std::to_string(g);
    }
  }
  return key;
}

void sort_samples(std::vector<PolluxSample>& v) {
  std::sort(v.begin(), v.end(),
            [](const PolluxSample& a, const PolluxSample& b) { return a.local_bsz < b.local_bsz; });
}

// One validation run (validation-<batch size>.csv): its epochs.
std::vector<PolluxEpoch> read_validation_file(const fs::path& file) {
  const CsvTable t(file.string(), {"progress", "iteration", "metric", "grad_sqr", "grad_var"}, {});
  std::vector<PolluxEpoch> epochs;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    epochs.push_back({t.number(r, "progress", 0, 1e300), t.number(r, "grad_sqr", 0, 1e300),
                      t.number(r, "grad_var", 0, 1e300), t.number(r, "iteration", 0, 1e300)});
  }
  if (epochs.empty()) {
    throw InputError(t.header_where("progress"), "progress", "no epochs");
  }
  return epochs;
}

// The validation runs in `root`, one file per total batch size: batch size -> epochs.
std::map<int, std::vector<PolluxEpoch>> read_validation_runs(const fs::path& root) {
  std::map<int, std::vector<PolluxEpoch>> runs;
  for (const auto& entry : fs::directory_iterator(root)) {
    const std::string file = entry.path().filename().string();
    if (!file.starts_with("validation-") || !file.ends_with(".csv")) {
      continue;
    }
    const std::string digits = file.substr(11, file.size() - 15);
    const int bsz = std::atoi(digits.c_str());
    if (bsz <= 0 || std::to_string(bsz) != digits) {
      throw InputError(SourceLocation{entry.path().string(), 0, 0}, "file",
                       "expected validation-<batch size>.csv");
    }
    runs[bsz] = read_validation_file(entry.path());
  }
  if (runs.empty()) {
    throw InputError(SourceLocation{root.string(), 0, 0}, "applications",
                     "no validation-<batch size>.csv in the folder");
  }
  return runs;
}

// placements.csv: the samples of each measured placement, sorted by local batch, their range
// of local batches, and the sums per (nodes, GPUs, local batch) with their counts.
struct MeasuredPlacements {
  std::map<std::string, std::vector<PolluxSample>> samples;
  int min_local_bsz = std::numeric_limits<int>::max();
  int max_local_bsz = 0;
  std::map<std::tuple<int, int, double>, std::pair<PolluxSample, int>> sums;
};

MeasuredPlacements read_placements(const fs::path& file) {
  const CsvTable p(file.string(), {"placement", "local_bsz", "step_time", "sync_time"}, {});
  MeasuredPlacements m;
  for (std::size_t r = 0; r < p.rows(); ++r) {
    const std::string key = p.text(r, "placement");
    std::vector<int> counts;
    for (const char c : key) {
      if (c < '1' || c > '9') {
        throw p.error(r, "placement", "expected the GPUs per node as digits 1-9");
      }
      counts.push_back(c - '0');
    }
    const auto bsz = static_cast<int>(p.integer(r, "local_bsz", 1, 1'000'000'000));
    const PolluxSample s{static_cast<double>(bsz), p.number(r, "step_time", 1e-9, 1e9),
                         p.number(r, "sync_time", 0, 1e9)};
    m.min_local_bsz = std::min(m.min_local_bsz, bsz);
    m.max_local_bsz = std::max(m.max_local_bsz, bsz);
    m.samples[placement_key(counts)].push_back(s);
    int gpus = 0;
    for (const int c : counts) {
      gpus += c;
    }
    auto& [sum, n] = m.sums[{static_cast<int>(counts.size()), gpus, s.local_bsz}];
    sum.local_bsz = s.local_bsz;
    sum.step_time += s.step_time;
    sum.sync_time += s.sync_time;
    ++n;
  }
  if (m.samples.empty()) {
    throw InputError(p.header_where("placement"), "placement", "no measurements");
  }
  for (auto& [key, v] : m.samples) {
    sort_samples(v);
  }
  return m;
}

// The interpolator's points (nodes, GPUs, local batch) and values (step, sync) as the artifact
// has them (applications.py get_throughput): the placements' means per (nodes, GPUs, local
// batch) in that order (pandas' groupby), then the scalability runs of scalability.csv.
struct Configurations {
  std::vector<double> points;
  std::vector<double> values;
};

Configurations configurations(const MeasuredPlacements& m, const fs::path& scalability) {
  Configurations c;
  for (const auto& [k, sn] : m.sums) {
    c.points.insert(c.points.end(), {static_cast<double>(std::get<0>(k)),
                                     static_cast<double>(std::get<1>(k)), std::get<2>(k)});
    c.values.insert(c.values.end(),
                    {sn.first.step_time / sn.second, sn.first.sync_time / sn.second});
  }
  const CsvTable s(scalability.string(),
                   {"num_nodes", "num_replicas", "local_bsz", "step_time", "sync_time"}, {});
  for (std::size_t r = 0; r < s.rows(); ++r) {
    const auto nodes = static_cast<int>(s.integer(r, "num_nodes", 1, 1'000'000));
    const auto gpus = static_cast<int>(s.integer(r, "num_replicas", nodes, 1'000'000'000));
    c.points.insert(c.points.end(), {static_cast<double>(nodes), static_cast<double>(gpus),
                                     s.number(r, "local_bsz", 1, 1e9)});
    c.values.insert(c.values.end(),
                    {s.number(r, "step_time", 1e-9, 1e9), s.number(r, "sync_time", 0, 1e9)});
  }
  return c;
}

}  // namespace

PolluxApplication::PolluxApplication(const std::string& dir, const std::string& name,
                                     int max_epochs, int max_local_bsz)
    : name_(name) {
  const fs::path root = fs::path(dir) / name;
  if (!fs::is_directory(root)) {
    throw InputError(SourceLocation{root.string(), 0, 0}, "applications",
                     "no such folder (the Pollux artifact's simulator/traces/" + name + ")");
  }
  validation_ = read_validation_runs(root);
  max_epochs_ = max_epochs;
  for (const auto& [bsz, epochs] : validation_) {
    max_epochs_ = std::min(max_epochs_, static_cast<int>(epochs.size()));
  }
  MeasuredPlacements measured = read_placements(root / "placements.csv");
  placements_ = std::move(measured.samples);
  min_local_bsz_ = measured.min_local_bsz;
  max_local_bsz_ = measured.max_local_bsz;
  Configurations c = configurations(measured, root / "scalability.csv");
  placements_file_ = (root / "placements.csv").string();
  try {
    configurations_ = std::make_shared<const LinearNdInterpolator>(3, std::move(c.points), 2,
                                                                   std::move(c.values));
  } catch (const std::invalid_argument& e) {
    // Only a placement that was not measured needs it (the artifact fails at that query too).
    configurations_error_ = e.what();
  }
  if (max_local_bsz > 0) {
    max_local_bsz_ = max_local_bsz;
  }
}

PolluxApplication::LocalBatch PolluxApplication::local_batch(int batch_size, int replicas) const {
  // simulator.py Job.update_local_bsz with a target batch size.
  const int local = ceil_eps(static_cast<double>(batch_size) / replicas);
  LocalBatch b;
  b.accum_steps = ceil_eps(static_cast<double>(local) / max_local_bsz_) - 1;
  if (replicas == 1 && batch_size > init_batch_size()) {
    b.accum_steps = std::max(1, b.accum_steps);
  }
  b.atomic = ceil_eps(static_cast<double>(local) / (b.accum_steps + 1));
  const int count = replicas * (b.accum_steps + 1);
  b.atomic = std::min(b.atomic, max_batch_size() / count);
  return b;
}

PolluxSample PolluxApplication::throughput(const std::vector<int>& gpus_per_node,
                                           double local_bsz) const {
  const std::string key = placement_key(gpus_per_node);
  if (const auto it = placements_.find(key); it != placements_.end()) {
    return interpolate(it->second, local_bsz);
  }
  int nodes = 0;
  int gpus = 0;
  for (const int g : gpus_per_node) {
    nodes += g > 0;
    gpus += g;
  }
  nodes = std::min(nodes, 16);  // as the artifact (its scalability runs reach 16 nodes)
  const auto where = [&] {
    return fmt::format("{}: placement {} ({} nodes, {} GPUs, local batch {})", name_, key, nodes,
                       gpus, local_bsz);
  };
  if (!configurations_) {
    throw InputError(SourceLocation{placements_file_, 0, 0}, "placement",
                     where() +
                         " was not measured and the measured configurations cannot be "
                         "interpolated: " +
                         configurations_error_);
  }
  const std::tuple<int, int, double> point{nodes, gpus, local_bsz};
  {
    const std::lock_guard<std::mutex> guard(memo_->lock);
    if (const auto it = memo_->values.find(point); it != memo_->values.end()) {
      PolluxSample out;
      out.local_bsz = local_bsz;
      out.step_time = it->second[0];
      out.sync_time = it->second[1];
      return out;
    }
  }
  const auto v =
      (*configurations_)({static_cast<double>(nodes), static_cast<double>(gpus), local_bsz});
  if (!v) {
    throw InputError(SourceLocation{placements_file_, 0, 0}, "placement",
                     where() +
                         " lies outside the measured configurations (placements.csv and "
                         "scalability.csv): no interpolation");
  }
  PolluxSample out;
  out.local_bsz = local_bsz;
  out.step_time = (*v)[0];
  out.sync_time = (*v)[1];
  const std::lock_guard<std::mutex> guard(memo_->lock);
  memo_->values.emplace(point, std::array<double, 2>{out.step_time, out.sync_time});
  return out;
}

double PolluxApplication::progress(int epoch) const {
  // simulator/applications.py get_progress: the least progress any validation run made by the
  // end of the epoch before.
  if (epoch == 0) {
    return 0.0;
  }
  double p = std::numeric_limits<double>::infinity();
  for (const auto& [bsz, epochs] : validation_) {
    p = std::min(p, epochs[static_cast<std::size_t>(epoch - 1)].progress);
  }
  return p;
}

std::pair<double, double> PolluxApplication::grad_stats(double batch_size, int epoch) const {
  // get_grad_stats: linear between the validated batch sizes around it (the nearest end outside).
  auto hi = validation_.lower_bound(static_cast<int>(std::ceil(batch_size)));
  if (hi == validation_.end()) {
    --hi;
  }
  auto lo = hi;
  if (hi->first > batch_size && hi != validation_.begin()) {
    --lo;
  }
  const auto e = static_cast<std::size_t>(epoch);
  const PolluxEpoch& a = lo->second[e];
  const PolluxEpoch& b = hi->second[e];
  if (lo->first == hi->first || batch_size <= lo->first) {
    return {a.grad_sqr, a.grad_var};
  }
  const double t = (batch_size - lo->first) / static_cast<double>(hi->first - lo->first);
  return {a.grad_sqr + t * (b.grad_sqr - a.grad_sqr), a.grad_var + t * (b.grad_var - a.grad_var)};
}

double PolluxApplication::work_steps(int batch_size) const {
  double w = 0;
  for (const double we : epoch_work_steps(batch_size)) {
    w += we;
  }
  return w;
}

double PolluxApplication::gain(double batch_size, int epoch) const {
  const double scale = batch_size / init_batch_size();
  const auto [sqr, var] = grad_stats(batch_size, epoch);
  return (var + sqr) / (var / scale + sqr);
}

std::vector<double> PolluxApplication::epoch_work_steps(int batch_size) const {
  std::vector<double> w;
  for (int e = 0; e < max_epochs_; ++e) {
    w.push_back((progress(e + 1) - progress(e)) / gain(batch_size, e));
  }
  return w;
}

namespace {

/// The files under `dir`'s applications that a load reads, with their sizes and modification
/// times: a load is reused only while none of them changed.
std::string applications_fingerprint(const std::string& dir,
                                     const std::vector<std::string>& names) {
  std::vector<std::string> files;
  std::error_code error;
  for (const std::string& name : names) {
    const fs::path root = fs::path(dir) / name;
    for (fs::recursive_directory_iterator it(root, error), end; !error && it != end;
         it.increment(error)) {
      if (it->is_regular_file(error)) {
        files.push_back(fmt::format("{}|{}|{}", it->path().string(), it->file_size(error),
                                    it->last_write_time(error).time_since_epoch().count()));
      }
    }
    files.push_back(error ? "!" + root.string() : root.string());
    error.clear();
  }
  std::sort(files.begin(), files.end());
  std::string all;
  for (const std::string& f : files) {
    all += f;
    all += '\n';
  }
  return all;
}

}  // namespace

std::map<std::string, std::shared_ptr<const PolluxApplication>> load_pollux_applications(
    const std::string& dir) {
  // simulator/applications.py APPLICATIONS.
  const std::vector<std::tuple<std::string, int, int>> settings = {
      {"bert", 2, 0},      {"cifar10", 100, 0}, {"deepspeech2", 80, 0},
      {"imagenet", 90, 0}, {"ncf", 10, 0},      {"yolov3", 50, 8}};
  std::vector<std::string> names;
  for (const auto& setting : settings) {
    names.push_back(std::get<0>(setting));
  }
  // A run reads the applications once for its estimate and once for its jobs, and a sweep once
  // a run: the last load of each folder is kept (the applications are immutable; their memo of
  // interpolated placements is a cache of a pure function) while its files are unchanged.
  using Apps = std::map<std::string, std::shared_ptr<const PolluxApplication>>;
  static std::mutex mutex;
  static std::map<std::string, std::pair<std::string, Apps>> loaded;
  const std::string fingerprint = applications_fingerprint(dir, names);
  {
    const std::lock_guard<std::mutex> lock(mutex);
    const auto it = loaded.find(dir);
    if (it != loaded.end() && it->second.first == fingerprint) {
      return it->second.second;
    }
  }
  Apps apps;
  for (const auto& [name, epochs, local] : settings) {
    apps[name] = std::make_shared<const PolluxApplication>(dir, name, epochs, local);
  }
  const std::lock_guard<std::mutex> lock(mutex);
  loaded[dir] = {fingerprint, apps};
  return apps;
}

PolluxSpeed::PolluxSpeed(std::shared_ptr<const PolluxApplication> app, int batch_size, int replicas,
                         bool whole_epochs, std::int64_t steps)
    : app_(std::move(app)), local_(app_->local_batch(batch_size, replicas)), steps_(steps) {
  if (whole_epochs && steps > 0) {
    epoch_work_ = app_->epoch_work_steps(replicas * local_.atomic * (local_.accum_steps + 1));
  }
}

double PolluxSpeed::total_seconds(const std::vector<int>& gpus_per_node) const {
  const PolluxSample s = app_->throughput(gpus_per_node, local_.atomic);
  // simulator.py Job.step: total_time = step_time + accum_time x accum_steps.
  return s.step_time + (s.step_time - s.sync_time) * local_.accum_steps;
}

double PolluxSpeed::step_seconds(const std::vector<int>& gpus_per_node) const {
  const double total = total_seconds(gpus_per_node);
  if (epoch_work_.empty()) {
    return total;
  }
  // Each epoch's end is rounded to a whole second (the artifact's `delta = round(...)`).
  double seconds = 0;
  for (const double w : epoch_work_) {
    seconds += std::nearbyint(w * total);  // Python 3 round(): halves to even
  }
  return seconds / static_cast<double>(steps_);
}

double PolluxSpeed::compute_seconds(const std::vector<int>& gpus_per_node) const {
  const PolluxSample s = app_->throughput(gpus_per_node, local_.atomic);
  // step_seconds less the one gradient sync of the step (sync_time: its measured part).
  const double compute = (s.step_time - s.sync_time) * (1 + local_.accum_steps);
  // The same share of the (possibly rounded) step.
  return epoch_work_.empty() ? compute
                             : compute * step_seconds(gpus_per_node) / total_seconds(gpus_per_node);
}

}  // namespace tidesim::workloads
