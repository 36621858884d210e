#include "tidesim/workloads/distributions.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tidesim::workloads {
namespace {

TEST(Distributions, NormalQuantileKnownValues) {
  EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-9);
  EXPECT_NEAR(normal_quantile(0.75), 0.6744897502, 1e-8);
  EXPECT_NEAR(normal_quantile(0.9), 1.2815515655, 1e-8);
  EXPECT_NEAR(normal_quantile(0.99), 2.3263478740, 1e-8);
  EXPECT_NEAR(normal_quantile(0.01), -2.3263478740, 1e-8);
  EXPECT_THROW(normal_quantile(0.0), std::invalid_argument);
}

TEST(Distributions, LognormalFitRecoversExactPercentiles) {
  const Lognormal truth{7.0, 1.5};
  const std::vector<QuantilePoint> pts = {
      {0.25, truth.quantile(0.25)}, {0.5, truth.quantile(0.5)}, {0.9, truth.quantile(0.9)}};
  const Lognormal fit = fit_lognormal(pts);
  EXPECT_NEAR(fit.mu, 7.0, 1e-9);
  EXPECT_NEAR(fit.sigma, 1.5, 1e-9);
  EXPECT_THROW(fit_lognormal(std::vector<QuantilePoint>{{0.5, 10}}), std::invalid_argument);
}

TEST(Distributions, PhillyFit) {
  // Least squares of ln q on z over the five CALIBRATION.md percentiles (docs: mu 6.6465,
  // sigma 2.4570, median 770 s, mean 15,755 s); computed independently with Python's
  // statistics.NormalDist.
  const Lognormal fit = fit_lognormal(philly_runtime_percentiles());
  EXPECT_NEAR(fit.mu, 6.646492, 1e-5);
  EXPECT_NEAR(fit.sigma, 2.456996, 1e-5);
  EXPECT_NEAR(fit.median(), 770.08, 0.01);
  EXPECT_NEAR(fit.mean(), 15754.9, 0.5);
}

TEST(Distributions, SamplesFollowTheLognormal) {
  RandomStream rng(42, "test");
  Distribution d;
  d.kind = Distribution::Kind::kLognormal;
  d.lognormal = {std::log(1000.0), 1.0};
  d.min = 1;
  std::vector<double> xs;
  for (int i = 0; i < 20000; ++i) {
    xs.push_back(d.sample(rng));
  }
  std::sort(xs.begin(), xs.end());
  EXPECT_NEAR(xs[10000] / 1000.0, 1.0, 0.05);  // median within 5% (sampling error ~1.8%)
  Distribution c;
  c.kind = Distribution::Kind::kChoice;
  c.values = {1, 8};
  c.weights = {1, 0};
  EXPECT_EQ(c.sample(rng), 1);
}

}  // namespace
}  // namespace tidesim::workloads
