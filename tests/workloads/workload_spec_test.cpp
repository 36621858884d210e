#include "tidesim/workloads/workload_spec.hpp"

#include <gtest/gtest.h>

#include "tests/common/errors.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>

#include "tidesim/sim/input/yaml_fields.hpp"
#include "tidesim/workloads/step_time.hpp"

namespace tidesim::workloads {
namespace {

using namespace std::chrono_literals;

using test::message_of;

WorkloadSpec parse(const std::string& yaml, const std::string& base_dir = TIDESIM_SOURCE_DIR) {
  const auto doc = load_yaml_string(yaml, "s.yaml");
  return parse_workload(doc["workload"], "s.yaml", base_dir);
}

TEST(WorkloadSpec, SeedBurstOfOneHundredJobsFromTheManifests) {
  const auto spec = parse(
      "workload:\n"
      "  arrivals: {process: burst, count: 100, at: 5s}\n"
      "  jobs:\n"
      "  - manifest: scenarios/manifests/resnet50-heavy.yaml\n"
      "    weight: 3\n    model: resnet50\n    batch_size: 128\n    steps: 1000\n"
      "  - manifest: scenarios/manifests/gpt2-dp.yaml\n"
      "    weight: 1\n    model: gpt2-124m\n    batch_size: 8\n    duration: 10m\n"
      "    pod: {gpus: 1}\n    replicas: 2\n");
  ASSERT_EQ(spec.mix.size(), 2u);
  EXPECT_EQ(spec.mix[0].name, "resnet50-heavy");
  EXPECT_EQ(spec.mix[1].job.pod_template.requests.gpus, 1);  // the override
  RandomStream rng(7, "workload");
  const auto jobs = generate_jobs(spec, rng, {.gpu = "A10"});
  ASSERT_EQ(jobs.size(), 100u);
  int gpt = 0;
  for (const auto& j : jobs) {
    EXPECT_EQ(j.submit_time, TimePoint(5s));
    if (j.model == "gpt2-124m") {
      ++gpt;
      EXPECT_EQ(j.replicas, 2);
      EXPECT_TRUE(j.duration.has_value());
      // 600 s at the uncontended step: compute only (no input or link limits given).
      const auto p = profile_for("gpt2-124m", 8, "amp", "A10");
      EXPECT_EQ(j.steps, std::llround(600.0 / p.compute_seconds));
    } else {
      EXPECT_EQ(j.steps, 1000);
      EXPECT_EQ(j.pod_template.env.at("AI_LOAD_TYPE"), "GPU_HEAVY");
    }
  }
  EXPECT_GT(gpt, 10);  // expected 25 of 100 (weight 1 of 4)
  EXPECT_LT(gpt, 45);
  // Same seed, same jobs.
  RandomStream again(7, "workload");
  const auto jobs2 = generate_jobs(spec, again, {.gpu = "A10"});
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(jobs[i].name, jobs2[i].name);
  }
}

TEST(WorkloadSpec, PoissonAndDiurnalArrivalRates) {
  const auto poisson = parse(
      "workload:\n  arrivals: {process: poisson, count: 4000, mean_interarrival: 30s}\n"
      "  jobs: [{model: resnet50, batch_size: 64, steps: 10}]\n");
  RandomStream rng(1, "arrivals");
  const auto jobs = generate_jobs(poisson, rng);
  // Mean gap 30 s: the last of 4000 arrivals near 120,000 s (sd about 1,900 s).
  EXPECT_NEAR(to_seconds(jobs.back().submit_time), 120000.0, 8000.0);
  const auto diurnal = parse(
      "workload:\n  arrivals: {process: diurnal, count: 20000, mean_interarrival: 60s,\n"
      "             amplitude: 0.8, period: 24h, peak_at: 12h}\n"
      "  jobs: [{model: resnet50, batch_size: 64, steps: 10}]\n");
  RandomStream rng2(2, "arrivals");
  const auto djobs = generate_jobs(diurnal, rng2);
  // Rate 1 + 0.8 cos(2 pi (h - 12) / 24): over the 6 hours around noon it integrates to
  // 6 + 0.8 x 24 / (2 pi) x 2 sin(pi / 4) = 10.3215, over the 6 around midnight to 1.6785.
  // Whole days only (a partial last day would favour the hours it covers).
  const double days = std::floor(to_seconds(djobs.back().submit_time) / 86400.0);
  int noon = 0, night = 0;
  for (const auto& j : djobs) {
    if (to_seconds(j.submit_time) >= days * 86400.0) {
      break;
    }
    const double h = std::fmod(to_seconds(j.submit_time) / 3600.0, 24.0);
    noon += (h >= 9 && h < 15) ? 1 : 0;
    night += (h < 3 || h >= 21) ? 1 : 0;
  }
  EXPECT_NEAR(static_cast<double>(noon) / (noon + night), 10.3215 / 12.0, 0.015);
}

TEST(WorkloadSpec, SizeAndDurationDistributions) {
  const auto spec = parse(
      "workload:\n  arrivals: {process: burst, count: 3000}\n"
      "  jobs:\n  - model: resnet50\n    batch_size: 64\n    pod: {gpus: 8}\n"
      "    gpus: {distribution: choice, values: [8, 16, 32], weights: [1, 1, 2]}\n"
      "    duration: {distribution: lognormal, median: 20m, sigma: 1.0, max: 48h}\n");
  RandomStream rng(3, "w");
  const auto jobs = generate_jobs(spec, rng);
  int r4 = 0;
  std::vector<double> d;
  for (const auto& j : jobs) {
    EXPECT_TRUE(j.replicas == 1 || j.replicas == 2 || j.replicas == 4);
    r4 += j.replicas == 4 ? 1 : 0;
    d.push_back(to_seconds(*j.duration));
  }
  EXPECT_NEAR(r4 / 3000.0, 0.5, 0.04);
  std::sort(d.begin(), d.end());
  EXPECT_NEAR(d[1500] / 1200.0, 1.0, 0.08);
  EXPECT_LE(d.back(), 48 * 3600.0);
}

TEST(WorkloadSpec, TracedModelAndTraceReplay) {
  const std::string dir = std::filesystem::temp_directory_path() / "tidesim_wl_test";
  std::filesystem::create_directories(dir);
  {
    std::ofstream f(dir + "/t.csv");
    f << "name,submit_s,duration_s,pods,gpus_per_pod,gpu_milli,cpu_milli,memory_mib\n"
         "b,20,100,1,1,0,4000,1024\na,10,50,2,4,0,,\nc,30,,1,0,500,,\n";
  }
  const auto spec = parse(
      "workload:\n"
      "  models:\n  - name: tiny\n    model_state: 1GiB\n    activation_per_sample: 10MiB\n"
      "    gradient: 100MB\n    throughputs: [{gpu: V100, batch: 10, samples_per_second: 100}]\n"
      "  trace: {file: t.csv, model: tiny, batch_size: 10, default_duration: 200s,\n"
      "          pod: {image: trainer, labels: {team: a}}}\n",
      dir);
  RandomStream rng(1, "w");
  const auto jobs = generate_jobs(spec, rng, {.gpu = "V100", .allreduce_bandwidth = 10e9});
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0].name, "a");  // sorted by submit time
  EXPECT_EQ(jobs[0].replicas, 2);
  EXPECT_EQ(jobs[0].pod_template.requests.gpus, 4);
  EXPECT_EQ(jobs[0].pod_template.image, "trainer");
  // Traced model: 0.1 s compute per step; 8 GPUs: sync 100 MB / 10 GB/s x 14/8 = 0.0175 s;
  // 50 s / 0.1175 s = 425.5 -> 426 steps.
  EXPECT_EQ(jobs[0].steps, 426);
  EXPECT_EQ(jobs[1].steps, 1000);  // 100 s alone on one GPU at 0.1 s per step
  EXPECT_EQ(jobs[1].pod_template.requests.cpu_milli, 4000);
  // c: no duration in the trace -> default 200 s; half a GPU -> 0.2 s per step -> 1000 steps.
  EXPECT_EQ(jobs[2].pod_template.requests.gpu_milli, 500);
  EXPECT_EQ(jobs[2].steps, 1000);
}

