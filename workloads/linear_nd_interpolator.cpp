#include "tidesim/workloads/linear_nd_interpolator.hpp"

#include <libqhull_r/libqhull_r.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>

namespace tidesim::workloads {
namespace {

constexpr double kEps = 100 * DBL_EPSILON;          // scipy's eps for locating a point
const double kEpsBroad = std::sqrt(DBL_EPSILON);    // its eps_broad (next to a degenerate simplex)
constexpr double kRcondLimit = 1000 * DBL_EPSILON;  // below it a simplex is degenerate
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Qhull's Delaunay triangulation as scipy.spatial.Delaunay runs it.
struct Triangulation {
  std::vector<int> simplices;
  std::vector<int> neighbors;
  std::vector<double> equations;
  double paraboloid_scale = 1;
  double paraboloid_shift = 0;
};

// qh_triangulate reports an error by longjmp to qh->errexit; this frame holds no C++ object.
int triangulate(qhT* qh) {
  qh->NOerrexit = False;
  if (setjmp(qh->errexit) != 0) {
    qh->NOerrexit = True;
    return 1;
  }
  qh_triangulate(qh);
  qh->NOerrexit = True;
  return 0;
}

std::string read_all(FILE* f) {
  std::string text;
  std::rewind(f);
  char buf[512];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0 && text.size() < 4096) {
    text.append(buf, n);
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
    text.pop_back();
  }
  return text;
}

Triangulation delaunay(int dims, std::vector<double> points) {
  const int count = static_cast<int>(points.size()) / dims;
  if (count < dims + 1) {
    throw std::invalid_argument("Delaunay triangulation: " + std::to_string(count) +
                                " points, at least " + std::to_string(dims + 1) + " needed");
  }
  const std::unique_ptr<FILE, int (*)(FILE*)> err(std::tmpfile(), &std::fclose);
  qhT storage;
  qhT* qh = &storage;
  qh_zero(qh, err.get());
  // scipy.spatial.Delaunay: "Qbb Qc Qz Q12" and the required "Qt".
  char options[] = "qhull d Qbb Qc Qz Q12 Qt";
  int code = qh_new_qhull(qh, dims, count, points.data(), False, options, nullptr, err.get());
  if (code == 0) {
    code = triangulate(qh);
  }
  Triangulation out;
  std::string problem;
  if (code == 0) {
    std::map<unsigned, int> index;  // facet id -> simplex, lower Delaunay facets only
    facetT* facet = nullptr;
    FORALLfacets {
      if (!facet->upperdelaunay) {
        index.emplace(facet->id, static_cast<int>(index.size()));
      }
    }
    FORALLfacets {
      if (facet->upperdelaunay) {
        continue;
      }
      if (qh_setsize(qh, facet->vertices) != dims + 1 ||
          qh_setsize(qh, facet->neighbors) != dims + 1) {
        problem = "a non-simplicial facet";
        break;
      }
      // In a simplicial facet, neighbour k is opposite vertex k.
      for (int k = 0; k <= dims; ++k) {
        const auto* vertex = static_cast<const vertexT*>(facet->vertices->e[k].p);
        const int id = qh_pointid(qh, vertex->point);
        if (id < 0 || id >= count) {
          problem = "a simplex with the point at infinity";
          break;
        }
        out.simplices.push_back(id);
        const auto* neighbor = static_cast<const facetT*>(facet->neighbors->e[k].p);
        const auto it = index.find(neighbor->id);
        out.neighbors.push_back(neighbor->upperdelaunay || it == index.end() ? -1 : it->second);
      }
      if (!problem.empty()) {
        break;
      }
      // The facet's hyperplane in the lifted space: normal, then offset.
      out.equations.insert(out.equations.end(), facet->normal, facet->normal + dims + 1);
      out.equations.push_back(facet->offset);
    }
    if (qh->SCALElast) {  // "Qbb": Qhull scaled the lifted coordinate to [0, last_newhigh]
      out.paraboloid_scale = qh->last_newhigh / (qh->last_high - qh->last_low);
      out.paraboloid_shift = -qh->last_low * out.paraboloid_scale;
    }
  }
  qh_freeqhull(qh, !qh_ALL);
  int curlong = 0;
  int totlong = 0;
  qh_memfreeshort(qh, &curlong, &totlong);
  if (code != 0) {
    throw std::invalid_argument("Delaunay triangulation (Qhull): " + read_all(err.get()));
  }
  if (!problem.empty()) {
    throw std::invalid_argument("Delaunay triangulation (Qhull): " + problem);
  }
  return out;
}

// The inverse of the n x n matrix `a` (row by row) by Gauss-Jordan elimination with partial
// pivoting, and its reciprocal condition number in the infinity norm; nullopt when singular.
std::optional<std::vector<double>> inverse(std::vector<double> a, int n, double& rcond) {
  const auto at = [n](std::vector<double>& m, int i, int j) -> double& {
    return m[static_cast<std::size_t>(i * n + j)];
  };
  const auto norm_inf = [n, &at](std::vector<double>& m) {
    double best = 0;
    for (int i = 0; i < n; ++i) {
      double row = 0;
      for (int j = 0; j < n; ++j) {
        row += std::abs(at(m, i, j));
      }
      best = std::max(best, row);
    }
    return best;
  };
  const double norm = norm_inf(a);
  std::vector<double> inv(static_cast<std::size_t>(n * n), 0.0);
  for (int i = 0; i < n; ++i) {
    at(inv, i, i) = 1;
  }
  for (int col = 0; col < n; ++col) {
    int pivot = col;
    for (int r = col + 1; r < n; ++r) {
      if (std::abs(at(a, r, col)) > std::abs(at(a, pivot, col))) {
        pivot = r;
      }
    }
    if (at(a, pivot, col) == 0) {
      return std::nullopt;
    }
    for (int j = 0; j < n; ++j) {
      std::swap(at(a, col, j), at(a, pivot, j));
      std::swap(at(inv, col, j), at(inv, pivot, j));
    }
    const double p = at(a, col, col);
    for (int j = 0; j < n; ++j) {
      at(a, col, j) /= p;
      at(inv, col, j) /= p;
    }
    for (int r = 0; r < n; ++r) {
      if (r == col || at(a, r, col) == 0) {
        continue;
      }
      const double f = at(a, r, col);
      for (int j = 0; j < n; ++j) {
        at(a, r, j) -= f * at(a, col, j);
        at(inv, r, j) -= f * at(inv, col, j);
      }
    }
  }
  rcond = 1.0 / (norm * norm_inf(inv));
  return inv;
}

}  // namespace

