#include "tidesim/sim/metrics/fragmentation.hpp"

#include <algorithm>
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
  // all (the previous value simply holds longer): memory stays small on long, large runs.
  std::vector<int>& histogram = histogram_;  // reused: no allocation per sample
  histogram.clear();
  for (const auto& node : sample.nodes) {
    if (node.gpus_allocatable > 0) {
      const auto free =
          static_cast<std::size_t>(std::max(0, node.gpus_allocatable - node.gpus_allocated));
      if (histogram.size() <= free) {
        histogram.resize(free + 1, 0);
      }
      ++histogram[free];
    }
  }
  if (!samples_.empty() && samples_.back().second == histogram) {
    return;
  }
  samples_.emplace_back(sample.at, histogram);
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
