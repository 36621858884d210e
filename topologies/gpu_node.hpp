#pragma once
/// Per-card GPU state of one node: which processes (pods) sit on each card, their GPU memory and
/// compute share, under the node's sharing mode. The run driver uses it for placement on a node
/// and for GPU-memory OOM. Rules and sources: docs/model-hardware.md, "GPU sharing".
#include <cstdint>

#include <boost/container/flat_map.hpp>
#include <boost/container/small_vector.hpp>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "tidesim/sim/api/pod_traits.hpp"
#include "tidesim/sim/engine/random.hpp"
#include "tidesim/topologies/mig.hpp"
#include "tidesim/topologies/time_slicing.hpp"
#include "tidesim/topologies/topology.hpp"

namespace tidesim {

/// How a node shares its cards.
enum class SharingMode {
  /// One process per card; the device plugin advertises one nvidia.com/gpu per card
  /// (Kubernetes default).
  kExclusive,
  /// NVIDIA device plugin time-slicing: `replicas` units per card; compute is time-shared,
  /// memory is NOT isolated (processes on a card can OOM each other).
  kTimeSlicing,
  /// A process asks a share of one card's compute (`milli` / 1000, as openb's gpu_milli) or
  /// whole cards (milli 1000).
  kFractional,
  /// Multi-Instance GPU: every card is partitioned into fixed GPU instances (GpuSharing::
  /// mig_layout); each instance holds one process, with its own memory (an allocation past it
  /// fails in that process only) and compute_slices / 7 of the card's SMs, and no interference
  /// between instances (NVIDIA MIG user guide; docs/model-hardware.md, "MIG").
  kMig,
};

/// Which card the device plugin prefers for the next time-slicing replica
/// (NVIDIA/k8s-device-plugin, internal/rm/allocate.go, GetPreferredAllocation).
enum class ReplicaPolicy {
  /// Fewest replicas already allocated on the card first (the plugin's default "distributed").
  kDistributed,
  /// Most replicas already allocated first ("packed").
  kPacked,
};

/// How the device plugin breaks a tie between cards its replica policy ranks equal (same
/// allocated replicas, same picks by this request).
enum class TieBreak {
  /// The lowest card index (deterministic; tidesim's earlier behaviour, the default).
  kLowestIndex,
  /// Any of the tied cards, uniformly: NVIDIA's allocator leaves the order of equal-ranked cards
  /// to its heap built from a Go map, whose iteration order Go randomises
  /// (internal/rm/allocate.go, greedyAlloc). Drawn from the node's own stream (tie_seed).
  kDevicePlugin,
};

/// A node's sharing configuration.
struct GpuSharing {
  SharingMode mode = SharingMode::kExclusive;
  /// Units per card under time-slicing (>= 1; the plugin requires >= 2 to share). Ignored
  /// otherwise.
  int replicas = 1;
  /// Replica placement under time-slicing.
  ReplicaPolicy policy = ReplicaPolicy::kDistributed;
  /// Tie-break between equal-ranked cards under time-slicing.
  TieBreak tie_break = TieBreak::kLowestIndex;
  /// Seed of the node's tie-break stream (TieBreak::kDevicePlugin).
  std::uint64_t tie_seed = 0;
  /// How a time-sliced card divides its compute among the processes running on it
  /// (divide_card_time(): work-conserving by default, or equal shares).
  SliceModel slicing = SliceModel::kWorkConserving;
  /// Interference under time-slicing: the share of a card's compute lost while two or more
  /// processes run on it (context switches, cache and memory-bandwidth contention), in [0, 1).
  /// The processes of a shared card keep it busy at most 1 - interference of the time. 0 (the
  /// default) is ideal time-slicing. An assumption exposed as a parameter
  /// (docs/model-hardware.md, "Interference").
  double interference = 0.0;
  /// Declared memory (HAMi-style vGPU, time-slicing only): each process declares the memory and
  /// compute it takes on each of its cards (GpuClaim, sim/api/pod_traits.hpp); a card takes a
  /// process only when its declared memory still fits beside the others' (and its cores beside
  /// theirs, at most 100), and each unit of a pod gets its own card.
  bool declared_memory = false;
  /// With declared_memory: a process that allocates more than it declared fails alone (HAMi-core's
  /// per-container limit: the CUDA allocation returns out-of-memory in that container), even when
  /// the card has room. Without it, only the card's total decides (today's rule).
  bool isolate_memory = false;
  /// MIG: the GPU instances of each card (the same layout on every card of the node), checked
  /// by mig_layout_error() before a node is built.
  std::vector<MigProfile> mig_layout = {};
};

/// One MIG GPU instance of a node.
struct MigSlice {
  int card = 0;
  MigProfile profile;
  /// Its memory, bytes: mig_slice_memory(profile, card memory).
  std::int64_t memory = 0;
  /// The process on it (0 with `used` false: free).
  std::uint64_t process = 0;
  bool used = false;
};

/// "exclusive", "time-slicing", "fractional", "mig"; nullopt otherwise.
std::optional<SharingMode> parse_sharing_mode(std::string_view text);
/// The name parse_sharing_mode() reads.
std::string_view to_string(SharingMode mode);

/// Per-card state of one node. Shares its (immutable) topology with the other nodes built from
/// it.
class GpuNodeState {
 public:
  /// `memory_per_card` bytes (> 0) on each of topology->gpu_count() cards. Throws
  /// std::invalid_argument on a bad size or replica count, or a null topology.
  GpuNodeState(std::shared_ptr<const Topology> topology, std::int64_t memory_per_card,
               GpuSharing sharing);
  /// The same with its own copy of `topology`.
  GpuNodeState(const Topology& topology, std::int64_t memory_per_card, GpuSharing sharing);

