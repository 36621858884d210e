#include "tidesim/workloads/gavel_generate.hpp"

#include <algorithm>
#include <cmath>

#include "tidesim/workloads/python_random.hpp"

namespace tidesim::workloads {
namespace {

// utils.py: _generate_scale_factor (the Philly distribution), in its order of tests.
int scale_factor(PythonRandom& rng) {
  const double r = rng.uniform(0, 1);
  if (0.7 <= r && r <= 0.8) {
    return 2;
  }
  if (0.8 <= r && r <= 0.95) {
    return 4;
  }
  if (0.95 <= r) {
    return 8;
  }
  return 1;
}

// utils.py: _generate_duration, seconds.
double duration(PythonRandom& rng) {
  if (rng.random() >= 0.8) {
    return 60 * std::pow(10.0, rng.uniform(3, 4));
  }
  return 60 * std::pow(10.0, rng.uniform(1.5, 3));
}

void add_family(std::vector<GavelTemplate>& t, const std::string& family,
                std::initializer_list<int> batches, bool distributed) {
  for (const int b : batches) {
    t.push_back({family + " (batch size " + std::to_string(b) + ")", distributed});
  }
}

}  // namespace

const std::vector<GavelTemplate>& gavel_job_table(GavelGenerate::JobTable order) {
  // job_table.py as of Gavel 19a0dd2 (and c4fa400): one loop per family, A3C and CycleGAN last.
  static const std::vector<GavelTemplate> current = [] {
    std::vector<GavelTemplate> t;
    add_family(t, "ResNet-18", {16, 32, 64, 128, 256}, true);
    add_family(t, "ResNet-50", {16, 32, 64, 128}, true);
    add_family(t, "Transformer", {16, 32, 64, 128, 256}, true);
    add_family(t, "LM", {5, 10, 20, 40, 80}, true);
    add_family(t, "Recommendation", {512, 1024, 2048, 4096, 8192}, false);
    t.push_back({"A3C", false});
    t.push_back({"CycleGAN", false});
    return t;
  }();
  // job_table.py before 19a0dd2 (e.g. at 088848b, 2020-05-12): the same templates, A3C between
  // the Transformers and the LMs (index 14).
  static const std::vector<GavelTemplate> before = [] {
    std::vector<GavelTemplate> t = current;
    const auto a3c = std::find_if(t.begin(), t.end(),
                                  [](const GavelTemplate& g) { return g.job_type == "A3C"; });
    std::rotate(t.begin() + 14, a3c, a3c + 1);
    return t;
  }();
  return order == GavelGenerate::JobTable::kCurrent ? current : before;
}

std::vector<GavelTraceJob> generate_gavel_jobs(const GavelGenerate& g, std::uint64_t seed,
                                               const ThroughputTable& table,
                                               const std::string& reference_type) {
  const auto& templates = gavel_job_table(g.job_table);
  const bool multi_gpu = g.mode != "continuous-single";
  const bool is_static = g.mode == "static-multiple";
  PythonRandom rng(seed + 2);           // scheduler.py: self._job_generator
  PythonRandom interarrival(seed + 3);  // self._interarrival_time_generator
  PythonRandom slo_rng(seed + 6);       // self._SLO_generator
  const double lam = is_static ? 0.0 : 3600.0 / g.rate_per_hour;
  std::vector<GavelTraceJob> jobs;
  jobs.reserve(static_cast<std::size_t>(std::max(0, g.jobs)));
  double arrival = 0.0;
  for (int id = 0; id < g.jobs; ++id) {
    GavelTraceJob job;
    int sf = scale_factor(rng);
    const double run_time = duration(rng);
    if (!multi_gpu) {
      sf = 1;
    }
    const GavelTemplate* t = nullptr;
    do {
      t = &templates[rng.randbelow(static_cast<std::uint32_t>(templates.size()))];
    } while (sf > 1 && !t->distributed);
    job.job_type = t->job_type;
    job.scale_factor = sf;
    const auto tput = table.isolated(reference_type, job.key());
    if (!tput || *tput <= 0.0) {
      throw InputError(g.where, "generate",
                       "the throughput table has no throughput above 0 for '" +
                           format_job_type_key(job.key()) + "' on '" + reference_type +
                           "', which Gavel's generator draws (job " + std::to_string(id) + ")");
    }
    job.total_steps = std::max<std::int64_t>(1, std::llround(run_time * *tput));
    if (g.multi_priority && rng.uniform(0, 1) <= 0.2) {
      job.priority_weight = 5.0;
    }
    if (g.slos) {  // utils.py generate_job: SLO_rng.uniform(0, 1)
      const double r = slo_rng.uniform(0, 1);
      job.slo = r < 0.33 ? 1.2 : (r < 0.67 ? 2.0 : 10.0);
    }
    job.arrival_time_s = arrival;
    job.line = id + 1;
    jobs.push_back(std::move(job));
    // scheduler.py: _sample_arrival_time_delta(1.0 / lam), after each job.
    const double delta = lam == 0.0 ? 0.0 : -std::log(1.0 - interarrival.random()) / (1.0 / lam);
    arrival = delta + arrival;
  }
  return jobs;
}

}  // namespace tidesim::workloads