TEST(WorkloadSpec, StrictErrors) {
  EXPECT_EQ(message_of([] {
              parse(
                  "workload:\n  arrivals: {process: burst, count: 1}\n"
                  "  jobs: [{model: resnet50, batch_size: 64, steps: 1, stpes: 2}]\n");
            }).substr(0, 40),
            "s.yaml:3:54: workload.jobs[0].stpes: unk");
  EXPECT_NE(message_of([] {
              parse(
                  "workload:\n  arrivals: {process: burst, count: 1}\n"
                  "  jobs: [{model: bert, batch_size: 64, steps: 1}]\n");
            }).find("unknown model 'bert'"),
            std::string::npos);
  EXPECT_EQ(message_of([] {
              parse(
                  "workload:\n  arrivals: {process: burst, count: 1}\n"
                  "  jobs: [{model: resnet50, batch_size: 64}]\n");
            }),
            "s.yaml:3:10: workload.jobs[0].steps: give exactly one of steps and duration");
  EXPECT_EQ(message_of([] {
              parse(
                  "workload:\n  arrivals: {process: sometimes, count: 1}\n"
                  "  jobs: [{model: resnet50, batch_size: 64, steps: 1}]\n");
            }),
            "s.yaml:2:23: workload.arrivals.process: 'sometimes' is not one of: burst, poisson, "
            "diurnal");
  EXPECT_EQ(message_of([] { parse("workload:\n  arrivals: {process: burst, count: 1}\n"); }),
            "s.yaml:2:3: workload.jobs: missing required field (a workload is a trace, or "
            "arrivals + jobs)");
  // A traced model's ramp window longer than its ramp-up, or an unknown allocator.
  const std::string model =
      "workload:\n  arrivals: {process: burst, count: 1}\n"
      "  jobs: [{model: tiny, batch_size: 1, steps: 1}]\n"
      "  models:\n  - name: tiny\n    model_state: 1GiB\n    activation_per_sample: 10MiB\n"
      "    gradient: 100MB\n    throughputs: [{gpu: V100, batch: 10, samples_per_second: 100}]\n";
  EXPECT_EQ(message_of([&] { parse(model + "    ramp_up: 5s\n    ramp_window: 6s\n"); }),
            "s.yaml:11:18: workload.models[0].ramp_window: the ramp window must not exceed "
            "ramp_up");
  EXPECT_EQ(message_of([&] { parse(model + "    allocator: greedy\n"); }),
            "s.yaml:10:16: workload.models[0].allocator: 'greedy' is not one of: caching, "
            "releasing");
  EXPECT_NE(
      message_of([] {
        parse(
            "workload:\n  arrivals: {process: burst, count: 1}\n"
            "  jobs: [{manifest: nope.yaml, model: resnet50, batch_size: 1, steps: 1}]\n");
      }).rfind("s.yaml:3:21: workload.jobs[0].manifest: 'nope.yaml' is not a file (looked at ", 0),
      std::string::npos);
}

