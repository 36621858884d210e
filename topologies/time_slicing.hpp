#pragma once
/// How a time-sliced card divides its compute among the processes running on it (NVIDIA device
/// plugin time-slicing: the GPU's scheduler switches between the CUDA contexts that have work).
/// The rule and its sources: docs/model-hardware.md, "Time-slicing".
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

namespace tidesim {

/// The rule that divides a time-sliced card (GpuSharing::slicing).
enum class SliceModel {
  /// Work-conserving (the default): the card's time goes to the processes that have work. Every
  /// running process computes at the same ceiling share w, the largest in (0, 1] at which the
  /// time they keep the card busy fits the card; a process that leaves its slice idle (input-bound,
  /// in all-reduce, capped by declared cores) leaves it to the others.
  kWorkConserving,
  /// Equal shares: each of k running processes gets (1 - interference) / k of the card whether it
  /// uses it or not (tidesim's earlier rule, kept for studies that assume it).
  kEqual,
};

/// "work-conserving" or "equal"; nullopt otherwise.
std::optional<SliceModel> parse_slice_model(std::string_view text);
/// The name parse_slice_model() reads.
std::string_view to_string(SliceModel model);

/// One process running on a time-sliced card.
struct SlicedProcess {
  /// The most of the card it may take: declared cores / 100 (HAMi-core's throttle), else 1.
  double cap = 1.0;
  /// The fraction of the card's time it keeps busy when it computes at share `s` of the card:
  /// nondecreasing in s and at most s. Only the work-conserving rule asks.
  std::function<double(double s)> busy;
};

/// The compute share of each of `processes` (all running on one card), in their order.
///  - one process: its cap;
///  - equal: min(cap_i, (1 - interference) / k) for k >= 2 processes;
///  - work-conserving: min(cap_i, w), where w is the largest value in [(1 - interference) / k, 1]
///    with sum_i busy_i(min(cap_i, w)) <= 1 - interference (found by bisection to 2^-40; the
///    lower end of the final bracket, so the card is never over-committed).
/// So the busy times of the processes on a card sum to at most 1, and to 1 - interference when
/// they are shared. Throws std::invalid_argument for a cap outside (0, 1] or interference outside
/// [0, 1).
std::vector<double> divide_card_time(const std::vector<SlicedProcess>& processes, SliceModel model,
                                     double interference);

}  // namespace tidesim
