#pragma once
/// Gavel's round mechanism (scheduler/scheduler.py, docs/gavel.md "Rounds"): from an allocation X
/// and the time each job has received on each GPU type, which jobs run on which GPUs in the next
/// round. Pure bookkeeping, no simulated time of its own: the caller says when a round begins,
/// which jobs arrived or left, and how long each ran.
///
/// - Priorities (`_update_priorities`): X[j][t] / (job j's time on t / all jobs' time on t) since
///   the last reset; X x 1e9 when that share is 0; 0 where X is 0 or the throughput is 0.
/// - Resets (`_reset_time_run_so_far`): when a job arrived or left and at least
///   `min_reset_interval_s` passed since the last reset (or the last reset was at time 0, as
///   Gavel tests it), each job's deficit on each type grows by X x elapsed - time received, the
///   times restart at half a round per job, and the allocation is recomputed.
/// - Selection (`_schedule_jobs_on_workers_helper`): the GPU types in order (shuffled every round
///   for the heterogeneity-agnostic policies), each type's jobs by (priority, deficit, X)
///   descending; a job is taken on a type when it is not yet taken, its throughput there is > 0,
///   (for FIFO) its priority is > 0, and its scale factor fits the GPUs left.
/// - Placement (`_schedule_jobs_on_workers`, `_assign_workers_to_job`): per type, by scale factor
///   descending: a job keeps the exact GPUs of its last round when none is taken yet (a lease
///   extension), the others take free GPUs server by server.
/// - Pairs (Gavel's `_job_packing`, set_pair_throughput()): every two jobs of the same scale
///   factor are an entry from the later one's arrival, after it in the ties' order, at priority 0
///   while the allocation gives them no share; from time 0 (a job: half a round), so the first
///   reset gives each a deficit of half a round.
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tidesim/sim/admission/gavel_round_pairs.hpp"
#include "tidesim/sim/engine/random.hpp"

namespace tidesim::gavel {

struct RoundsConfig {
  /// Gavel's `time_per_iteration` (scheduler.py, 360 s in the paper's simulations).
  double round_s = 360.0;
  /// Gavel's `minimum_time_between_allocation_resets` (1,920 s).
  double min_reset_interval_s = 1920.0;
  /// The heterogeneity-agnostic policies walk the GPU types in a random order each round
  /// (Gavel's worker_type_shuffler); stream "gavel-rounds" of `seed`.
  bool shuffle_types = false;
  /// FIFO policies do not run a job of priority 0.
  bool fifo = false;
  std::uint64_t seed = 0;
};

/// A job as the rounds see it: its GPUs and its throughput alone on each GPU type.
struct RoundJob {
  int id = 0;
  int scale_factor = 1;
  std::vector<double> throughput;
};

/// A job's GPUs for the next round.
struct Placement {
  int job = 0;
  std::size_t type = 0;
  std::vector<int> gpus;
  /// Exactly the GPUs of its last round: the lease is extended.
  bool extended = false;
  /// What the rounds account the time to (record()): the job itself, or the pair it shares its
  /// GPUs with `partner` in (a key below 0; Gavel's JobIdPair).
  int entry = 0;
  /// The other job of its pair (space sharing: both get the same GPUs); -1 when alone.
  int partner = -1;
};

/// Two jobs sharing GPUs (a packing policy's pair, Gavel's JobIdPair): their share of time on each
/// type, and a throughput per type that is > 0 where both jobs' co-located throughputs are.
struct RoundPair {
  int a = 0;
  int b = 0;
  std::vector<double> share;
  std::vector<double> throughput;
};

/// An allocation: X of the jobs alone (job id -> share per type) and of the pairs.
struct RoundAllocation {
  // Implicit: a map of the jobs alone is an allocation without pairs.
  RoundAllocation(std::map<int, std::vector<double>> x = {}, std::vector<RoundPair> p = {})
      : single(std::move(x)), pairs(std::move(p)) {}
  std::map<int, std::vector<double>> single;
  std::vector<RoundPair> pairs;
};

class Rounds {
 public:
  /// GPU types in the order of the greedy walk (Gavel: v100, p100, k80) and, per type, its
  /// servers, each a list of GPU ids (unique over the cluster).
  Rounds(std::vector<std::string> types, std::vector<std::vector<std::vector<int>>> servers,
         RoundsConfig config);

  /// A job arrives: half a round of time received on every type, priority and deficit 0.
  /// std::invalid_argument for an id already here or a throughput row of the wrong length.
  void add_job(const RoundJob& job);
  /// Every two jobs of the same scale factor are a pair entry (Gavel's packing policies): `fn(a,
  /// b)` gives the pair's throughput per type, > 0 where both jobs' co-located throughputs are
  /// (asked once a pair, when it is first a candidate). Unset (the default): a pair is an entry
  /// only while an allocation gives it a share.
  void set_pair_throughput(RoundPairs::ThroughputFn fn) { pairs_.set_throughput(std::move(fn)); }
  /// A job leaves, and the pairs holding it.
  void remove_job(int id);

