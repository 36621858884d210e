#pragma once
// The hand-worked case of Gavel's policy tests (gavel_allocation_test.cpp derives each X): three
// single-GPU jobs on two GPU types of one GPU each, A ("v100") and B ("k80"), of throughputs
// (4, 1), (2, 1) and (3, 3) steps/s; and the comparison of an allocation with the expected one.
#include <gtest/gtest.h>

#include "tidesim/sim/admission/gavel_allocation.hpp"

namespace tidesim::gavel::testing {

inline AllocationProblem three_jobs() {
  AllocationProblem p;
  p.cluster = {.gpu_types = {"v100", "k80"}, .gpus = {1, 1}, .prices = {}};
  p.jobs = {{.id = 0, .throughput = {4.0, 1.0}},
            {.id = 1, .throughput = {2.0, 1.0}},
            {.id = 2, .throughput = {3.0, 3.0}}};
  return p;
}

inline void expect_allocation(const Allocation& x, const Allocation& want, double tol = 1e-6) {
  ASSERT_EQ(x.size(), want.size());
  for (std::size_t j = 0; j < x.size(); ++j) {
    ASSERT_EQ(x[j].size(), want[j].size());
    for (std::size_t t = 0; t < x[j].size(); ++t) {
      EXPECT_NEAR(x[j][t], want[j][t], tol) << "job " << j << " type " << t;
    }
  }
}

}  // namespace tidesim::gavel::testing
