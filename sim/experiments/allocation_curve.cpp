#include "tidesim/sim/experiments/allocation_curve.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace tidesim {

double numpy_pairwise_sum(std::span<const double> a) {
  // numpy/core/src/umath/loops_utils.h.src pairwise_sum (PW_BLOCKSIZE 128, unrolled by 8).
  const std::size_t n = a.size();
  if (n < 8) {
    double res = 0.0;
    for (const double v : a) {
      res += v;
    }
    return res;
  }
  if (n <= 128) {
    double r[8];
    for (std::size_t j = 0; j < 8; ++j) {
      r[j] = a[j];
    }
    std::size_t i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (std::size_t j = 0; j < 8; ++j) {
        r[j] += a[i + j];
      }
    }
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) {
      res += a[i];
    }
    return res;
  }
  std::size_t n2 = n / 2;
  n2 -= n2 % 8;
  return numpy_pairwise_sum(a.subspan(0, n2)) + numpy_pairwise_sum(a.subspan(n2));
}

double python_round(double x, int digits) {
  // Python formats with correct rounding (half to even on the exact binary value) and reads the
  // digits back; glibc's printf rounds the exact value the same way.
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return std::strtod(buf, nullptr);
}

double numpy_round(double x, int digits) {
  const double scale = std::pow(10.0, digits);
  return std::nearbyint(x * scale) / scale;
}

std::string python_float(double x) {
  std::string s = fmt::format("{}", x);
  if (s.find_first_of(".eEn") == std::string::npos) {
    s += ".0";
  }
  return s;
}

AllocationCurve allocation_curve(std::span<const std::int64_t> arrived,
                                 std::span<const std::int64_t> used, std::int64_t total_gpus) {
  const std::size_t n = std::min(arrived.size(), used.size());
  std::vector<int> arrive(n);
  std::vector<double> alloc(n);
  const auto total = static_cast<double>(total_gpus);
  for (std::size_t i = 0; i < n; ++i) {
    arrive[i] = static_cast<int>(std::nearbyint(static_cast<double>(arrived[i]) / total / 10.0));
    alloc[i] = python_round(static_cast<double>(used[i]) / total / 10.0, 2);
  }
  AllocationCurve curve;
  std::vector<double> pick;
  for (int x = 0; x < kCurvePoints; ++x) {
    pick.clear();
    for (std::size_t i = 0; i < n; ++i) {
      if (arrive[i] == x) {
        pick.push_back(alloc[i]);
      }
    }
    if (pick.empty()) {
      for (std::size_t i = 0; i < n; ++i) {
        if (arrive[i] >= x - 1 && arrive[i] <= x + 1) {
          pick.push_back(alloc[i]);
        }
      }
    }
    if (!pick.empty()) {
      const double mean = numpy_pairwise_sum(pick) / static_cast<double>(pick.size());
      curve[static_cast<std::size_t>(x)] = numpy_round(mean, 2);
    }
  }
  return curve;
}

}  // namespace tidesim