LinearNdInterpolator::LinearNdInterpolator(int dims, std::vector<double> points, int width,
                                           std::vector<double> values)
    : dims_(dims), width_(width), points_(std::move(points)), values_(std::move(values)) {
  if (dims < 1 || width < 1 || points_.size() % static_cast<std::size_t>(dims) != 0 ||
      values_.size() / static_cast<std::size_t>(width) !=
          points_.size() / static_cast<std::size_t>(dims) ||
      values_.size() % static_cast<std::size_t>(width) != 0) {
    throw std::invalid_argument("LinearNdInterpolator: points and values do not match");
  }
  Triangulation t = delaunay(dims, points_);
  simplices_ = std::move(t.simplices);
  neighbors_ = std::move(t.neighbors);
  equations_ = std::move(t.equations);
  paraboloid_scale_ = t.paraboloid_scale;
  paraboloid_shift_ = t.paraboloid_shift;
  const auto d = static_cast<std::size_t>(dims);
  const std::size_t count = points_.size() / d;
  min_bound_.assign(d, std::numeric_limits<double>::infinity());
  max_bound_.assign(d, -std::numeric_limits<double>::infinity());
  for (std::size_t p = 0; p < count; ++p) {
    for (std::size_t i = 0; i < d; ++i) {
      min_bound_[i] = std::min(min_bound_[i], points_[p * d + i]);
      max_bound_[i] = std::max(max_bound_[i], points_[p * d + i]);
    }
  }
  // Each simplex's transform: T's column j is vertex j minus the last vertex r.
  transforms_.reserve(simplices() * d * (d + 1));
  for (std::size_t s = 0; s < simplices(); ++s) {
    const int* v = &simplices_[s * (d + 1)];
    const double* r = &points_[static_cast<std::size_t>(v[d]) * d];
    std::vector<double> tm(d * d);
    for (std::size_t i = 0; i < d; ++i) {
      for (std::size_t j = 0; j < d; ++j) {
        tm[i * d + j] = points_[static_cast<std::size_t>(v[j]) * d + i] - r[i];
      }
    }
    double rcond = 0;
    const auto inv = inverse(tm, dims, rcond);
    if (inv && rcond >= kRcondLimit) {
      transforms_.insert(transforms_.end(), inv->begin(), inv->end());
      transforms_.insert(transforms_.end(), r, r + d);
    } else {
      transforms_.insert(transforms_.end(), d * (d + 1), kNaN);
    }
  }
}

