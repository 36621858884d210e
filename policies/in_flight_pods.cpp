#include "tidesim/policies/in_flight_pods.hpp"

#include <bit>
#include <string_view>

namespace tidesim::policies {
namespace {

// FNV-1a over the bytes of `part`, continuing from `h`.
std::size_t fnv1a(std::size_t h, std::string_view part) {
  for (const char c : part) {
    h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  }
  return h;
}

constexpr std::size_t kFnvBasis = 14695981039346656037ULL;

}  // namespace

std::string InFlightPods::key_of(const PodSpec& pod) {
  return pod.namespace_name + "/" + pod.name;
}

std::size_t InFlightPods::hash_of(const PodSpec& pod) {
  return fnv1a(fnv1a(fnv1a(kFnvBasis, pod.namespace_name), "/"), pod.name);
}

std::size_t InFlightPods::KeyHash::operator()(const std::string& key) const {
  return fnv1a(kFnvBasis, key);
}

bool InFlightPods::KeyEqual::operator()(PodKey a, const std::string& b) const {
  const std::string& ns = a.pod->namespace_name;
  const std::string& name = a.pod->name;
  return b.size() == ns.size() + 1 + name.size() && b.compare(0, ns.size(), ns) == 0 &&
         b[ns.size()] == '/' && b.compare(ns.size() + 1, name.size(), name) == 0;
}

const InFlightPods::Record* InFlightPods::find(const PodSpec& pod, std::size_t hash) const {
  const auto it = records_.find(PodKey{&pod, hash});
  return it == records_.end() ? nullptr : &it->second;
}

InFlightPods::Record& InFlightPods::get(const PodSpec& pod, std::size_t hash) {
  if (const auto it = records_.find(PodKey{&pod, hash}); it != records_.end()) {
    return it->second;
  }
  return records_[key_of(pod)];
}

void InFlightPods::popped(const PodSpec& pod, std::size_t hash, int attempts) {
  ++cycle_;
  Record& r = get(pod, hash);
  r.attempts = attempts + 1;
  r.popped_cycle = cycle_;
  last_pod_ = &pod;
  last_record_ = &r;
  last_hash_ = hash;
}

void InFlightPods::taken(const PodSpec& pod, std::size_t hash, int attempts) {
  Record& r = get(pod, hash);
  r.attempts = attempts + 1;
  r.popped_cycle = cycle_;
}

void InFlightPods::move_requested(unsigned event) {
  move_request_cycle_[static_cast<std::size_t>(std::countr_zero(event))] = cycle_;
}

unsigned InFlightPods::events_since_popped(const PodSpec& pod, std::size_t hash) const {
  const Record* r = find(pod, hash);
  const std::int64_t popped = r == nullptr || r->popped_cycle < 0 ? cycle_ : r->popped_cycle;
  unsigned out = 0;
  for (std::size_t k = 0; k < move_request_cycle_.size(); ++k) {
    if (move_request_cycle_[k] >= popped) {
      out |= 1U << k;
    }
  }
  return out;
}

InFlightPods::Record& InFlightPods::last(const PodSpec& pod, std::size_t& hash) {
  if (&pod == last_pod_) {
    hash = last_hash_;
    return *last_record_;
  }
  hash = hash_of(pod);
  return get(pod, hash);
}

void InFlightPods::erase(const PodSpec& pod) {
  if (const auto it = records_.find(PodKey{&pod, hash_of(pod)}); it != records_.end()) {
    if (&it->second == last_record_) {
      last_pod_ = nullptr;
      last_record_ = nullptr;
    }
    records_.erase(it);
  }
}

}  // namespace tidesim::policies
