// The program's columns (lp_program.hpp).
#include "tidesim/sim/admission/lp_program.hpp"

namespace tidesim::lp {

int Program::add_column(double cost, double lo, double hi) {
  objective.push_back(cost);
  lower.push_back(lo);
  upper.push_back(hi);
  blocks.push_back(-1);
  return static_cast<int>(objective.size()) - 1;
}

int Program::add_integer_column(double cost, double lo, double hi) {
  const int c = add_column(cost, lo, hi);
  integers.push_back(c);
  return c;
}

}  // namespace tidesim::lp
