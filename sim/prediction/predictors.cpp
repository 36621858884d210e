#include "sim/prediction/predictors.hpp"

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
  // Design matrix: row r (t = p + r) is [1, x_{t-1}, ..., x_{t-p}]; target x_t.
  Eigen::MatrixXd a(rows, p + 1);
  Eigen::VectorXd y(rows);
  for (Eigen::Index r = 0; r < rows; ++r) {
    const Eigen::Index t = p + r;
    a(r, 0) = 1.0;
    for (int i = 1; i <= p; ++i) {
      a(r, i) = x[static_cast<std::size_t>(t - i)];
    }
    y(r) = x[static_cast<std::size_t>(t)];
  }
  const Eigen::VectorXd beta = a.completeOrthogonalDecomposition().solve(y);
  ArModel m;
  m.intercept = beta(0);
  m.phi.resize(static_cast<std::size_t>(p));
  for (int i = 1; i <= p; ++i) {
    m.phi[static_cast<std::size_t>(i - 1)] = beta(i);
  }
  return m;
}

double ar_forecast(std::span<const double> x, int p, int h) {
  const ArModel m = fit_ar(x, p);
  if (m.phi.empty()) {
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