bool LinearNdInterpolator::degenerate(std::size_t s) const {
  const auto d = static_cast<std::size_t>(dims_);
  return std::isnan(transforms_[s * d * (d + 1)]);
}

void LinearNdInterpolator::barycentric(std::size_t s, const std::vector<double>& x,
                                       std::vector<double>& c) const {
  const auto d = static_cast<std::size_t>(dims_);
  const double* t = &transforms_[s * d * (d + 1)];
  const double* r = t + d * d;
  c[d] = 1.0;
  for (std::size_t i = 0; i < d; ++i) {
    c[i] = 0;
    for (std::size_t j = 0; j < d; ++j) {
      c[i] += t[i * d + j] * (x[j] - r[j]);
    }
    c[d] -= c[i];
  }
}

double LinearNdInterpolator::distplane(std::size_t s, const std::vector<double>& z) const {
  const auto d = static_cast<std::size_t>(dims_);
  const double* e = &equations_[s * (d + 2)];
  double dist = e[d + 1];
  for (std::size_t k = 0; k <= d; ++k) {
    dist += e[k] * z[k];
  }
  return dist;
}

std::optional<std::size_t> LinearNdInterpolator::find_simplex(const std::vector<double>& x,
                                                              std::vector<double>& c) const {
  // scipy's _find_simplex, from simplex 0 (the artifact builds a new interpolator per query).
  const auto d = static_cast<std::size_t>(dims_);
  for (std::size_t i = 0; i < d; ++i) {
    if (x[i] < min_bound_[i] - kEps || x[i] > max_bound_[i] + kEps) {
      return std::nullopt;
    }
  }
  if (simplices() == 0) {
    return std::nullopt;
  }
  // The point lifted to the paraboloid, in Qhull's scaling.
  std::vector<double> z(d + 1, 0.0);
  for (std::size_t i = 0; i < d; ++i) {
    z[i] = x[i];
    z[d] += x[i] * x[i];
  }
  z[d] = z[d] * paraboloid_scale_ + paraboloid_shift_;
  // Walk to a simplex whose lifted facet the point is above (or no neighbour is closer); a move
  // continues with the next k of the new simplex, as scipy's loop does.
  std::size_t s = 0;
  double best = distplane(s, z);
  for (bool changed = true; changed && best <= 0;) {
    changed = false;
    for (std::size_t k = 0; k <= d; ++k) {
      const int n = neighbors_[s * (d + 1) + k];
      if (n < 0) {
        continue;
      }
      const double dist = distplane(static_cast<std::size_t>(n), z);
      if (dist > best + kEps * (1 + std::abs(best))) {
        s = static_cast<std::size_t>(n);
        best = dist;
        changed = true;
      }
    }
  }
  return find_directed(s, x, c);
}

