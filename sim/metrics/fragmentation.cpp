#include "tidesim/sim/metrics/fragmentation.hpp"

#include <algorithm>
#include <span>
#include <stdexcept>

#include "tidesim/sim/metrics/step_average.hpp"

namespace tidesim::metrics {

void FragmentationCollector::on_job(const JobEvent& event) {
  if (event.kind == JobEventKind::kSubmitted) {
    job_gpus_.try_emplace(event.job, event.gpus);
  } else if (event.kind == JobEventKind::kBound && !event.pod.empty()) {
    job_pods_[event.job].insert(event.pod);
  }
}

void FragmentationCollector::on_sample(const ClusterSample& sample) {
  if (!samples_.empty() && sample.at < samples_.back().first) {
    throw std::logic_error("FragmentationCollector: sample earlier than the previous one");
  }
  // F(M) depends only on how many nodes have each number of free units, so a sample is stored as
  // that histogram (index = free units), and a sample equal to the previous one is not stored at
  // all (the previous value simply holds longer): memory stays small on long, large runs. The
  // counts are kept from sample to sample and moved only for the nodes that changed.
  changes_.update(sample);
  auto count = [this](int free, int delta) {
    if (free < 0) {
      return;  // a node without allocatable units is not counted
    }
    const auto f = static_cast<std::size_t>(free);
    if (counts_.size() <= f) {
      counts_.resize(f + 1, 0);
    }
    counts_[f] += delta;
  };
  auto free_of = [](const NodeState& node) {
    return node.gpus_allocatable > 0 ? std::max(0, node.gpus_allocatable - node.gpus_allocated)
                                     : -1;
  };
  bool moved = false;
  if (changes_.all()) {
    counts_.clear();
    free_.resize(sample.nodes.size());
    for (std::size_t n = 0; n < sample.nodes.size(); ++n) {
      free_[n] = free_of(sample.nodes[n]);
      count(free_[n], 1);
    }
    moved = true;
  } else {
    for (const int n : changes_.changed()) {
      const auto k = static_cast<std::size_t>(n);
      const int free = free_of(sample.nodes[k]);
      if (free != free_[k]) {
        count(free_[k], -1);
        count(free, 1);
        free_[k] = free;
        moved = true;
      }
    }
  }
  if (!moved && !samples_.empty()) {
    return;  // the same histogram as the previous sample's
  }
  // The histogram as a scan of the nodes builds it: up to the largest free count of a node.
  std::size_t size = counts_.size();
  while (size > 0 && counts_[size - 1] == 0) {
    --size;
  }
  const std::span<const int> histogram(counts_.data(), size);
  if (!samples_.empty() && std::ranges::equal(samples_.back().second, histogram)) {
    return;
  }
  samples_.emplace_back(sample.at, std::vector<int>(histogram.begin(), histogram.end()));
}

std::vector<TaskShape> FragmentationCollector::task_shapes() const {
  std::map<int, double> weights;  // units -> weight, ascending units
  if (!options_.task_shapes.empty()) {
    for (const auto& shape : options_.task_shapes) {
      if (shape.units > 0 && shape.weight > 0.0) {
        weights[shape.units] += shape.weight;
      }
    }
  } else {
    for (const auto& [job, gpus] : job_gpus_) {
      if (gpus <= 0) {
        continue;
      }
      const auto pods_it = job_pods_.find(job);
      const int pods = pods_it == job_pods_.end() || pods_it->second.empty()
                           ? 1
                           : static_cast<int>(pods_it->second.size());
      const int units = (gpus + pods - 1) / pods;
      weights[units] += pods;
    }
  }
  double total = 0.0;
  for (const auto& [units, w] : weights) {
    total += w;
  }
  std::vector<TaskShape> shapes;
  for (const auto& [units, w] : weights) {
    shapes.push_back(TaskShape{.units = units, .weight = w / total});
  }
  return shapes;
}

void FragmentationCollector::finish(TimePoint end, MetricValues& out) const {
  const auto shapes = task_shapes();
  if (shapes.empty()) {
    return;
  }
  StepAverage amount;
  StepAverage rate;
  for (const auto& [t, histogram] : samples_) {
    double frag = 0.0;
    long idle = 0;
    for (std::size_t f = 0; f < histogram.size(); ++f) {
      const double nodes = histogram[f];
      idle += static_cast<long>(f) * histogram[f];
      for (const auto& shape : shapes) {
        if (static_cast<int>(f) < shape.units) {
          frag += shape.weight * static_cast<double>(f) * nodes;
        }
      }
    }
    amount.add(t, frag);
    rate.add(t, idle > 0 ? std::optional<double>(frag / static_cast<double>(idle)) : std::nullopt);
  }
  if (const auto m = amount.mean(end)) {
    out["gpu_frag_gpus"] = *m;
  }
  if (const auto m = rate.mean(end)) {
    out["gpu_frag_rate"] = *m;
  }
}

}  // namespace tidesim::metrics