  /// Number of physical cards.
  int card_count() const { return static_cast<int>(cards_.size()); }
  /// What the device plugin advertises as nvidia.com/gpu: cards, or cards x replicas under
  /// time-slicing; under MIG the node's GPU instances (of every profile).
  int schedulable_units() const;
  /// Units not allocated: free cards (exclusive, fractional: cards nobody holds any share of)
  /// or free replica slots (time-slicing).
  int free_units() const;

  /// Places `process` (a new id) on the node and returns its cards, or nullopt when it does not
  /// fit (nothing changes then).
  ///  exclusive: `units` whole free cards chosen by Topology::best_free_set(); `milli` ignored.
  ///  time-slicing: `units` replica slots, one card per slot (a card may repeat), chosen one at
  ///    a time like the device plugin's GetPreferredAllocation under `policy`: distributed takes
  ///    the card with the fewest allocated replicas (this request's picks included), then the
  ///    card this request picked least, then the lowest index. `milli` ignored.
  ///  fractional: milli in [1, 999] with units == 1: the card with the least unshared compute
  ///    that still has `milli` left (best fit; lowest index among equals); milli == 1000 (or 0):
  ///    `units` whole unshared cards as exclusive.
  /// Throws std::invalid_argument for units < 1, milli out of [0, 1000], a fractional request of
  /// several partial cards, or a process already placed.
  std::optional<std::vector<int>> allocate(std::uint64_t process, int units, int milli);
  /// Places `process` on exactly `cards` (distinct indices; a scheduler's choice): each card must
  /// be free (exclusive; fractional with milli 0 or 1000) or have `milli` left (fractional
  /// share, one card); time-slicing: a free replica slot on each. nullopt when they cannot hold
  /// it (nothing changes then). Throws like allocate() on a bad milli or a placed process.
  std::optional<std::vector<int>> allocate_on(std::uint64_t process, const std::vector<int>& cards,
                                              int milli);
  /// Declared memory: places `process` with `claim` on each card, on exactly `cards` when given
  /// (the scheduler's choice), else on `units` distinct cards that fit, chosen like allocate()'s
  /// time-slicing (replica policy, then tie-break). A card fits when it has a free replica slot,
  /// declared_left() >= claim.memory and cores_left() >= claim.cores. nullopt when they do not
  /// fit (nothing changes). Throws std::logic_error when the node does not declare memory.
  std::optional<std::vector<int>> allocate_declared(std::uint64_t process, int units,
                                                    const std::vector<int>& cards, GpuClaim claim);
  /// MIG: places `process` on the free instance of `profile` with the lowest index (cards in
  /// order, each card's instances in layout order: the device plugin's pick at bind), or on any
  /// free instance when `profile` is empty (the device plugin's `single` strategy). Returns its
  /// card; nullopt when no such instance is free (nothing changes). Throws std::logic_error when
  /// the node is not in MIG mode, std::invalid_argument for a placed process.
  std::optional<std::vector<int>> allocate_mig(std::uint64_t process, std::string_view profile);
  /// MIG: every instance of the node, cards in order.
  const std::vector<MigSlice>& mig_slices() const { return slices_; }
  /// The memory `process` may hold on `card` before an allocation fails: its MIG instance's
  /// memory under MIG, the card's capacity otherwise.
  std::int64_t memory_limit(std::uint64_t process, int card) const;
  /// Declared memory not yet claimed on `card`, bytes (capacity minus the occupants' claims).
  std::int64_t declared_left(int card) const;
  /// Percent of `card`'s compute not claimed (100 minus the occupants' gpucores).
  int cores_left(int card) const;
  /// Free replica slots on `card` (time-slicing; 1 or 0 otherwise).
  int slots_left(int card) const;
  /// Removes `process` from every card (no-op for an unknown process).
  void release(std::uint64_t process);

