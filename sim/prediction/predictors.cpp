#include "tidesim/sim/prediction/predictors.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <stdexcept>

namespace tidesim::prediction {

double last_forecast(std::span<const double> x) {
  return x.empty() ? 0.0 : x.back();
}

double ewma_forecast(std::span<const double> x, double alpha) {
  if (x.empty()) {
    return 0.0;
  }
  double level = x[0];
  for (std::size_t t = 1; t < x.size(); ++t) {
    level = alpha * x[t] + (1.0 - alpha) * level;
  }
  return level;
}

double holt_forecast(std::span<const double> x, double alpha, double beta, int h) {
  if (x.empty()) {
    return 0.0;
  }
  double level = x[0];
  double trend = x.size() > 1 ? x[1] - x[0] : 0.0;
  for (std::size_t t = 1; t < x.size(); ++t) {
    const double previous = level;
    level = alpha * x[t] + (1.0 - alpha) * (level + trend);
    trend = beta * (level - previous) + (1.0 - beta) * trend;
  }
  return level + static_cast<double>(h) * trend;
}

ArModel fit_ar(std::span<const double> x, int p) {
  if (p < 1) {
    throw std::invalid_argument("AR order must be at least 1");
  }
  const auto n = static_cast<Eigen::Index>(x.size());
  const Eigen::Index rows = n - p;
  if (rows < p + 1) {
    return {};
  }
  // The fit is done on the centred series z_t = x_t - mu (mu: the mean), which conditions the
  // design when the series hardly moves: z_t = c' + sum phi_i z_{t-i} is the same model with
  // c = c' + mu (1 - sum phi_i).
  double mu = 0.0;
  for (const double v : x) {
    mu += v;
  }
  mu /= static_cast<double>(x.size());
  // Design matrix: row r (t = p + r) is [1, z_{t-1}, ..., z_{t-p}]; target z_t.
  Eigen::MatrixXd a(rows, p + 1);
  Eigen::VectorXd y(rows);
  for (Eigen::Index r = 0; r < rows; ++r) {
    const Eigen::Index t = p + r;
    a(r, 0) = 1.0;
    for (int i = 1; i <= p; ++i) {
      a(r, i) = x[static_cast<std::size_t>(t - i)] - mu;
    }
    y(r) = x[static_cast<std::size_t>(t)] - mu;
  }
  const Eigen::VectorXd beta = a.completeOrthogonalDecomposition().solve(y);
  ArModel m;
  double phi_sum = 0.0;
  for (int i = 1; i <= p; ++i) {
    phi_sum += beta(i);
  }
  m.intercept = beta(0) + mu * (1.0 - phi_sum);
  m.phi.resize(static_cast<std::size_t>(p));
  for (int i = 1; i <= p; ++i) {
    m.phi[static_cast<std::size_t>(i - 1)] = beta(i);
  }
  return m;
}

double spectral_radius(const ArModel& m) {
  const auto p = static_cast<Eigen::Index>(m.phi.size());
  if (p == 0) {
    return 0.0;
  }
  // Companion matrix: first row phi_1 .. phi_p, ones on the subdiagonal. Its eigenvalues are
  // the inverses of the roots of 1 - phi_1 z - .. - phi_p z^p.
  Eigen::MatrixXd c = Eigen::MatrixXd::Zero(p, p);
  for (Eigen::Index i = 0; i < p; ++i) {
    c(0, i) = m.phi[static_cast<std::size_t>(i)];
  }
  for (Eigen::Index i = 1; i < p; ++i) {
    c(i, i - 1) = 1.0;
  }
  return c.eigenvalues().cwiseAbs().maxCoeff();
}

double ar_forecast(std::span<const double> x, int p, int h) {
  const ArModel m = fit_ar(x, p);
  if (m.phi.empty() || spectral_radius(m) > 1.0 + kUnitRootTolerance) {
    return last_forecast(x);
  }
  // The last p values, newest last, extended by each forecast in turn.
  std::vector<double> window(x.end() - p, x.end());
  double next = window.back();
  for (int step = 0; step < h; ++step) {
    next = m.intercept;
    for (int i = 1; i <= p; ++i) {
      next += m.phi[static_cast<std::size_t>(i - 1)] * window[window.size() - i];
    }
    window.push_back(next);
  }
  return next;
}

double forecast(PredictorKind kind, const PredictorParams& params, std::span<const double> x,
                int h) {
  switch (kind) {
    case PredictorKind::kLast:
      return last_forecast(x);
    case PredictorKind::kEwma:
      return ewma_forecast(x, params.alpha);
    case PredictorKind::kHolt:
      return holt_forecast(x, params.alpha, params.beta, h);
    case PredictorKind::kAr:
      return ar_forecast(x, params.order, h);
  }
  return last_forecast(x);
}

std::string_view to_string(PredictorKind kind) {
  switch (kind) {
    case PredictorKind::kLast:
      return "last";
    case PredictorKind::kEwma:
      return "ewma";
    case PredictorKind::kHolt:
      return "holt";
    case PredictorKind::kAr:
      return "ar";
  }
  return "last";
}

}  // namespace tidesim::prediction
