#include "tidesim/sim/admission/job_policy.hpp"

#include <algorithm>
#include <tuple>

namespace tidesim {

const char* to_string(JobPolicyKind kind) {
  switch (kind) {
    case JobPolicyKind::kFifo:
      return "fifo";
    case JobPolicyKind::kSjf:
      return "sjf";
    case JobPolicyKind::kSrtf:
      return "srtf";
    case JobPolicyKind::kTiresias:
      return "tiresias";
  }
  return "unknown";
}

int tiresias_update(std::vector<PolicyJob>& jobs, const AdmissionConfig& config,
                    std::int64_t& next_seq) {
  int moved = 0;
  const int last = static_cast<int>(config.thresholds.size());
  for (PolicyJob& j : jobs) {
    // Demotion (simulator/tiresias.py: gputime >= _queue_threshold -> Q1).
    int q = j.queue;
    while (q < last && j.service_gpu_s >= config.thresholds[static_cast<std::size_t>(q)]) {
      ++q;
    }
    if (q != j.queue) {
      j.queue = q;
      j.queue_seq = next_seq++;
      ++moved;
      continue;
    }
    // Starvation promotion (STARVELIMIT; the artifact's _solve_starvation).
    if (config.starvation_limit > 0 && !j.admitted && j.queue > 0 && j.executed_s > 0 &&
        j.starving_s >= config.starvation_limit * j.executed_s) {
      j.queue = 0;
      j.queue_seq = next_seq++;
      j.service_gpu_s = 0;
      j.executed_s = 0;
      j.starving_s = 0;
      ++moved;
    }
  }
  return moved;
}

namespace {

// The policy's order: a strict weak order over jobs (ties broken by submission order).
bool before(const PolicyJob& a, const PolicyJob& b, JobPolicyKind kind) {
  switch (kind) {
    case JobPolicyKind::kFifo:
      break;
    case JobPolicyKind::kSjf:
      if (a.estimate_s != b.estimate_s) {
        return a.estimate_s < b.estimate_s;
      }
      break;
    case JobPolicyKind::kSrtf:
      if (a.remaining_s != b.remaining_s) {
        return a.remaining_s < b.remaining_s;
      }
      break;
    case JobPolicyKind::kTiresias:
      return std::tie(a.queue, a.queue_seq, a.order) < std::tie(b.queue, b.queue_seq, b.order);
  }
  return std::tie(a.submitted, a.order) < std::tie(b.submitted, b.order);
}

}  // namespace

bool preemptive(JobPolicyKind kind) {
  return kind == JobPolicyKind::kSrtf || kind == JobPolicyKind::kTiresias;
}

std::vector<std::size_t> policy_order(const std::vector<PolicyJob>& jobs,
                                      const AdmissionConfig& config) {
  std::vector<std::size_t> order(jobs.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
  }
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return before(jobs[a], jobs[b], config.policy); });
  return order;
}

std::vector<int> select_jobs(const std::vector<PolicyJob>& jobs, const AdmissionConfig& config,
                             std::int64_t capacity) {
  std::vector<const PolicyJob*> order;
  std::vector<int> chosen;
  std::int64_t free = capacity;
  const bool keep = !preemptive(config.policy);
  for (const PolicyJob& j : jobs) {
    if (keep && j.admitted) {
      chosen.push_back(j.id);
      free -= j.gpus;
    } else {
      order.push_back(&j);
    }
  }
  std::sort(order.begin(), order.end(), [&config](const PolicyJob* a, const PolicyJob* b) {
    return before(*a, *b, config.policy);
  });
  for (const PolicyJob* j : order) {
    if (j->gpus <= free) {
      chosen.push_back(j->id);
      free -= j->gpus;
    } else if (!config.backfill) {
      break;
    }
  }
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

}  // namespace tidesim