  /// Computes X (job id -> share per type, and the pairs' shares) for the jobs here; called by
  /// schedule() only when a new allocation is due. A job missing from it has X = 0 until the next
  /// one; rows of ids not here are dropped. A pair of the allocation is an entry of its own
  /// (priorities, deficits, time received, from half a round at the reset, as a job's), ranked
  /// with the jobs; a pair the next allocation drops leaves (Gavel keeps it at X = 0, priority 0).
  /// A pair is taken when neither of its jobs is, both co-located throughputs are > 0 on the type
  /// and its scale factor fits; both jobs get the same GPUs.
  using AllocateFn = std::function<RoundAllocation()>;
  /// One round beginning at `now` (seconds): the allocation recomputed if due, the priorities,
  /// the selection and the placement. std::logic_error if a chosen job cannot be given GPUs
  /// (Gavel raises the same).
  std::vector<Placement> schedule(double now, const AllocateFn& allocate);
  /// One round whose jobs a policy chose itself, `chosen[t]` on GPU type t (Shockwave: its plan's
  /// round goes straight to the placement, scheduler.py _schedule_jobs_on_workers_helper): no
  /// allocation, priorities or selection; the same placement and lease extensions as schedule().
  /// std::invalid_argument for an id not here, a row count other than the types', or more GPUs
  /// of a type than it has.
  std::vector<Placement> schedule_chosen(const std::vector<std::vector<int>>& chosen);
  /// Entry `id` (a job, or a pair: Placement::entry) ran `seconds` on `type` in the round (Gavel
  /// credits each round's execution time).
  void record(int id, std::size_t type, double seconds);

  double priority(int id, std::size_t type) const;
  double deficit(int id, std::size_t type) const;
  /// X by entry: job ids, and pair keys (below 0; pair_key()).
  const std::map<int, std::vector<double>>& allocation() const { return allocation_; }
  /// The key of the pair of jobs a and b (either order) while it is an entry; 0 when it is not.
  int pair_key(int a, int b) const;
  /// Placements that kept their GPUs, out of the jobs placed in the previous round and still
  /// here (Gavel's _num_lease_extensions and _num_lease_extension_opportunities).
  std::int64_t lease_extensions() const { return extensions_; }
  std::int64_t lease_extension_opportunities() const { return opportunities_; }

 private:
  struct JobState {
    RoundJob job;  // a pair's: id its key, its jobs' scale factor, RoundPair::throughput
    int a = 0;     // its jobs: a and b, or the job itself and -1
    int b = -1;
    std::vector<double> time;  // received per type since the last reset
    std::vector<double> priority;
    std::vector<double> deficit;
    /// Gavel's order of its priority lists (ties keep it): a job (its arrival, -1), a pair
    /// (the later job's arrival, the earlier's).
    std::pair<long, long> position{0, -1};
  };
  // The pairs of jobs not taken yet that are not entries, as candidates on type t.
  std::vector<RoundCandidate> latent_pairs(std::size_t t, const std::set<int>& taken,
                                           long long left);
  // A pair that is not an entry made one (its time and deficit as if it had been since its later
  // job arrived); its key.
  int make_pair_entry(int a, int b);
  std::vector<RoundCandidate> candidates(std::size_t t) const;
  void reset(double now);
  void update_priorities();
  std::vector<std::size_t> type_order();
  std::vector<std::vector<int>> select(const std::vector<std::size_t>& order);
  std::vector<Placement> place(const std::vector<std::vector<int>>& chosen);
  std::vector<Placement> extend(std::vector<Placement> placements);
  void set_allocation(RoundAllocation x);
  void add_entry(JobState state);
  void erase_entry(int key);
  /// A pair's placement as one placement for each of its jobs.
  std::vector<Placement> members(std::vector<Placement> placements) const;

  std::vector<std::string> types_;
  std::vector<std::vector<std::vector<int>>> servers_;
  RoundsConfig config_;
  RandomStream rng_;
  std::vector<int> order_;  // ids by position (ties of the sort keep it)
  RoundPairs pairs_;
  std::map<int, JobState> jobs_;
  std::vector<double> worker_time_;
  std::map<int, std::vector<double>> allocation_;
  std::map<int, Placement> previous_;  // by entry
  double last_reset_ = 0.0;
  bool need_update_ = false;
  std::int64_t extensions_ = 0;
  std::int64_t opportunities_ = 0;
};

}  // namespace tidesim::gavel
