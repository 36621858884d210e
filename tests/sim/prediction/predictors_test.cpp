// The load predictors on synthetic series with known answers (docs/prediction.md).
#include "tidesim/sim/prediction/predictors.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tidesim/sim/engine/random.hpp"

namespace tidesim::prediction {
namespace {

// x_t = 3 + 2t, t = 0..9 (x_9 = 21).
std::vector<double> line() {
  std::vector<double> x;
  for (int t = 0; t < 10; ++t) {
    x.push_back(3.0 + 2.0 * t);
  }
  return x;
}

TEST(Predictors, EwmaLagsALineByItsClosedForm) {
  // On x_t = a + c t with l_0 = x_0, induction gives l_t = x_t - c (1 - alpha) / alpha
  // (1 - (1 - alpha)^t). alpha = 0.5, c = 2, t = 9: l_9 = 21 - 2 (1 - 2^-9) = 19.00390625.
  EXPECT_DOUBLE_EQ(ewma_forecast(line(), 0.5), 19.00390625);
}

TEST(Predictors, HoltFollowsALineExactly) {
  // l_0 = 3, b_0 = x_1 - x_0 = 2; if l_{t-1} = x_{t-1} and b_{t-1} = 2 then
  // l_t = alpha x_t + (1 - alpha)(x_{t-1} + 2) = x_t and b_t = beta 2 + (1 - beta) 2 = 2, so
  // forecast(3) = x_9 + 3 x 2 = 27 for any alpha, beta.
  EXPECT_NEAR(holt_forecast(line(), 0.5, 0.3, 3), 27.0, 1e-12);
  EXPECT_NEAR(holt_forecast(line(), 0.9, 0.1, 1), 23.0, 1e-12);
}

TEST(Predictors, ArFitsALineExactly) {
  // AR(1): x_t = 2 + 1 x_{t-1} holds exactly and the design [1, x_{t-1}] has full rank, so the
  // least-squares fit is c = 2, phi = 1 and three steps from 21 give 27.
  const ArModel m = fit_ar(line(), 1);
  ASSERT_EQ(m.phi.size(), 1u);
  EXPECT_NEAR(m.intercept, 2.0, 1e-9);
  EXPECT_NEAR(m.phi[0], 1.0, 1e-9);
  EXPECT_NEAR(ar_forecast(line(), 1, 3), 27.0, 1e-9);
  // AR(2): x_{t-1} - x_{t-2} = 2 makes the design rank-deficient; every exact solution has
  // phi_1 + phi_2 = 1 and c = 2 (phi_1 + 2 phi_2), which keeps a line on itself, so the
  // minimum-norm solution still forecasts 27.
  EXPECT_NEAR(ar_forecast(line(), 2, 3), 27.0, 1e-9);
}

// 0 0 0 0 1 1 1: a step at t = 4.
const std::vector<double> kStep{0, 0, 0, 0, 1, 1, 1};

TEST(Predictors, EwmaApproachesAStepGeometrically) {
  // After m ones, l = 1 - (1 - alpha)^m: alpha = 0.5, m = 3: 0.875.
  EXPECT_DOUBLE_EQ(ewma_forecast(kStep, 0.5), 0.875);
}

TEST(Predictors, HoltOvershootsAStepByItsTrend) {
  // alpha 0.5, beta 0.3; l = b = 0 through t = 3.
  // t=4: l = 0.5, b = 0.3 x 0.5 = 0.15
  // t=5: l = 0.5 + 0.5 (0.5 + 0.15) = 0.825, b = 0.3 x 0.325 + 0.7 x 0.15 = 0.2025
  // t=6: l = 0.5 + 0.5 (0.825 + 0.2025) = 1.01375,
  //      b = 0.3 x 0.18875 + 0.7 x 0.2025 = 0.198375
  // forecast(1) = 1.212125, forecast(2) = 1.4105.
  EXPECT_NEAR(holt_forecast(kStep, 0.5, 0.3, 1), 1.212125, 1e-12);
  EXPECT_NEAR(holt_forecast(kStep, 0.5, 0.3, 2), 1.4105, 1e-12);
}

TEST(Predictors, ArRecoversADeterministicAr1) {
  // x_0 = 10, x_t = 2 + 0.5 x_{t-1}: 10, 7, 5.5, 4.75, 4.375, 4.1875. The fit is exact (c = 2,
  // phi = 0.5); two steps: 2 + 0.5 x 4.1875 = 4.09375, then 2 + 0.5 x 4.09375 = 4.046875.
  const std::vector<double> x{10, 7, 5.5, 4.75, 4.375, 4.1875};
  const ArModel m = fit_ar(x, 1);
  ASSERT_EQ(m.phi.size(), 1u);
  EXPECT_NEAR(m.intercept, 2.0, 1e-9);
  EXPECT_NEAR(m.phi[0], 0.5, 1e-9);
  EXPECT_NEAR(ar_forecast(x, 1, 1), 4.09375, 1e-9);
  EXPECT_NEAR(ar_forecast(x, 1, 2), 4.046875, 1e-9);
}

TEST(Predictors, ArEstimatesANoisyAr1WithinItsStandardError) {
  // x_t = 1 + 0.8 x_{t-1} + e_t, e_t ~ N(0, 1), 5,000 values from a fixed stream. The
  // least-squares phi has standard error sqrt((1 - phi^2) / n) = sqrt(0.36 / 5000) = 0.0085;
  // 4 standard errors: 0.034. The mean is c / (1 - phi) = 5; c = mean (1 - phi) moves by
  // 5 x 0.034 = 0.17 with phi, so c is held to 0.25.
  RandomStream rng(42, "ar1");
  std::vector<double> x{5.0};
  for (int t = 1; t < 5000; ++t) {
    x.push_back(1.0 + 0.8 * x.back() + rng.normal(0.0, 1.0));
  }
  const ArModel m = fit_ar(x, 1);
  ASSERT_EQ(m.phi.size(), 1u);
  EXPECT_NEAR(m.phi[0], 0.8, 0.034);
  EXPECT_NEAR(m.intercept, 1.0, 0.25);
  // One step ahead the forecast is c + phi x_n, so it lies within the fit's error of the true
  // conditional mean 1 + 0.8 x_n.
  EXPECT_NEAR(ar_forecast(x, 1, 1), 1.0 + 0.8 * x.back(), 0.25 + 0.034 * std::abs(x.back()));
}

TEST(Predictors, AnExplosiveFitFallsBackToTheLastValue) {
  // x_t = 2 x_{t-1}: the fit is exact (c = 0, phi = 2), the companion matrix is [2], its
  // spectral radius 2 > 1: the forecast would double every step, so the last value is returned.
  const std::vector<double> x{1, 2, 4, 8, 16, 32};
  const ArModel m = fit_ar(x, 1);
  ASSERT_EQ(m.phi.size(), 1u);
  EXPECT_NEAR(m.phi[0], 2.0, 1e-9);
  EXPECT_NEAR(spectral_radius(m), 2.0, 1e-9);
  EXPECT_DOUBLE_EQ(ar_forecast(x, 1, 3), 32.0);
  // AR(2) with phi = (0.5, 0.3): companion [[0.5, 0.3], [1, 0]], eigenvalues
  // (0.5 +- sqrt(0.25 + 1.2)) / 2 = 0.852 and -0.352: radius 0.852.
  EXPECT_NEAR(spectral_radius(ArModel{0.0, {0.5, 0.3}}), (0.5 + std::sqrt(1.45)) / 2.0, 1e-12);
}

TEST(Predictors, ShortOrConstantSeriesFallBackToTheLastValue) {
  // AR(2) needs 2p + 1 = 5 values; with 4 it returns the last one.
  EXPECT_DOUBLE_EQ(ar_forecast(std::vector<double>{1, 2, 3, 4}, 2, 1), 4.0);
  // A constant series: every least-squares solution reproduces it.
  EXPECT_NEAR(ar_forecast(std::vector<double>(20, 0.7), 3, 5), 0.7, 1e-9);
  EXPECT_DOUBLE_EQ(holt_forecast(std::vector<double>{0.4}, 0.5, 0.3, 4), 0.4);
  EXPECT_DOUBLE_EQ(ewma_forecast(std::vector<double>{}, 0.5), 0.0);
  EXPECT_THROW(fit_ar(std::vector<double>{1, 2, 3}, 0), std::invalid_argument);
}

}  // namespace
}  // namespace tidesim::prediction