  /// Sets the GPU memory `process` holds on `card` (bytes >= 0). Returns true when the card's
  /// total now exceeds its capacity, (MIG) the process exceeds its instance's memory, or
  /// (isolate_memory) the process exceeds its declared memory: the caller kills this process (the
  /// one whose allocation crossed the line). Throws std::invalid_argument when the process is not
  /// on the card.
  bool set_memory(std::uint64_t process, int card, std::int64_t bytes);
  /// Bytes `process` holds on `card` (0 when it is not there).
  std::int64_t memory_of(std::uint64_t process, int card) const;
  /// Bytes in use on `card` (sum over its processes, kept as they change: constant time).
  std::int64_t memory_used(int card) const {
    (void)card_at(card);  // validates
    return memory_used_[static_cast<std::size_t>(card)];
  }
  /// Bytes of one card.
  std::int64_t memory_capacity() const { return memory_per_card_; }
  /// Marks `process` running (its container started: it has work for the card) or not, on each
  /// of its cards. Under time-slicing only running processes get compute: a pod starting up,
  /// crash-looping, restoring or waiting for its siblings holds its slot and gets none. A change
  /// leaves the process's cards to be divided again (divide_time) before their shares are read.
  /// No-op for a process not on the node's cards (a pod without GPUs).
  void set_running(std::uint64_t process, bool running);
  /// Its container stopped: set_running(process, false), and the memory it holds on each of its
  /// cards set to 0 (set_memory). No-op for a process not on the node's cards.
  void set_stopped(std::uint64_t process);
  /// Whether `process` is marked running (false when unknown).
  bool running(std::uint64_t process) const;
  /// Time-slicing: divides `card`'s compute among the processes running on it
  /// (divide_card_time() under sharing().slicing, each capped at its declared cores / 100).
  /// `busy(process, share)` is the fraction of the card's time `process` keeps busy computing at
  /// `share` (SlicedProcess::busy); the work-conserving rule asks it. No-op in other modes.
  void divide_time(int card, const std::function<double(std::uint64_t, double)>& busy);
  /// Time-slicing: whether `card`'s running processes changed since it was last divided.
  bool needs_division(int card) const { return card_at(card).undivided; }
  /// Share of `card`'s compute `process` gets, in [0, 1]: exclusive 1; time-slicing its share of
  /// the last divide_time() (0 when not running); fractional milli / 1000; MIG its instance's
  /// compute_slices / 7. 0 when not on the card. Throws std::logic_error for a time-sliced card
  /// whose running processes changed since it was last divided (needs_division).
  double compute_share(std::uint64_t process, int card) const;
  /// Processes on `card`, in placement order.
  std::vector<std::uint64_t> occupants(int card) const;
  /// Distinct cards of `process`, ascending (empty when unknown).
  std::vector<int> cards_of(std::uint64_t process) const;
  /// The sharing configuration.
  const GpuSharing& sharing() const { return sharing_; }

 private:
  struct Occupant {
    std::uint64_t process;
    int slots;         // time-slicing replicas (1 otherwise)
    int milli;         // compute share in thousandths
    GpuClaim claim{};  // declared memory and cores (declared_memory)
    int slice = -1;    // MIG: index into slices_
    // Time-slicing: its container runs (set_running; Held::running in every mode), read when
    // the card's time is divided.
    bool running = false;
    double share = 0.0;  // time-slicing: its compute share (divide_time)
  };
  struct Card {
    // One occupant inline (a whole-card pod's card has one): the passes over a job's cards
    // (shares, time-slicing's division) read each card without another allocation's miss.
    boost::container::small_vector<Occupant, 1> occupants;
    int slots_used = 0;
    int milli_used = 0;
    std::int64_t declared_used = 0;  // sum of the occupants' declared memory
    int cores_used = 0;              // sum of the occupants' declared cores
    bool undivided = false;          // time-slicing: running processes changed since divide_time
  };
  const Card& card_at(int card) const;
  Card& card_at(int card);
  std::optional<std::vector<int>> whole_cards(int units);
  void place(std::uint64_t process, int card, int slots, int milli, GpuClaim claim = {});

  std::shared_ptr<const Topology> topology_;
  std::int64_t memory_per_card_;
  GpuSharing sharing_;
  std::vector<Card> cards_;
  // Per card: bytes in use, the sum over its processes' Held::memory (kept as they change: the
  // memory of a node's cards in one place).
  std::vector<std::int64_t> memory_used_;
  // A process's cards, in allocation order, and whether its container runs (set_running): kept
  // here so that starting and stopping a container visits its cards only where their state
  // depends on it (time-slicing's division, the memory a stopped container frees).
  struct Held {
    boost::container::small_vector<int, 8> cards;
    // The memory it holds on each of `cards` (bytes), in their order.
    boost::container::small_vector<std::int64_t, 8> memory;
    bool running = false;
  };
  // Per process: a node holds few processes, each a few cards, kept in one allocation, in
  // process order as a map.
  boost::container::flat_map<std::uint64_t, Held> cards_of_;
  std::vector<MigSlice> slices_;
  RandomStream ties_;
};

}  // namespace tidesim
