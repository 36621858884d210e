#pragma once
/// The pairs' side of Gavel's rounds (gavel_rounds.hpp, "Pairs"): the keys of pair entries, the
/// order of arrival that places a pair in Gavel's priority lists, the resets each job has seen,
/// and the pairs' throughputs (scheduler.py `_populate_job_combination_metadata`).
#include <cstddef>
#include <functional>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

namespace tidesim::gavel {

/// A candidate of a round's selection on one GPU type: an entry `id`, or (latent) a pair of jobs
/// a and b that is not an entry yet; its key (priority, deficit, X) and its place in the lists.
struct RoundCandidate {
  std::tuple<double, double, double> key;
  std::pair<long, long> position;
  int id = 0;
  bool latent = false;
  int a = 0;
  int b = 0;
};

class RoundPairs {
 public:
  /// A pair's throughput per GPU type, > 0 where both jobs' co-located throughputs are.
  using ThroughputFn = std::function<std::vector<double>(int a, int b)>;
  /// Every two jobs of the same scale factor are pairs (Gavel's packing policies) once set.
  void set_throughput(ThroughputFn fn) { fn_ = std::move(fn); }
  bool all_pairs() const { return static_cast<bool>(fn_); }

  /// Job `id` arrives (its place in the order of arrival) or leaves (its pairs' keys and
  /// throughputs go).
  void arrive(int id);
  void leave(int id);
  /// A reset of the rounds happened.
  void reset() { ++resets_; }
  /// Job `id`'s place in the order of arrival.
  long arrival(int id) const { return arrival_.at(id); }
  /// Whether a reset happened since job `id` arrived.
  bool reset_since(int id) const { return resets_ > resets_at_arrival_.at(id); }

  /// The key of the pair of jobs a and b (either order) while it is an entry; 0 when it is not.
  int key(int a, int b) const;
  /// A new key for the pair (below 0); erase_key: it is no longer an entry.
  int new_key(int a, int b);
  void erase_key(int a, int b);
  /// The pair's throughput per type (`types` entries), asked of the function once.
  const std::vector<double>& throughput(int a, int b, std::size_t types);

 private:
  ThroughputFn fn_;
  std::map<std::pair<int, int>, std::vector<double>> throughputs_;
  std::map<std::pair<int, int>, int> keys_;
  std::map<int, long> arrival_;
  std::map<int, long> resets_at_arrival_;
  long arrivals_ = 0;
  long resets_ = 0;
  int next_key_ = -1;
};

}  // namespace tidesim::gavel
