// Linear interpolation over a Delaunay triangulation (workloads/linear_nd_interpolator.hpp),
// hand-worked: inside a simplex a function linear in the coordinates is reproduced exactly,
// outside the convex hull there is no value.
#include "tidesim/workloads/linear_nd_interpolator.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tidesim::workloads {
namespace {

// f(x, y, z) = 1 + 2x + 3y + 5z and g = 7 - x, the values given at each point.
std::vector<double> linear_values(const std::vector<double>& points) {
  std::vector<double> v;
  for (std::size_t i = 0; i < points.size(); i += 3) {
    const double x = points[i];
    const double y = points[i + 1];
    const double z = points[i + 2];
    v.push_back(1 + 2 * x + 3 * y + 5 * z);
    v.push_back(7 - x);
  }
  return v;
}

const std::vector<double> kTetrahedron = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};

TEST(LinearNdInterpolator, TetrahedronReproducesALinearFunction) {
  const LinearNdInterpolator f(3, kTetrahedron, 2, linear_values(kTetrahedron));
  EXPECT_EQ(f.simplices(), 1u);
  // The centroid-like point (1/4, 1/4, 1/4): f = 1 + (2 + 3 + 5) / 4 = 3.5, g = 7 - 0.25.
  const auto c = f({0.25, 0.25, 0.25});
  ASSERT_TRUE(c);
  EXPECT_NEAR((*c)[0], 3.5, 1e-12);
  EXPECT_NEAR((*c)[1], 6.75, 1e-12);
  // A vertex gives its own value; the middle of an edge the mean of its two ends.
  EXPECT_NEAR((*f({0, 0, 1}))[0], 6.0, 1e-12);
  EXPECT_NEAR((*f({0.5, 0.5, 0}))[0], (3.0 + 4.0) / 2, 1e-12);
}

TEST(LinearNdInterpolator, OutsideTheHullHasNoValue) {
  const LinearNdInterpolator f(3, kTetrahedron, 2, linear_values(kTetrahedron));
  // x + y + z = 1.5 > 1: beyond the slanted face, inside the bounding box.
  EXPECT_FALSE(f({0.5, 0.5, 0.5}));
  // Outside the bounding box.
  EXPECT_FALSE(f({-0.1, 0, 0}));
  EXPECT_FALSE(f({0, 0, 1.01}));
}

TEST(LinearNdInterpolator, CubeReproducesALinearFunctionEverywhereInside) {
  std::vector<double> cube;
  for (int x = 0; x <= 1; ++x) {
    for (int y = 0; y <= 1; ++y) {
      for (int z = 0; z <= 1; ++z) {
        cube.insert(cube.end(), {double(x), double(y), double(z)});
      }
    }
  }
  const LinearNdInterpolator f(3, cube, 2, linear_values(cube));
  // Eight cospherical corners: Qhull triangulates the cube into at least five tetrahedra (six
  // here, scipy's), some degenerate or not; every point of the cube, faces and edges included,
  // finds one and the value is exact.
  EXPECT_GE(f.simplices(), 5u);
  for (int i = 0; i <= 10; ++i) {
    for (int j = 0; j <= 10; ++j) {
      for (int k = 0; k <= 10; ++k) {
        const double x = i / 10.0;
        const double y = j / 10.0;
        const double z = k / 10.0;
        const auto v = f({x, y, z});
        ASSERT_TRUE(v) << x << " " << y << " " << z;
        EXPECT_NEAR((*v)[0], 1 + 2 * x + 3 * y + 5 * z, 1e-12) << x << " " << y << " " << z;
        EXPECT_NEAR((*v)[1], 7 - x, 1e-12);
      }
    }
  }
  EXPECT_FALSE(f({1.5, 0.5, 0.5}));
}

TEST(LinearNdInterpolator, OfTwoEqualPointsTheFirstCounts) {
  // The tetrahedron's first corner given again at the end with another value (10, 10): Qhull
  // keeps the later copy as a coplanar point, not a vertex, so the first one's values (1, 7)
  // hold there and inside.
  std::vector<double> points = kTetrahedron;
  points.insert(points.end(), {0, 0, 0});
  std::vector<double> values = linear_values(kTetrahedron);
  values.insert(values.end(), {10, 10});
  const LinearNdInterpolator f(3, points, 2, values);
  EXPECT_NEAR((*f({0, 0, 0}))[0], 1.0, 1e-12);
  EXPECT_NEAR((*f({0, 0, 0}))[1], 7.0, 1e-12);
  EXPECT_NEAR((*f({0.25, 0.25, 0.25}))[0], 3.5, 1e-12);
}

TEST(LinearNdInterpolator, PointsWithoutVolumeAreRefused) {
  // Four points in the plane z = 0 span no volume: Qhull cannot start its hull.
  const std::vector<double> flat = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
  EXPECT_THROW(LinearNdInterpolator(3, flat, 2, linear_values(flat)), std::invalid_argument);
  // Three points are fewer than a tetrahedron's four.
  const std::vector<double> three = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  EXPECT_THROW(LinearNdInterpolator(3, three, 2, linear_values(three)), std::invalid_argument);
  // Values that do not match the points.
  EXPECT_THROW(LinearNdInterpolator(3, kTetrahedron, 2, {1, 2, 3}), std::invalid_argument);
}

}  // namespace
}  // namespace tidesim::workloads
