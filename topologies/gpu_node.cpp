// GCC 12 warns (-Wstringop-overread) inside Boost.Container when the flat map of each process's
// cards inserts a key and moves the small vectors after it: a false positive on the inline
// buffer's size (the warning is located in Boost's header, so it is silenced before the include).
#pragma GCC diagnostic ignored "-Wstringop-overread"
#include "tidesim/topologies/gpu_node.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "tidesim/sim/engine/checked.hpp"

namespace tidesim {

namespace {
constexpr int kFullCard = 1000;  // milli of a whole card
}  // namespace

std::optional<SharingMode> parse_sharing_mode(std::string_view text) {
  if (text == "exclusive") {
    return SharingMode::kExclusive;
  }
  if (text == "time-slicing") {
    return SharingMode::kTimeSlicing;
  }
  if (text == "fractional") {
    return SharingMode::kFractional;
  }
  if (text == "mig") {
    return SharingMode::kMig;
  }
  return std::nullopt;
}

std::string_view to_string(SharingMode mode) {
  switch (mode) {
    case SharingMode::kExclusive:
      return "exclusive";
    case SharingMode::kTimeSlicing:
      return "time-slicing";
    case SharingMode::kFractional:
      return "fractional";
    case SharingMode::kMig:
      return "mig";
  }
  return "?";
}

GpuNodeState::GpuNodeState(const Topology& topology, std::int64_t memory_per_card,
                           GpuSharing sharing)
    : GpuNodeState(std::make_shared<const Topology>(topology), memory_per_card, sharing) {}

GpuNodeState::GpuNodeState(std::shared_ptr<const Topology> topology, std::int64_t memory_per_card,
                           GpuSharing sharing)
    : topology_(std::move(topology)),
      memory_per_card_(memory_per_card),
      sharing_(sharing),
      ties_(sharing.tie_seed) {
  if (!topology_) {
    throw std::invalid_argument("gpu node: no topology");
  }
  if (memory_per_card <= 0) {
    throw std::invalid_argument("gpu node: memory per card must be > 0");
  }
  if (sharing.replicas < 1) {
    throw std::invalid_argument("gpu node: replicas must be >= 1");
  }
  if (!(sharing.interference >= 0.0 && sharing.interference < 1.0)) {
    throw std::invalid_argument("gpu node: interference must be in [0, 1)");
  }
  if ((sharing.declared_memory || sharing.isolate_memory) &&
      sharing.mode != SharingMode::kTimeSlicing) {
    throw std::invalid_argument("gpu node: declared memory needs time-slicing");
  }
  if (sharing_.mode != SharingMode::kTimeSlicing) {
    sharing_.replicas = 1;
  }
  if (sharing_.mode == SharingMode::kMig && sharing_.mig_layout.empty()) {
    throw std::invalid_argument("gpu node: MIG needs a layout");
  }
  if (sharing_.mode != SharingMode::kMig) {
    sharing_.mig_layout.clear();
  }
  cards_.resize(static_cast<std::size_t>(topology_->gpu_count()));
  memory_used_.assign(cards_.size(), 0);
  for (int c = 0; c < card_count(); ++c) {
    for (const MigProfile& p : sharing_.mig_layout) {
      slices_.push_back(MigSlice{c, p, mig_slice_memory(p, memory_per_card_), 0, false});
    }
  }
}

// The error of card_at, out of line: the check inlines into its callers (set_memory and
// compute_share run once per card of every pod started, stopped or sampled).
namespace {
[[noreturn, gnu::noinline, gnu::cold]] void no_card(int card) {
  throw std::out_of_range("gpu node: no card " + std::to_string(card));
}

// The index of `card` among a process's cards (`held.cards`; their count when not there).
template <class Held>
std::size_t index_of(const Held& held, int card) {
  return static_cast<std::size_t>(std::find(held.cards.begin(), held.cards.end(), card) -
                                  held.cards.begin());
}

// Declared memory: `card` has a free slot, `claim`'s memory and its cores.
bool fits(const GpuNodeState& node, int card, const GpuClaim& claim) {
  return node.slots_left(card) > 0 && node.declared_left(card) >= claim.memory &&
         node.cores_left(card) >= claim.cores;
}
}  // namespace

const GpuNodeState::Card& GpuNodeState::card_at(int card) const {
  if (card < 0 || card >= card_count()) [[unlikely]] {
    no_card(card);
  }
  return cards_[static_cast<std::size_t>(card)];
}

GpuNodeState::Card& GpuNodeState::card_at(int card) {
  return const_cast<Card&>(static_cast<const GpuNodeState*>(this)->card_at(card));
}

int GpuNodeState::schedulable_units() const {
  if (sharing_.mode == SharingMode::kMig) {
    return static_cast<int>(slices_.size());
  }
  return card_count() * sharing_.replicas;
}

int GpuNodeState::free_units() const {
  if (sharing_.mode == SharingMode::kMig) {
    return static_cast<int>(
        std::count_if(slices_.begin(), slices_.end(), [](const MigSlice& s) { return !s.used; }));
  }
  int free = 0;
  for (const Card& c : cards_) {
    if (sharing_.mode == SharingMode::kTimeSlicing) {
      free += sharing_.replicas - c.slots_used;
    } else if (c.occupants.empty()) {
      ++free;
    }
  }
  return free;
}

void GpuNodeState::place(std::uint64_t process, int card, int slots, int milli, GpuClaim claim) {
  Card& c = card_at(card);
  auto it = std::find_if(c.occupants.begin(), c.occupants.end(),
                         [process](const Occupant& o) { return o.process == process; });
  if (it == c.occupants.end()) {
    c.occupants.push_back(Occupant{process, slots, milli, claim});
    Held& held = cards_of_[process];
    held.cards.push_back(card);
    held.memory.push_back(0);
    c.declared_used += claim.memory;
    c.cores_used += claim.cores;
  } else {
    it->slots += slots;
  }
  c.slots_used += slots;
  c.milli_used += milli;
}

std::int64_t GpuNodeState::declared_left(int card) const {
  return memory_per_card_ - card_at(card).declared_used;
}

int GpuNodeState::cores_left(int card) const {
  return 100 - card_at(card).cores_used;
}

int GpuNodeState::slots_left(int card) const {
  return sharing_.replicas - card_at(card).slots_used;
}

std::optional<std::vector<int>> GpuNodeState::allocate_declared(std::uint64_t process, int units,
                                                                const std::vector<int>& cards,
                                                                GpuClaim claim) {
  if (!sharing_.declared_memory) {
    throw std::logic_error("gpu node: allocate_declared on a node without declared memory");
  }
  if (units < 1) {
    throw std::invalid_argument("gpu node: units must be >= 1");
  }
  if (cards_of_.count(process) != 0) {
    throw std::invalid_argument("gpu node: process " + std::to_string(process) + " already placed");
  }
  std::vector<int> out;
  if (!cards.empty()) {
    if (static_cast<int>(cards.size()) != units) {
      return std::nullopt;
    }
    for (const int c : cards) {
      if (c < 0 || c >= card_count() || std::find(out.begin(), out.end(), c) != out.end() ||
          !fits(*this, c, claim)) {
        return std::nullopt;
      }
      out.push_back(c);
    }
  } else {
    std::vector<int> tied;
    for (int u = 0; u < units; ++u) {
      // One unit per card: among the cards that fit and this request has not taken, the replica
      // policy's choice (distributed: fewest replicas allocated; packed: most), then tie_break.
      tied.clear();
      for (int c = 0; c < card_count(); ++c) {
        if (std::find(out.begin(), out.end(), c) != out.end() || !fits(*this, c, claim)) {
          continue;
        }
        if (tied.empty()) {
          tied.push_back(c);
          continue;
        }
        const int alloc_c = card_at(c).slots_used;
        const int alloc_b = card_at(tied.front()).slots_used;
        const bool better =
            sharing_.policy == ReplicaPolicy::kDistributed ? alloc_c < alloc_b : alloc_c > alloc_b;
        if (better) {
          tied.assign(1, c);
        } else if (alloc_c == alloc_b) {
          tied.push_back(c);
        }
      }
      if (tied.empty()) {
        return std::nullopt;
      }
      int best = tied.front();
      if (sharing_.tie_break == TieBreak::kDevicePlugin && tied.size() > 1) {
        best = tied[static_cast<std::size_t>(ties_.uniform_int(tied.size()))];
      }
      out.push_back(best);
    }
  }
  for (const int c : out) {
    place(process, c, 1, 0, claim);
  }
  return out;
}

std::optional<std::vector<int>> GpuNodeState::allocate_mig(std::uint64_t process,
                                                           std::string_view profile) {
  if (sharing_.mode != SharingMode::kMig) {
    throw std::logic_error("gpu node: allocate_mig on a node without MIG");
  }
  if (cards_of_.count(process) != 0) {
    throw std::invalid_argument("gpu node: process " + std::to_string(process) + " already placed");
  }
  for (std::size_t i = 0; i < slices_.size(); ++i) {
    MigSlice& s = slices_[i];
    if (s.used || (!profile.empty() && s.profile.name != profile)) {
      continue;
    }
    place(process, s.card, 1, 0);
    card_at(s.card).occupants.back().slice = static_cast<int>(i);
    s.used = true;
    s.process = process;
    return std::vector<int>{s.card};
  }
  return std::nullopt;
}

std::int64_t GpuNodeState::memory_limit(std::uint64_t process, int card) const {
  for (const Occupant& o : card_at(card).occupants) {
    if (o.process == process && o.slice >= 0) {
      return slices_[static_cast<std::size_t>(o.slice)].memory;
    }
  }
  return memory_per_card_;
}

std::optional<std::vector<int>> GpuNodeState::whole_cards(int units) {
  std::vector<bool> free(cards_.size());
  for (std::size_t i = 0; i < cards_.size(); ++i) {
    free[i] = cards_[i].occupants.empty();
  }
  return topology_->best_free_set(units, free);
}

std::optional<std::vector<int>> GpuNodeState::allocate(std::uint64_t process, int units,
                                                       int milli) {
  if (units < 1) {
    throw std::invalid_argument("gpu node: units must be >= 1");
  }
  if (milli < 0 || milli > kFullCard) {
    throw std::invalid_argument("gpu node: milli must be in [0, 1000]");
  }
  if (cards_of_.count(process) != 0) {
    throw std::invalid_argument("gpu node: process " + std::to_string(process) + " already placed");
  }
  switch (sharing_.mode) {
    case SharingMode::kExclusive: {
      auto cards = whole_cards(units);
      if (cards) {
        for (int c : *cards) {
          place(process, c, 1, kFullCard);
        }
      }
      return cards;
    }
    case SharingMode::kTimeSlicing: {
      if (units > free_units()) {
        return std::nullopt;
      }
      std::vector<int> picked_from(cards_.size(), 0);
      std::vector<int> out;
      std::vector<int> tied;
      for (int u = 0; u < units; ++u) {
        // The best-ranked cards: (allocated replicas, fewest first or most first by policy),
        // then fewest picked by this request; `tied` keeps all of them in index order.
        tied.clear();
        for (int c = 0; c < card_count(); ++c) {
          const auto uc = static_cast<std::size_t>(c);
          if (cards_[uc].slots_used + picked_from[uc] >= sharing_.replicas) {
            continue;
          }
          if (tied.empty()) {
            tied.push_back(c);
            continue;
          }
          const auto ub = static_cast<std::size_t>(tied.front());
          const int alloc_c = cards_[uc].slots_used + picked_from[uc];
          const int alloc_b = cards_[ub].slots_used + picked_from[ub];
          const bool better = sharing_.policy == ReplicaPolicy::kDistributed ? alloc_c < alloc_b
                                                                             : alloc_c > alloc_b;
          if (better || (alloc_c == alloc_b && picked_from[uc] < picked_from[ub])) {
            tied.assign(1, c);
          } else if (alloc_c == alloc_b && picked_from[uc] == picked_from[ub]) {
            tied.push_back(c);
          }
        }
        int best = tied.front();
        if (sharing_.tie_break == TieBreak::kDevicePlugin && tied.size() > 1) {
          best = tied[static_cast<std::size_t>(ties_.uniform_int(tied.size()))];
        }
        ++picked_from[static_cast<std::size_t>(best)];
        out.push_back(best);
      }
      for (int c : out) {
        place(process, c, 1, 0);
      }
      return out;
    }
    case SharingMode::kFractional: {
      if (milli == 0 || milli == kFullCard) {
        auto cards = whole_cards(units);
        if (cards) {
          for (int c : *cards) {
            place(process, c, 1, kFullCard);
          }
        }
        return cards;
      }
      if (units != 1) {
        throw std::invalid_argument("gpu node: a partial-card request must ask for one card");
      }
      int best = -1;
      for (int c = 0; c < card_count(); ++c) {
        const int left = kFullCard - cards_[static_cast<std::size_t>(c)].milli_used;
        if (left >= milli &&
            (best < 0 || left < kFullCard - cards_[static_cast<std::size_t>(best)].milli_used)) {
          best = c;
        }
      }
      if (best < 0) {
        return std::nullopt;
      }
      place(process, best, 1, milli);
      return std::vector<int>{best};
    }
    case SharingMode::kMig:
      // A MIG pod asks for an instance of a profile (allocate_mig); whole cards are not
      // advertised under MIG.
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::vector<int>> GpuNodeState::allocate_on(std::uint64_t process,
                                                          const std::vector<int>& cards,
                                                          int milli) {
  if (milli < 0 || milli > kFullCard) {
    throw std::invalid_argument("gpu node: milli must be in [0, 1000]");
  }
  if (cards_of_.count(process) != 0) {
    throw std::invalid_argument("gpu node: process " + std::to_string(process) + " already placed");
  }
  const bool partial = sharing_.mode == SharingMode::kFractional && milli > 0 && milli < kFullCard;
  if (sharing_.mode == SharingMode::kMig) {
    return std::nullopt;  // a MIG instance is chosen by allocate_mig
  }
  if (cards.empty() || (partial && cards.size() != 1)) {
    return std::nullopt;
  }
  std::vector<int> seen;
  for (const int c : cards) {
    if (c < 0 || c >= card_count() || std::find(seen.begin(), seen.end(), c) != seen.end()) {
      return std::nullopt;
    }
    seen.push_back(c);
    const Card& card = cards_[static_cast<std::size_t>(c)];
    const bool ok = sharing_.mode == SharingMode::kTimeSlicing
                        ? card.slots_used < sharing_.replicas
                        : (partial ? kFullCard - card.milli_used >= milli : card.occupants.empty());
    if (!ok) {
      return std::nullopt;
    }
  }
  for (const int c : cards) {
    place(process, c, 1,
          sharing_.mode == SharingMode::kTimeSlicing ? 0 : (partial ? milli : kFullCard));
  }
  return cards;
}

void GpuNodeState::release(std::uint64_t process) {
  auto it = cards_of_.find(process);
  if (it == cards_of_.end()) {
    return;
  }
  for (std::size_t k = 0; k < it->second.cards.size(); ++k) {
    const int card = it->second.cards[k];
    Card& c = cards_[static_cast<std::size_t>(card)];
    auto o = std::find_if(c.occupants.begin(), c.occupants.end(),
                          [process](const Occupant& x) { return x.process == process; });
    c.slots_used -= o->slots;
    c.milli_used -= o->milli;
    memory_used_[static_cast<std::size_t>(card)] -= it->second.memory[k];
    c.declared_used -= o->claim.memory;
    c.cores_used -= o->claim.cores;
    c.undivided = c.undivided || (o->running && sharing_.mode == SharingMode::kTimeSlicing);
    if (o->slice >= 0) {
      slices_[static_cast<std::size_t>(o->slice)].used = false;
      slices_[static_cast<std::size_t>(o->slice)].process = 0;
    }
    c.occupants.erase(o);
  }
  cards_of_.erase(it);
}

bool GpuNodeState::set_memory(std::uint64_t process, int card, std::int64_t bytes) {
  if (bytes < 0) {
    throw std::invalid_argument("gpu node: negative memory");
  }
  const Card& c = card_at(card);
  const auto it = cards_of_.find(process);
  const std::size_t k = it == cards_of_.end() ? 0 : index_of(it->second, card);
  if (it == cards_of_.end() || k == it->second.cards.size()) {
    throw std::invalid_argument("gpu node: process " + std::to_string(process) +
                                " is not on card " + std::to_string(card));
  }
  std::int64_t& used = memory_used_[static_cast<std::size_t>(card)];
  used += bytes - it->second.memory[k];
  it->second.memory[k] = bytes;
  if (sharing_.isolate_memory || sharing_.mode == SharingMode::kMig) {
    const Occupant& o =
        *std::find_if(c.occupants.begin(), c.occupants.end(),
                      [process](const Occupant& x) { return x.process == process; });
    if (sharing_.isolate_memory && bytes > o.claim.memory) {
      return true;  // over its own limit: the allocation fails in this container only
    }
    if (o.slice >= 0) {
      // MIG: the instance's own memory is the limit; the card's total never decides.
      return bytes > slices_[static_cast<std::size_t>(o.slice)].memory;
    }
  }
  return used > memory_per_card_;
}

std::int64_t GpuNodeState::memory_of(std::uint64_t process, int card) const {
  (void)card_at(card);  // validates
  const auto it = cards_of_.find(process);
  if (it == cards_of_.end()) {
    return 0;
  }
  const std::size_t k = index_of(it->second, card);
  return k < it->second.cards.size() ? it->second.memory[k] : 0;
}

double GpuNodeState::compute_share(std::uint64_t process, int card) const {
  const Card& c = card_at(card);
  auto o = std::find_if(c.occupants.begin(), c.occupants.end(),
                        [process](const Occupant& x) { return x.process == process; });
  if (o == c.occupants.end()) {
    return 0.0;
  }
  switch (sharing_.mode) {
    case SharingMode::kExclusive:
      return 1.0;
    case SharingMode::kTimeSlicing:
      if (c.undivided) {
        throw std::logic_error("gpu node: card " + std::to_string(card) +
                               " read before its running processes were divided");
      }
      return o->running ? o->share : 0.0;
    case SharingMode::kFractional:
      return static_cast<double>(o->milli) / kFullCard;
    case SharingMode::kMig:
      // No interference between instances: MIG gives each its own SMs, L2 slices and memory
      // controllers (NVIDIA MIG user guide, "Introduction").
      return o->slice >= 0
                 ? mig_compute_fraction(slices_[static_cast<std::size_t>(o->slice)].profile)
                 : 0.0;
  }
  return 0.0;
}

// Time-slicing: a process's occupant on a card it holds; when its running state changes, the
// state is set, its share reset and the card marked for division (GpuNodeState::set_running).
namespace {

template <class CardT>
void set_running_on(CardT& card, std::uint64_t process, bool running) {
  auto o = std::find_if(card.occupants.begin(), card.occupants.end(),
                        [process](const auto& x) { return x.process == process; });
  if (o->running != running) {
    o->running = running;
    o->share = 0.0;
    card.undivided = true;
  }
}

}  // namespace

void GpuNodeState::set_running(std::uint64_t process, bool running) {
  const auto it = cards_of_.find(process);
  if (it == cards_of_.end()) {
    return;  // a pod without GPUs
  }
  it->second.running = running;
  if (sharing_.mode != SharingMode::kTimeSlicing) {
    return;  // only a time-sliced card's division reads it
  }
  for (const int card : it->second.cards) {
    set_running_on(cards_[static_cast<std::size_t>(card)], process, running);
  }
}

void GpuNodeState::set_stopped(std::uint64_t process) {
  const auto it = cards_of_.find(process);
  if (it == cards_of_.end()) {
    return;  // a pod without GPUs
  }
  Held& held = it->second;
  held.running = false;
  for (std::size_t k = 0; k < held.cards.size(); ++k) {
    const auto card = static_cast<std::size_t>(held.cards[k]);
    if (sharing_.mode == SharingMode::kTimeSlicing) {
      set_running_on(cards_[card], process, false);
    }
    memory_used_[card] -= held.memory[k];
    held.memory[k] = 0;
  }
}

bool GpuNodeState::running(std::uint64_t process) const {
  const auto it = cards_of_.find(process);
  return it != cards_of_.end() && it->second.running;
}

void GpuNodeState::divide_time(int card, const std::function<double(std::uint64_t, double)>& busy) {
  Card& c = card_at(card);
  if (sharing_.mode != SharingMode::kTimeSlicing) {
    return;
  }
  std::vector<SlicedProcess> running;
  std::vector<Occupant*> who;
  for (Occupant& o : c.occupants) {
    o.share = 0.0;
    if (!o.running) {
      continue;
    }
    // Declared cores cap the process (HAMi-core throttles it to its gpucores percent).
    const double cap = o.claim.cores > 0 ? std::min(1.0, o.claim.cores / 100.0) : 1.0;
    const std::uint64_t process = o.process;
    running.push_back({cap, [&busy, process](double s) { return busy(process, s); }});
    who.push_back(&o);
  }
  const std::vector<double> shares =
      divide_card_time(running, sharing_.slicing, sharing_.interference);
  for (std::size_t i = 0; i < who.size(); ++i) {
    who[i]->share = shares[i];
  }
  c.undivided = false;
}

std::vector<std::uint64_t> GpuNodeState::occupants(int card) const {
  std::vector<std::uint64_t> out;
  for (const Occupant& o : card_at(card).occupants) {
    out.push_back(o.process);
  }
  return out;
}

std::vector<int> GpuNodeState::cards_of(std::uint64_t process) const {
  auto it = cards_of_.find(process);
  if (it == cards_of_.end()) {
    return {};
  }
  std::vector<int> out(it->second.cards.begin(), it->second.cards.end());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace tidesim
