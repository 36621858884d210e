#pragma once
/// The FGD experiment's allocation curve (experiments/analysis/merge_alloc_discrete.py of the FGD
/// simulator, hkust-adsl/kubernetes-scheduler-simulator @8f3d641; docs/fgd.md "The allocation
/// curve"): percent of the cluster's GPU capacity allocated against percent requested so far,
/// x = 0..130, with the script's exact arithmetic (Python's round, numpy's pairwise sum and round)
/// so that cells match the repository's to the last digit.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace tidesim {

/// The x points of the curve: 0..130 percent requested.
inline constexpr int kCurvePoints = 131;

/// One curve: the mean allocation (percent, 2 decimals) at each x; empty where no row is near.
using AllocationCurve = std::array<std::optional<double>, kCurvePoints>;

/// The curve of one run from its rows (one per arriving pod, failures included): milli-GPU
/// requested so far and milli-GPU allocated after the pod. Per row arrive = round(arrived /
/// total_gpus / 10) (half to even) and alloc = round(used / total_gpus / 10, 2) (Python's round);
/// at each x the mean of alloc over rows with arrive == x, else over rows with x - 1 <= arrive <=
/// x + 1, else empty; the mean is numpy's (pairwise sum / count) rounded by numpy (rint(m * 100)
/// / 100).
AllocationCurve allocation_curve(std::span<const std::int64_t> arrived,
                                 std::span<const std::int64_t> used, std::int64_t total_gpus);

/// numpy's pairwise summation of a contiguous float64 array (blocks of 8, split above 128).
double numpy_pairwise_sum(std::span<const double> values);
/// Python's round(x, digits) on a float: correctly rounded, ties to even on the exact value.
double python_round(double x, int digits);
/// numpy's round(x, digits): rint(x * 10^digits) / 10^digits.
double numpy_round(double x, int digits);
/// A value as Python writes a float (shortest round trip, "12.0" for whole numbers).
std::string python_float(double x);

}  // namespace tidesim