std::optional<std::size_t> LinearNdInterpolator::find_directed(std::size_t s,
                                                               const std::vector<double>& x,
                                                               std::vector<double>& c) const {
  // scipy's _find_simplex_directed: step to the neighbour across the first face whose
  // coordinate is below -eps; at most 1 + simplices / 4 steps, else (or on a degenerate simplex)
  // the search of every simplex.
  const auto d = static_cast<std::size_t>(dims_);
  const std::size_t steps = 1 + simplices() / 4;
  for (std::size_t step = 0; step < steps; ++step) {
    const double* t = &transforms_[s * d * (d + 1)];
    int inside = 1;
    for (std::size_t k = 0; k <= d; ++k) {
      if (k < d) {
        c[k] = 0;
        for (std::size_t j = 0; j < d; ++j) {
          c[k] += t[k * d + j] * (x[j] - t[d * d + j]);
        }
      } else {
        c[d] = 1.0;
        for (std::size_t j = 0; j < d; ++j) {
          c[d] -= c[j];
        }
      }
      if (c[k] < -kEps) {
        const int n = neighbors_[s * (d + 1) + k];
        if (n < 0) {
          return std::nullopt;  // across the hull
        }
        s = static_cast<std::size_t>(n);
        inside = -1;
        break;
      }
      if (!(c[k] <= 1 + kEps)) {
        inside = 0;  // outside, or NaN: a degenerate simplex
      }
    }
    if (inside == 1) {
      return s;
    }
    if (inside == 0) {
      return find_bruteforce(x, c);
    }
  }
  return find_bruteforce(x, c);
}

std::optional<std::size_t> LinearNdInterpolator::find_bruteforce(const std::vector<double>& x,
                                                                 std::vector<double>& c) const {
  // scipy's _find_simplex_bruteforce: the first simplex holding the point; next to a degenerate
  // simplex, a neighbour of it with more room on the side facing it.
  const auto d = static_cast<std::size_t>(dims_);
  const auto within = [](double ck, double low) { return -low <= ck && ck <= 1 + kEps; };
  for (std::size_t s = 0; s < simplices(); ++s) {
    if (!degenerate(s)) {
      barycentric(s, x, c);
      if (std::all_of(c.begin(), c.end(), [&](double ck) { return within(ck, kEps); })) {
        return s;
      }
      continue;
    }
    for (std::size_t k = 0; k <= d; ++k) {
      const int n = neighbors_[s * (d + 1) + k];
      if (n < 0 || degenerate(static_cast<std::size_t>(n))) {
        continue;
      }
      const auto nb = static_cast<std::size_t>(n);
      barycentric(nb, x, c);
      bool ok = true;
      for (std::size_t m = 0; m <= d && ok; ++m) {
        const bool facing = neighbors_[nb * (d + 1) + m] == static_cast<int>(s);
        ok = within(c[m], facing ? kEpsBroad : kEps);
      }
      if (ok) {
        return nb;
      }
    }
  }
  return std::nullopt;
}

std::optional<std::vector<double>> LinearNdInterpolator::operator()(
    const std::vector<double>& x) const {
  if (x.size() != static_cast<std::size_t>(dims_)) {
    throw std::invalid_argument("LinearNdInterpolator: a query of " + std::to_string(x.size()) +
                                " coordinates, " + std::to_string(dims_) + " expected");
  }
  std::vector<double> c(x.size() + 1);
  const auto s = find_simplex(x, c);
  if (!s) {
    return std::nullopt;
  }
  const auto d = static_cast<std::size_t>(dims_);
  const auto w = static_cast<std::size_t>(width_);
  std::vector<double> out(w, 0.0);
  for (std::size_t k = 0; k <= d; ++k) {
    const auto p = static_cast<std::size_t>(simplices_[*s * (d + 1) + k]);
    for (std::size_t i = 0; i < w; ++i) {
      out[i] += c[k] * values_[p * w + i];
    }
  }
  return out;
}

}  // namespace tidesim::workloads
