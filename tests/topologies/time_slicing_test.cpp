// The rule that divides a time-sliced card among its running processes (topologies/
// time_slicing.hpp), on processes whose busy time is known in closed form; expected shares
// worked out by hand.
#include "tidesim/topologies/time_slicing.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

namespace tidesim {
namespace {

// A process that computes whenever it has the card: busy for its whole share.
SlicedProcess compute_bound(double cap = 1.0) {
  return {cap, [](double s) { return s; }};
}

// A process that can keep the card busy at most `most` of the time (an input-bound reader, or a
// job that spends the rest of its step in all-reduce).
SlicedProcess bounded(double most) {
  return {1.0, [most](double s) { return std::min(s, most); }};
}

// A process with `compute` seconds of kernels and `input` seconds of reading per step, overlapped
// (the step-time model's max(compute / s, input)): busy compute / max(compute / s, input).
SlicedProcess reader(double compute, double input) {
  return {1.0, [=](double s) { return compute / std::max(compute / s, input); }};
}

double busy_sum(const std::vector<SlicedProcess>& ps, const std::vector<double>& shares) {
  double sum = 0.0;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    sum += ps[i].busy(shares[i]);
  }
  return sum;
}

TEST(TimeSlicing, AloneAProcessHasTheCardUpToItsCap) {
  EXPECT_EQ(divide_card_time({compute_bound()}, SliceModel::kWorkConserving, 0.1),
            std::vector<double>{1.0});
  EXPECT_EQ(divide_card_time({compute_bound(0.3)}, SliceModel::kEqual, 0.1),
            std::vector<double>{0.3});
  EXPECT_TRUE(divide_card_time({}, SliceModel::kWorkConserving, 0.0).empty());
}

TEST(TimeSlicing, ComputeBoundProcessesSplitTheCardEvenly) {
  // Both rules agree when every process uses its whole share: (1 - i) / k each.
  for (const SliceModel m : {SliceModel::kWorkConserving, SliceModel::kEqual}) {
    EXPECT_EQ(divide_card_time({compute_bound(), compute_bound()}, m, 0.0),
              (std::vector<double>{0.5, 0.5}));
    EXPECT_EQ(divide_card_time({compute_bound(), compute_bound(), compute_bound()}, m, 0.1),
              (std::vector<double>{0.3, 0.3, 0.3}));
  }
}

TEST(TimeSlicing, WorkConservingGivesAnIdleSliceToTheProcessThatHasWork) {
  // One process can use at most 20% of the card; the compute-bound one takes the other 80%:
  // w with min(w, 0.2) + w = 1 is 0.8. Equal shares leave 30% of the card idle.
  const std::vector<SlicedProcess> ps{bounded(0.2), compute_bound()};
  const auto wc = divide_card_time(ps, SliceModel::kWorkConserving, 0.0);
  EXPECT_NEAR(wc[0], 0.8, 1e-9);
  EXPECT_NEAR(wc[1], 0.8, 1e-9);
  EXPECT_NEAR(busy_sum(ps, wc), 1.0, 1e-9);
  EXPECT_LE(busy_sum(ps, wc), 1.0);
  const auto eq = divide_card_time(ps, SliceModel::kEqual, 0.0);
  EXPECT_EQ(eq, (std::vector<double>{0.5, 0.5}));
  EXPECT_DOUBLE_EQ(busy_sum(ps, eq), 0.7);
  // With interference 0.1 the shared card gives 0.9: w = 0.7.
  const auto lossy = divide_card_time(ps, SliceModel::kWorkConserving, 0.1);
  EXPECT_NEAR(lossy[1], 0.7, 1e-9);
  EXPECT_LE(busy_sum(ps, lossy), 0.9);
}

TEST(TimeSlicing, ProcessesThatFitTogetherEachComputeAtFullSpeed) {
  // Two readers each busy half of their step alone (0.1 s of compute, 0.2 s of input): together
  // they keep the card busy 100%, so both keep their speed (w = 1).
  const std::vector<SlicedProcess> ps{reader(0.1, 0.2), reader(0.1, 0.2)};
  EXPECT_EQ(divide_card_time(ps, SliceModel::kWorkConserving, 0.0),
            (std::vector<double>{1.0, 1.0}));
  // Three of them cannot: w with 3 x 0.1 / max(0.1 / w, 0.2) = 1 is 1/3.
  const std::vector<SlicedProcess> three{reader(0.1, 0.2), reader(0.1, 0.2), reader(0.1, 0.2)};
  const auto shares = divide_card_time(three, SliceModel::kWorkConserving, 0.0);
  EXPECT_NEAR(shares[0], 1.0 / 3.0, 1e-9);
  EXPECT_LE(busy_sum(three, shares), 1.0);
}

TEST(TimeSlicing, DeclaredCoresCapAProcessAndLeaveTheRestToOthers) {
  // A process capped at 30% (HAMi gpucores) beside a compute-bound one: 0.3 and 0.7.
  const std::vector<SlicedProcess> ps{compute_bound(0.3), compute_bound()};
  const auto wc = divide_card_time(ps, SliceModel::kWorkConserving, 0.0);
  EXPECT_DOUBLE_EQ(wc[0], 0.3);
  EXPECT_NEAR(wc[1], 0.7, 1e-9);
  EXPECT_LE(busy_sum(ps, wc), 1.0);
  EXPECT_EQ(divide_card_time(ps, SliceModel::kEqual, 0.0), (std::vector<double>{0.3, 0.5}));
}

TEST(TimeSlicing, TheCardIsNeverOverCommitted) {
  // Mixes of readers, bounded and capped processes, with and without interference: the busy
  // times never sum past what the card has, and the shares never fall below the fair share.
  for (const double i : {0.0, 0.05, 0.3}) {
    for (int k = 2; k <= 6; ++k) {
      std::vector<SlicedProcess> ps;
      for (int p = 0; p < k; ++p) {
        ps.push_back(p % 3 == 0   ? reader(0.05 * (p + 1), 0.1)
                     : p % 3 == 1 ? bounded(0.1 * p)
                                  : compute_bound(0.2 + 0.1 * p));
      }
      const auto shares = divide_card_time(ps, SliceModel::kWorkConserving, i);
      EXPECT_LE(busy_sum(ps, shares), 1.0 - i + 1e-12) << "k " << k << " i " << i;
      for (std::size_t p = 0; p < ps.size(); ++p) {
        EXPECT_GE(shares[p], std::min(ps[p].cap, (1.0 - i) / k) - 1e-12);
      }
    }
  }
}

TEST(TimeSlicing, RefusesOutOfRangeParameters) {
  EXPECT_THROW(divide_card_time({compute_bound(0.0)}, SliceModel::kEqual, 0.0),
               std::invalid_argument);
  EXPECT_THROW(divide_card_time({compute_bound()}, SliceModel::kEqual, 1.0), std::invalid_argument);
  EXPECT_EQ(parse_slice_model("equal"), SliceModel::kEqual);
  EXPECT_EQ(parse_slice_model("work-conserving"), SliceModel::kWorkConserving);
  EXPECT_EQ(parse_slice_model("fair"), std::nullopt);
}

}  // namespace
}  // namespace tidesim
