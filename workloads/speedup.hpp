#pragma once
/// Pollux's speedup function (Qiao et al., OSDI'21, section 4, PolluxSched; petuum/adaptdl branch
/// osdi21-artifact, simulator/speedup.py and pollux.py): the best goodput a job reaches on an
/// allocation of `replicas` GPUs over `nodes` nodes, relative to a base allocation's. Formulas:
/// docs/goodput-model.md, "Speedup".
#include <map>
#include <utility>

#include "tidesim/workloads/goodput.hpp"

namespace tidesim::workloads {

/// speedup(nodes, replicas) = optimize(nodes, replicas).goodput / base goodput, memoised per
/// (nodes, replicas). The base is 1 node, 1 replica until set_base moves it (Pollux's scheduler
/// uses the goodput of the job's fair share).
class SpeedupFunction {
 public:
  /// std::invalid_argument from GoodputFunction::optimize on a bad `search`; std::domain_error
  /// when the base goodput (1 node, 1 replica) is not positive: no speedup is defined then.
  SpeedupFunction(const GoodputFunction& goodput, const BatchSearch& search);

  /// 0 for no GPUs (0, 0); otherwise the ratio above. std::invalid_argument unless
  /// 0 <= nodes <= replicas with nodes = 0 exactly when replicas = 0.
  double operator()(int nodes, int replicas);

  /// Makes the best goodput on (nodes, replicas) the base; std::domain_error when it is not
  /// positive, std::invalid_argument as optimize.
  void set_base(int nodes, int replicas);
  double base_goodput() const { return base_goodput_; }

  /// The memoised optimize(nodes, replicas) (nodes >= 1).
  const GoodputChoice& best(int nodes, int replicas);

  const GoodputFunction& goodput_function() const { return goodput_; }
  const BatchSearch& search() const { return search_; }

 private:
  GoodputFunction goodput_;
  BatchSearch search_;
  double base_goodput_ = 0;
  std::map<std::pair<int, int>, GoodputChoice> memo_;
};

}  // namespace tidesim::workloads
