#include "tidesim/sim/admission/gavel_conic_centre.hpp"

#include <Eigen/Dense>
#include <cmath>
#include <limits>

namespace tidesim::gavel {

namespace {

using Point = std::vector<std::vector<double>>;

constexpr int kMaxSteps = 100;
constexpr double kDecrement = 1e-12;  // stop when the Newton decrement is below it
constexpr double kArmijo = 0.25;
constexpr double kLeast = 1e-12;  // the smallest step tried

// A job's row sum and throughput under x.
struct JobSums {
  double share = 0.0;
  double throughput = 0.0;
};

JobSums sums(const FtfFace& f, const Point& x, std::size_t j) {
  JobSums s;
  for (std::size_t t = 0; t < f.gpus.size(); ++t) {
    s.share += x[j][t];
    s.throughput += f.throughput[j][t] * x[j][t];
  }
  return s;
}

// Each type's GPUs left under x.
std::vector<double> gpus_left(const FtfFace& f, const Point& x) {
  std::vector<double> left = f.gpus;
  for (std::size_t j = 0; j < x.size(); ++j) {
    for (std::size_t t = 0; t < left.size(); ++t) {
      left[t] -= f.scale_factor[j] * x[j][t];
    }
  }
  return left;
}

// The gradient of phi and its Hessian's parts: per job a types x types block, and the types'
// slacks of the coupling sum_t v_t v_t^T / left_t^2 (v_t: sf_j at (j, t)).
struct Derivatives {
  Eigen::VectorXd gradient;
  std::vector<Eigen::MatrixXd> blocks;
  Eigen::VectorXd left;
};

Derivatives derivatives(const FtfFace& f, const Point& x) {
  const std::size_t types = f.gpus.size();
  Derivatives d{Eigen::VectorXd::Zero(static_cast<Eigen::Index>(x.size() * types)), {}, {}};
  const std::vector<double> left = gpus_left(f, x);
  d.left = Eigen::Map<const Eigen::VectorXd>(left.data(), static_cast<Eigen::Index>(types));
  for (std::size_t j = 0; j < x.size(); ++j) {
    const JobSums s = sums(f, x, j);
    const auto n = static_cast<Eigen::Index>(types);
    Eigen::MatrixXd block =
        Eigen::MatrixXd::Constant(n, n, 1.0 / (1.0 - s.share) / (1.0 - s.share));
    Eigen::VectorXd a(n);
    for (Eigen::Index t = 0; t < n; ++t) {
      const double v = x[j][static_cast<std::size_t>(t)];
      a[t] = f.throughput[j][static_cast<std::size_t>(t)];
      d.gradient[static_cast<Eigen::Index>(j) * n + t] =
          -1.0 / v + 1.0 / (1.0 - s.share) + f.scale_factor[j] / left[static_cast<std::size_t>(t)];
      block(t, t) += 1.0 / (v * v);
    }
    if (f.bound[j] >= 0.0) {
      const double gap = s.throughput - f.bound[j];
      const double dz = -2.0 / gap + 1.0 / s.throughput;
      const double ddz = 2.0 / (gap * gap) - 1.0 / (s.throughput * s.throughput);
      d.gradient.segment(static_cast<Eigen::Index>(j) * n, n) += dz * a;
      block += ddz * a * a.transpose();
    }
    d.blocks.push_back(std::move(block));
  }
  return d;
}

// The Newton direction: H = blockdiag(B_j) + V S V^T, S = diag(1 / left^2), solved by Woodbury.
Eigen::VectorXd newton_direction(const FtfFace& f, const Derivatives& d) {
  const auto n = static_cast<Eigen::Index>(f.gpus.size());
  const auto jobs = static_cast<Eigen::Index>(d.blocks.size());
  Eigen::VectorXd bg(jobs * n);
  Eigen::MatrixXd bv(jobs * n, n);
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(n, n);
  Eigen::VectorXd vbg = Eigen::VectorXd::Zero(n);
  for (Eigen::Index j = 0; j < jobs; ++j) {
    const Eigen::LDLT<Eigen::MatrixXd> block(d.blocks[static_cast<std::size_t>(j)]);
    const double sf = f.scale_factor[static_cast<std::size_t>(j)];
    bg.segment(j * n, n) = block.solve(d.gradient.segment(j * n, n));
    bv.block(j * n, 0, n, n) = block.solve(Eigen::MatrixXd::Identity(n, n) * sf);
    m += sf * bv.block(j * n, 0, n, n);
    vbg += sf * bg.segment(j * n, n);
  }
  m.diagonal() += d.left.cwiseProduct(d.left);
  return -(bg - bv * m.ldlt().solve(vbg));
}

Point step(const Point& x, const Eigen::VectorXd& direction, double alpha) {
  Point y = x;
  const std::size_t types = x.empty() ? 0 : x[0].size();
  for (std::size_t j = 0; j < x.size(); ++j) {
    for (std::size_t t = 0; t < types; ++t) {
      y[j][t] += alpha * direction[static_cast<Eigen::Index>(j * types + t)];
    }
  }
  return y;
}

}  // namespace

double conic_barrier(const FtfFace& f, const Point& x) {
  constexpr double kOutside = std::numeric_limits<double>::infinity();
  double phi = 0.0;
  for (std::size_t j = 0; j < x.size(); ++j) {
    const JobSums s = sums(f, x, j);
    if (!(s.share < 1.0)) {
      return kOutside;
    }
    phi -= std::log(1.0 - s.share);
    for (const double v : x[j]) {
      if (!(v > 0.0)) {
        return kOutside;
      }
      phi -= std::log(v);
    }
    if (f.bound[j] >= 0.0) {
      if (!(s.throughput > f.bound[j])) {
        return kOutside;
      }
      phi -= 2.0 * std::log(s.throughput - f.bound[j]) - std::log(s.throughput);
    }
  }
  for (const double left : gpus_left(f, x)) {
    if (!(left > 0.0)) {
      return kOutside;
    }
    phi -= std::log(left);
  }
  return phi;
}

std::optional<Point> conic_centre(const FtfFace& f, const Point& start) {
  Point x = start;
  double phi = conic_barrier(f, x);
  if (!std::isfinite(phi)) {
    return std::nullopt;
  }
  for (int i = 0; i < kMaxSteps; ++i) {
    const Derivatives d = derivatives(f, x);
    const Eigen::VectorXd direction = newton_direction(f, d);
    const double decrement = -d.gradient.dot(direction);
    if (!(decrement > kDecrement)) {
      break;
    }
    double alpha = 1.0;
    for (; alpha >= kLeast; alpha /= 2.0) {
      const Point y = step(x, direction, alpha);
      const double next = conic_barrier(f, y);
      if (next <= phi - kArmijo * alpha * decrement) {
        x = y;
        phi = next;
        break;
      }
    }
    if (alpha < kLeast) {
      break;
    }
  }
  return x;
}

}  // namespace tidesim::gavel
