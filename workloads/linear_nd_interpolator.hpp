#pragma once
/// Piecewise-linear interpolation over the Delaunay triangulation of scattered points, as scipy's
/// `scipy.interpolate.LinearNDInterpolator` does it (the Pollux artifact's rule for a placement
/// it did not measure, simulator/applications.py get_throughput):
///   - the triangulation is Qhull's Delaunay with scipy's options "d Qbb Qc Qz Q12 Qt"
///     (scipy.spatial.Delaunay), the points given in their order: of two equal points the first
///     is the vertex and the later one is left out (Qhull keeps it as a coplanar point);
///   - a query x is located as scipy's _find_simplex does, from simplex 0: first a walk to the
///     neighbour whose facet in the lifted space (x, |x|^2, Qhull's scaling) the lifted point is
///     most above, until it is above the current one or no neighbour is higher; then a directed
///     walk across the first face whose barycentric coordinate is below -eps, until every
///     coordinate c_0..c_d lies in [-eps, 1 + eps] (eps = 100 x DBL_EPSILON; across the hull:
///     none); on a degenerate simplex (reciprocal condition number of its edge matrix below
///     1000 x DBL_EPSILON) or after 1 + simplices / 4 steps, the first simplex in Qhull's order
///     holding x, or a neighbour of a degenerate simplex with the coordinate facing it down to
///     -sqrt(DBL_EPSILON). The path matters: Qhull's "Qt" triangulates cospherical cells one by
///     one, so two simplices on either side of a flat (degenerate) one may split a shared square
///     along different diagonals and give a point on it different values;
///   - the value is sum_k c_k v_k over the simplex's vertices k; outside the convex hull there
///     is none (scipy returns NaN).
/// The coordinates: c_i = sum_j Tinv[i][j] (x_j - r_j) for i < d, c_d = 1 - sum_i c_i, where r
/// is the simplex's last vertex and T's column j is vertex j minus r.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace tidesim::workloads {

class LinearNdInterpolator {
 public:
  /// `points`: `count` points of `dims` coordinates, point after point; `values`: `width` values
  /// per point, point after point. Throws std::invalid_argument with Qhull's message when the
  /// points cannot be triangulated (fewer than dims + 1, or all in one hyperplane).
  LinearNdInterpolator(int dims, std::vector<double> points, int width, std::vector<double> values);

  /// The `width` values at `x` (`dims` coordinates); nullopt outside the points' convex hull.
  std::optional<std::vector<double>> operator()(const std::vector<double>& x) const;

  int dims() const { return dims_; }
  /// The triangulation's simplices (degenerate ones included), as Qhull gives them.
  std::size_t simplices() const { return simplices_.size() / static_cast<std::size_t>(dims_ + 1); }

 private:
  /// The barycentric coordinates of `x` in simplex `s` (dims + 1 of them).
  void barycentric(std::size_t s, const std::vector<double>& x, std::vector<double>& c) const;
  bool degenerate(std::size_t s) const;
  /// The lifted point's signed distance above simplex `s`'s facet of the lower hull.
  double distplane(std::size_t s, const std::vector<double>& z) const;
  /// The simplex holding `x` (its coordinates left in `c`), as scipy's _find_simplex.
  std::optional<std::size_t> find_simplex(const std::vector<double>& x,
                                          std::vector<double>& c) const;
  std::optional<std::size_t> find_directed(std::size_t s, const std::vector<double>& x,
                                           std::vector<double>& c) const;
  std::optional<std::size_t> find_bruteforce(const std::vector<double>& x,
                                             std::vector<double>& c) const;

  int dims_ = 0;
  int width_ = 0;
  std::vector<double> points_;
  std::vector<double> values_;
  /// dims + 1 point indices per simplex.
  std::vector<int> simplices_;
  /// dims + 1 per simplex: the simplex opposite vertex k, -1 on the hull.
  std::vector<int> neighbors_;
  /// dims x (dims + 1) per simplex: Tinv's rows, then r; NaN for a degenerate simplex.
  std::vector<double> transforms_;
  /// dims + 2 per simplex: the normal of its facet in the lifted space, then the offset.
  std::vector<double> equations_;
  /// The lifted coordinate |x|^2 x scale + shift, as Qhull scaled it ("Qbb").
  double paraboloid_scale_ = 1;
  double paraboloid_shift_ = 0;
  /// The points' bounding box.
  std::vector<double> min_bound_;
  std::vector<double> max_bound_;
};

}  // namespace tidesim::workloads
