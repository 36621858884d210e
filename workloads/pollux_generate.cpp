#include "tidesim/workloads/pollux_generate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "tidesim/workloads/csv.hpp"

namespace tidesim::workloads {
namespace {

constexpr double kEps = 1e-8;  // the artifact's tolerance in ceil (applications.py)
constexpr int kGpusPerNode = 4;

int ceil_eps(double x) {
  return static_cast<int>(std::ceil(x - kEps));
}

}  // namespace

std::vector<PolluxConfiguration> pollux_configurations(const PolluxApplication& app, double lo_util,
                                                       double hi_util) {
  std::vector<PolluxConfiguration> out;
  PolluxConfiguration base;
  const int last = app.max_epochs() - 1;  // get_completion_epoch: the last epoch
  for (const int replicas : {1, 2, 4, 6, 8, 12, 16, 24, 32, 48}) {
    if (replicas * app.min_local_bsz() > app.max_batch_size()) {
      break;
    }
    std::vector<int> placement;
    for (int left = replicas; left > 0; left -= kGpusPerNode) {
      placement.push_back(std::min(left, kGpusPerNode));
    }
    PolluxConfiguration best;
    bool found = false;
    for (const auto& [batch, epochs] : app.validation()) {
      const int local = ceil_eps(static_cast<double>(batch) / replicas);
      if (local < app.min_local_bsz()) {
        continue;
      }
      const int accum = ceil_eps(static_cast<double>(local) / app.max_local_bsz()) - 1;
      const int atomic = ceil_eps(static_cast<double>(local) / (accum + 1));
      const PolluxSample s = app.throughput(placement, atomic);
      const double step = s.step_time + accum * (s.step_time - s.sync_time);
      const double seconds = epochs[static_cast<std::size_t>(last)].iteration * step;
      if (!found || seconds < best.seconds) {  // the first of equals
        best = {replicas, batch, seconds};
        found = true;
      }
    }
    if (!found) {
      continue;
    }
    if (replicas == 1) {
      base = best;
    } else if (best.seconds < 12 * 3600.0 && base.seconds > 0) {
      const double efficiency = base.seconds / best.seconds / replicas;
      if (lo_util < efficiency && efficiency < hi_util) {
        out.push_back(best);
      }
    }
  }
  if (out.empty()) {
    out.push_back(base);
  }
  return out;
}

std::vector<PolluxRow> generate_pollux_rows(
    const std::string& trace, int jobs, int start_hour, int hours,
    const std::map<std::string, std::shared_ptr<const PolluxApplication>>& apps, RandomStream& rng,
    const SourceLocation& where) {
  const CsvTable t(trace, {"timestamp", "duration", "num_gpus", "gpu_time"}, {"cluster"});
  struct Candidate {
    double time;
    double gpu_time;
  };
  std::vector<Candidate> candidates;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    const double duration = t.number(r, "duration", 0, 1e12);
    const double gpu_time = t.number(r, "gpu_time", 0, 1e15);
    int y = 0;
    int mo = 0;
    int d = 0;
    int h = -1;
    int mi = -1;
    int sec = -1;
    char tail = 0;
    if (std::sscanf(t.text(r, "timestamp").c_str(), "%d-%d-%d %d:%d:%d%c", &y, &mo, &d, &h, &mi,
                    &sec, &tail) != 6 ||
        h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 60) {
      throw t.error(r, "timestamp", "expected YYYY-MM-DD HH:MM:SS");
    }
    if (duration < 60 || gpu_time >= 1000 * 3600.0) {
      continue;
    }
    const int hour = ((h - start_hour) % 24 + 24) % 24;  // the timestamp moved back
    if (hour < hours) {
      candidates.push_back({hour * 3600.0 + mi * 60.0 + sec, gpu_time});
    }
  }
  if (static_cast<std::size_t>(jobs) > candidates.size()) {
    throw InputError(where, "jobs",
                     fmt::format("{} jobs asked, but only {} of the trace's jobs qualify (a minute "
                                 "or more, under 1,000 GPU-hours, in the hours asked)",
                                 jobs, candidates.size()));
  }
  // Without replacement: the first `jobs` of a partial Fisher-Yates shuffle, from a stream of its
  // own (the artifact's `trace.sample` draws from numpy, seeded by one draw of its rng), so that
  // the draws after it do not depend on `jobs`: a seed's workload of N jobs holds its workload of
  // fewer, job for job, as the artifact's job loads do.
  RandomStream sample_rng(rng.next_u64());
  std::vector<std::size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  for (std::size_t i = 0; i < static_cast<std::size_t>(jobs); ++i) {
    const std::size_t j = i + static_cast<std::size_t>(sample_rng.uniform_int(order.size() - i));
    std::swap(order[i], order[j]);
  }
  // The bert coin flips from a stream of their own, as the artifact's rng2.
  RandomStream bert_rng(rng.next_u64());
  std::map<std::string, std::vector<PolluxConfiguration>> configurations;
  const auto configuration = [&](const std::string& name, RandomStream& from) {
    auto it = configurations.find(name);
    if (it == configurations.end()) {
      it = configurations.emplace(name, pollux_configurations(*apps.at(name))).first;
    }
    return it->second[static_cast<std::size_t>(from.uniform_int(it->second.size()))];
  };
  std::vector<PolluxRow> rows;
  for (std::size_t i = 0; i < static_cast<std::size_t>(jobs); ++i) {
    const Candidate& c = candidates[order[i]];
    PolluxRow row;
    row.time = c.time;
    if (c.gpu_time < 3600) {
      row.application = rng.uniform_int(2) == 0 ? "cifar10" : "ncf";
    } else if (c.gpu_time < 10 * 3600) {
      row.application = "deepspeech2";
    } else if (c.gpu_time < 100 * 3600) {
      row.application = "yolov3";
    } else {
      row.application = "imagenet";
    }
    PolluxConfiguration conf = configuration(row.application, rng);
    if (row.application == "deepspeech2" && bert_rng.uniform_int(2) == 1) {
      row.application = "bert";
      conf = configuration("bert", bert_rng);
    }
    row.replicas = conf.replicas;
    row.batch_size = conf.batch_size;
    rows.push_back(std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const PolluxRow& a, const PolluxRow& b) { return a.time < b.time; });
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i].name = rows[i].application + "-" + std::to_string(i);
  }
  return rows;
}

}  // namespace tidesim::workloads