// Integers are range-checked before any narrowing, and a checkpoint interval below 1 s (a flood
// of checkpoint events) is refused; each names its place.
TEST(WorkloadSpec, OutOfRangeCountsAndIntervalsAreRefused) {
  const std::string head = "workload:\n  arrivals: {process: burst, count: 1}\n  jobs: [{";
  EXPECT_EQ(message_of([&] {
              parse(head + "model: resnet50, batch_size: 8, steps: 10, gpus: 2147483648}]\n");
            }),
            "s.yaml:3:60: workload.jobs[0].gpus: '2147483648' is not a GPU count in [1, 100000]");
  EXPECT_EQ(message_of([&] {
              parse(head + "model: resnet50, batch_size: 8, steps: 10, gpus: 4294967297}]\n");
            }),
            "s.yaml:3:60: workload.jobs[0].gpus: '4294967297' is not a GPU count in [1, 100000]");
  EXPECT_EQ(
      message_of([&] {
        parse(head + "model: resnet50, batch_size: 8, steps: 10, checkpoint_interval: 1us}]\n");
      }),
      "s.yaml:3:75: workload.jobs[0].checkpoint_interval: '1us' must be 0s (none) or at "
      "least 1s");
}

// Products of validated values (issue 16, "durations x steps x replica products"): a trace time
// of 1e12 s (its column's limit) at time_scale 1e9 (its limit) is 1e21 s, whose microseconds
// llround turned into an unspecified number; a lognormal of mu 100 draws about e^100 s, which
// from_seconds refused with std::invalid_argument and no place (exit 1). Both are now refused
// with the place, against the 1000-year bound on every duration.
TEST(WorkloadSpec, ProductsOfValidatedValuesAreRefusedWithTheirPlace) {
  const std::string dir = std::filesystem::temp_directory_path() / "tidesim_wl_products";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/t.csv") << "name,submit_s,duration_s,pods,gpus_per_pod,gpu_milli\n"
                                   "x,1000000000000,10,1,1,0\n";
  const auto scaled = parse(
      "workload:\n  trace: {file: t.csv, model: resnet50, batch_size: 64, time_scale: 1e9}\n", dir);
  RandomStream rng(1, "w");
  EXPECT_EQ(message_of([&] { generate_jobs(scaled, rng, {.gpu = "A10"}); }),
            dir +
                "/t.csv:2:3: submit: submit time x time_scale = 1e+21 s is beyond 365250d "
                "(1000 years)");  // at the submit_s cell, after "x,"
  const auto drawn = parse(
      "workload:\n  arrivals: {process: burst, count: 1}\n"
      "  jobs:\n  - model: resnet50\n    batch_size: 64\n"
      "    duration: {distribution: lognormal, mu: 100, sigma: 0.001}\n");
  const std::string m = message_of([&] { generate_jobs(drawn, rng, {.gpu = "A10"}); });
  EXPECT_EQ(m.rfind("s.yaml:4:5: workload.jobs.job: drew a run time of 2.6", 0), 0u) << m;
  EXPECT_NE(m.find("s, beyond 365250d (1000 years); lower mu or sigma, or set max"),
            std::string::npos)
      << m;
}

// Issue 46, item 5: a mix entry's replicas that take its job past a job's most GPUs with its
// pods' (1,024 x 100,000 would be 102 million GPUs) are refused at replicas.
TEST(WorkloadSpec, GpuLimitOverflowOfReplicasIsRefusedAtReplicas) {
  EXPECT_EQ(message_of([] {
              parse(
                  "workload:\n  arrivals: {process: burst, count: 1}\n  jobs:\n"
                  "  - {model: resnet50, batch_size: 64, steps: 10, pod: {gpus: 1024}, "
                  "replicas: 100000}\n");
            }),
            "s.yaml:4:79: workload.jobs[0].replicas: 100000 replicas of 1024 GPUs each is more "
            "than a job may ask (100000 GPUs)");
  EXPECT_EQ(parse("workload:\n  arrivals: {process: burst, count: 1}\n  jobs:\n"
                  "  - {model: resnet50, batch_size: 64, steps: 10, pod: {gpus: 8}, replicas: 4}\n")
                .mix.front()
                .job.replicas,
            4);
}

}  // namespace
}  // namespace tidesim::workloads
