#pragma once
/// Load predictors on a regularly spaced series x_0 .. x_{n-1} (oldest first; one value per
/// telemetry scrape). Each returns the forecast of x_{n-1+h} for h >= 1 steps ahead. Pure
/// numerics: the cluster model feeds them series (sim/model/load_forecast.hpp). Formulas and their
/// sources: docs/prediction.md.
#include <span>
#include <string_view>
#include <vector>

namespace tidesim::prediction {

/// The statistical predictors (the job-aware one needs the pods' memory timelines and lives in
/// the cluster model: sim/model/load_forecast.hpp).
enum class PredictorKind { kLast, kEwma, kHolt, kAr };

/// Parameters of the predictors.
struct PredictorParams {
  /// EWMA and Holt level smoothing, in (0, 1].
  double alpha = 0.5;
  /// Holt trend smoothing, in (0, 1].
  double beta = 0.3;
  /// AR order p >= 1.
  int order = 2;
};

/// The last value (the reactive scheduler's view). Empty series: 0.
double last_forecast(std::span<const double> x);

/// Exponentially weighted moving average (Brown's simple exponential smoothing):
///   l_0 = x_0,  l_t = alpha x_t + (1 - alpha) l_{t-1};  forecast(h) = l_{n-1} for every h.
/// Empty series: 0.
double ewma_forecast(std::span<const double> x, double alpha);

/// Holt's linear trend (double exponential smoothing):
///   l_0 = x_0, b_0 = x_1 - x_0 (0 when n = 1),
///   l_t = alpha x_t + (1 - alpha)(l_{t-1} + b_{t-1}),
///   b_t = beta (l_t - l_{t-1}) + (1 - beta) b_{t-1},
///   forecast(h) = l_{n-1} + h b_{n-1}.
/// Empty series: 0.
double holt_forecast(std::span<const double> x, double alpha, double beta, int h);

/// An AR(p) model with intercept: x_t = c + sum_{i=1..p} phi_i x_{t-i} + e_t.
struct ArModel {
  double intercept = 0.0;
  /// phi_1 .. phi_p (phi_1 multiplies the newest value).
  std::vector<double> phi;
};

/// Least-squares fit of AR(p) over the whole series: the rows t = p .. n-1 of
/// [1, z_{t-1}, .., z_{t-p}] beta = z_t on the centred series z = x - mean(x), solved by a
/// complete orthogonal decomposition (the minimum-norm solution when the design is
/// rank-deficient, e.g. a constant series), then c = beta_0 + mean (1 - sum phi_i). Needs
/// n >= 2p + 1 (at least p + 1 equations); returns a model with empty phi otherwise.
ArModel fit_ar(std::span<const double> x, int p);

/// The largest modulus of the eigenvalues of the model's companion matrix (the inverse of its
/// characteristic polynomial's smallest root): above 1 its forecasts grow without bound.
double spectral_radius(const ArModel& m);

/// A unit root (a line, a random walk) is accepted up to this rounding.
inline constexpr double kUnitRootTolerance = 1e-6;

/// Fits AR(p) on the series and iterates it h steps (unknown future values replaced by their
/// forecasts). Falls back to the last value when the series is too short to fit (n < 2p + 1) or
/// the fitted model is explosive (spectral_radius() > 1 + kUnitRootTolerance: its forecasts
/// would leave any range the series has seen).
double ar_forecast(std::span<const double> x, int p, int h);

/// The forecast of `kind` with `params`, h >= 1 steps ahead.
double forecast(PredictorKind kind, const PredictorParams& params, std::span<const double> x,
                int h);

/// "last", "ewma", "holt", "ar".
std::string_view to_string(PredictorKind kind);

}  // namespace tidesim::prediction
