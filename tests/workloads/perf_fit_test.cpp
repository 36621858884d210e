// The fit of Pollux's performance parameters (workloads/perf_fit.hpp): the analytic gradient
// against central differences, the recovery of known parameters from samples the model itself
// generates, each rule that fixes a parameter, and a real application's placements from
// ../shared/data (skipped when absent, failed under CI).
#include "tidesim/workloads/perf_fit.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/common/require.hpp"
#include "tidesim/workloads/csv.hpp"

namespace tidesim::workloads {
namespace {

PerfParams truth() {
  return {.alpha_c = 0.02,
          .beta_c = 5e-4,
          .alpha_n = 0.08,
          .beta_n = 0.004,
          .alpha_r = 0.01,
          .beta_r = 0.002,
          .gamma = 1.5};
}

struct Config {
  int nodes;
  int replicas;
};

/// Noise-free samples of `p` on each configuration at each atomic batch.
std::vector<PerfSample> samples_of(const PerfParams& p, const std::vector<Config>& configs,
                                   const std::vector<double>& batches) {
  std::vector<PerfSample> samples;
  for (const Config& c : configs) {
    for (const double b : batches) {
      const double accum = predict_accum_time(p, b);
      const double network = predict_network_time(p, c.nodes, c.replicas);
      samples.push_back({.nodes = c.nodes,
                         .replicas = c.replicas,
                         .atomic_bsz = b,
                         .accum_step_time = accum,
                         .optim_step_time = predict_optim_time(p, accum, network)});
    }
  }
  return samples;
}

std::vector<Config> all_configs() {
  return {{1, 1}, {1, 2}, {1, 4}, {2, 2}, {2, 4}, {2, 8}, {4, 16}};
}
std::vector<double> batches() {
  return {16, 32, 64, 128};
}

void expect_gradient_matches(const PerfVector& x, const std::vector<PerfSample>& samples) {
  PerfVector analytic{};
  perf_fit_objective(x, samples, &analytic);
  for (int i = 0; i < 7; ++i) {
    const double h = 1e-6 * std::max(std::abs(x[i]), 1e-3);
    PerfVector up = x;
    PerfVector down = x;
    up[i] += h;
    down[i] -= h;
    const double numeric =
        (perf_fit_objective(up, samples) - perf_fit_objective(down, samples)) / (2 * h);
    EXPECT_NEAR(analytic[i], numeric, 1e-6 * std::max(1.0, std::abs(numeric))) << "parameter " << i;
  }
}

TEST(PerfFit, GradientMatchesFiniteDifferences) {
  // Away from the optimum (both RMS terms positive), at several gammas and on every branch of the
  // network time.
  const auto samples = samples_of(truth(), all_configs(), batches());
  expect_gradient_matches({0.1, 0.01, 0.1, 0.01, 0.1, 0.01, 1.001}, samples);
  expect_gradient_matches({0.03, 1e-3, 0.05, 0.002, 0.02, 0.001, 3.0}, samples);
  expect_gradient_matches({0.01, 2e-4, 0.2, 0.01, 0.005, 0.004, 9.5}, samples);
}

TEST(PerfFit, ObjectiveIsTheArtifactsAtTheTruth) {
  // Noise-free samples: both RMS terms are 0, what remains is the regularisation,
  // 1e-3 x 0.5^2 + 1e-2 x ((0.004 / 0.08)^2 + (0.002 / 0.01)^2).
  const auto samples = samples_of(truth(), all_configs(), batches());
  EXPECT_NEAR(perf_fit_objective(to_vector(truth()), samples),
              1e-3 * 0.25 + 1e-2 * (0.05 * 0.05 + 0.2 * 0.2), 1e-12);
}

void expect_recovers(const PerfParams& p) {
  const PerfVector want = to_vector(p);
  const PerfVector got = to_vector(fit_perf_params(samples_of(p, all_configs(), batches())));
  for (int i = 0; i < 7; ++i) {
    EXPECT_NEAR(got[i], want[i], 1e-6 * want[i]) << "parameter " << i << ", gamma " << p.gamma;
  }
}

TEST(PerfFit, RecoversTheParametersOfNoiseFreeSamples) {
  expect_recovers(truth());
  // gamma at its lower bound, and a larger overlap.
  for (const double gamma : {1.0, 3.0}) {
    PerfParams p = truth();
    p.gamma = gamma;
    expect_recovers(p);
  }
}

TEST(PerfFit, PrefersASmallerGammaWhenTheRegulariserOutweighsTheFit) {
  // At gamma 10 the regulariser alone is 1e-3 x 81 = 0.081: a smaller gamma that fits the
  // samples less well costs less. The fit finds such a point.
  PerfParams p = truth();
  p.gamma = 10;
  const auto samples = samples_of(p, all_configs(), batches());
  const PerfParams fitted = fit_perf_params(samples);
  EXPECT_LT(fitted.gamma, 10);
  EXPECT_LT(perf_fit_objective(to_vector(fitted), samples),
            perf_fit_objective(to_vector(p), samples));
}

TEST(PerfFit, IsDeterministic) {
  const auto samples = samples_of(truth(), {{1, 1}, {1, 2}, {2, 4}}, {24, 48});
  const PerfVector a = to_vector(fit_perf_params(samples));
  const PerfVector b = to_vector(fit_perf_params(samples));
  EXPECT_EQ(a, b);
}

TEST(PerfFit, OneAtomicBatchFixesAlphaCAtHalfTheMeanAccumTime) {
  const auto samples = samples_of(truth(), all_configs(), {32});
  double mean = 0;
  for (const PerfSample& s : samples) {
    mean += s.accum_step_time / static_cast<double>(samples.size());
  }
  const PerfFitBox box = perf_fit_box(samples);
  EXPECT_TRUE(box.fixed(0));
  EXPECT_DOUBLE_EQ(box.initial[0], mean / 2);
  for (int i = 1; i < 7; ++i) {
    EXPECT_FALSE(box.fixed(i)) << i;
  }
  const PerfParams fitted = fit_perf_params(samples);
  EXPECT_EQ(fitted.alpha_c, box.initial[0]);
  EXPECT_DOUBLE_EQ(fitted.alpha_c, 0.036 / 2);
  // All samples share one compute time, 0.02 + 0.016 = 0.036: alpha_c is half of it, beta_c the
  // rest per sample, 0.018 / 32.
  EXPECT_NEAR(fitted.beta_c, 0.018 / 32, 1e-9);
}

TEST(PerfFit, NoMultiNodeSampleFixesTheInterNodeTermsThenAppliesThePrior) {
  const auto samples = samples_of(truth(), {{1, 1}, {1, 2}, {1, 4}}, batches());
  const PerfFitBox box = perf_fit_box(samples);
  EXPECT_TRUE(box.fixed(2) && box.fixed(3));
  EXPECT_EQ(box.initial[2], 1e-8);
  EXPECT_EQ(box.initial[3], 1e-8);
  EXPECT_FALSE(box.fixed(4) || box.fixed(5));
  const PerfParams fitted = fit_perf_params(samples);
  // The intra-node terms are identified; inter-node ones become 1.1 x them.
  EXPECT_NEAR(fitted.alpha_r, truth().alpha_r, 1e-5 * truth().alpha_r);
  EXPECT_NEAR(fitted.beta_r, truth().beta_r, 1e-5 * truth().beta_r);
  EXPECT_EQ(fitted.alpha_n, 1.1 * fitted.alpha_r);
  EXPECT_EQ(fitted.beta_n, 1.1 * fitted.beta_r);
}

TEST(PerfFit, NoSingleNodeMultiReplicaSampleFixesTheIntraNodeTerms) {
  const auto samples = samples_of(truth(), {{1, 1}, {2, 2}, {2, 4}, {4, 8}}, batches());
  const PerfFitBox box = perf_fit_box(samples);
  EXPECT_TRUE(box.fixed(4) && box.fixed(5));
  EXPECT_FALSE(box.fixed(2) || box.fixed(3));
  const PerfParams fitted = fit_perf_params(samples);
  EXPECT_EQ(fitted.alpha_r, 1e-8);
  EXPECT_EQ(fitted.beta_r, 1e-8);
  EXPECT_NEAR(fitted.alpha_n, truth().alpha_n, 1e-5 * truth().alpha_n);
  EXPECT_NEAR(fitted.beta_n, truth().beta_n, 1e-5 * truth().beta_n);
}

TEST(PerfFit, NoSampleOverTwoReplicasFixesBothRetrogressions) {
  const auto samples = samples_of(truth(), {{1, 1}, {1, 2}, {2, 2}}, batches());
  const PerfFitBox box = perf_fit_box(samples);
  EXPECT_TRUE(box.fixed(3) && box.fixed(5));
  EXPECT_FALSE(box.fixed(2) || box.fixed(4));
  const PerfParams fitted = fit_perf_params(samples);
  EXPECT_EQ(fitted.beta_n, 1e-8);
  EXPECT_EQ(fitted.beta_r, 1e-8);
  // Two replicas see alpha + beta x 1e-8: the alphas absorb that.
  EXPECT_NEAR(fitted.alpha_n, truth().alpha_n, 1e-5 * truth().alpha_n);
  EXPECT_NEAR(fitted.alpha_r, truth().alpha_r, 1e-5 * truth().alpha_r);
}

TEST(PerfFit, OnlyOneGpuFixesEveryNetworkTerm) {
  const auto samples = samples_of(truth(), {{1, 1}}, batches());
  const PerfFitBox box = perf_fit_box(samples);
  for (int i = 2; i < 6; ++i) {
    EXPECT_TRUE(box.fixed(i)) << i;
  }
  const PerfParams fitted = fit_perf_params(samples);
  EXPECT_NEAR(fitted.alpha_c, truth().alpha_c, 1e-5 * truth().alpha_c);
  EXPECT_NEAR(fitted.beta_c, truth().beta_c, 1e-5 * truth().beta_c);
  // The prior: 1.1 x the fixed 1e-8.
  EXPECT_DOUBLE_EQ(fitted.alpha_n, 1.1e-8);
}

TEST(PerfFit, RefusesBadSamples) {
  EXPECT_THROW(fit_perf_params({}), std::invalid_argument);
  const PerfSample good{
      .nodes = 1, .replicas = 1, .atomic_bsz = 8, .accum_step_time = 0.1, .optim_step_time = 0.2};
  std::vector<PerfSample> bad(4, good);
  bad[0].nodes = 2;  // more nodes than replicas
  bad[1].atomic_bsz = 0;
  bad[2].accum_step_time = -1;
  bad[3].optim_step_time = std::nan("");
  for (const PerfSample& b : bad) {
    EXPECT_THROW(fit_perf_params({good, b}), std::invalid_argument);
  }
  EXPECT_NO_THROW(fit_perf_params({good}));
}

// cifar10's measured placements (the artifact's simulator/traces/cifar10/placements.csv): nodes =
// the placement's digits, replicas = their sum, accum time = step - sync, optim time = step.
// The fit ends at a stationary point of the objective (every free parameter's partial derivative
// about 0, or pointing out of its bound) and improves on the starting point.
TEST(PerfFit, FitsCifar10sPlacementsToAStationaryPoint) {
  const std::string path = TIDESIM_SHARED_DATA_DIR "/pollux/cifar10/placements.csv";
  TIDESIM_REQUIRE_FILE(path);
  const CsvTable table(path, {"placement", "local_bsz", "step_time", "sync_time"}, {});
  std::vector<PerfSample> samples;
  for (std::size_t row = 0; row < table.rows(); ++row) {
    const std::string& placement = table.text(row, "placement");
    int replicas = 0;
    for (const char c : placement) {
      replicas += c - '0';
    }
    const double step = table.number(row, "step_time", 0, 1e9);
    samples.push_back({.nodes = static_cast<int>(placement.size()),
                       .replicas = replicas,
                       .atomic_bsz = table.number(row, "local_bsz", 1, 1e9),
                       .accum_step_time = step - table.number(row, "sync_time", 0, 1e9),
                       .optim_step_time = step});
  }
  const PerfFitBox box = perf_fit_box(samples);
  const PerfVector x = to_vector(fit_perf_params(samples));
  PerfVector gradient{};
  const double value = perf_fit_objective(x, samples, &gradient);
  EXPECT_LT(value, perf_fit_objective(box.initial, samples));
  for (int i = 0; i < 7; ++i) {
    if (box.fixed(i)) {
      continue;
    }
    const bool at_lower = x[i] <= box.lower[i] * (1 + 1e-6) && gradient[i] > 0;
    const bool at_upper = x[i] >= box.upper[i] && gradient[i] < 0;
    if (!at_lower && !at_upper) {
      EXPECT_NEAR(gradient[i] * std::max(x[i], 1e-3), 0.0, 1e-6) << "parameter " << i;
    }
  }
}

}  // namespace
}  // namespace tidesim::workloads
