#include "tidesim/sim/admission/kueue_transform.hpp"

#include <algorithm>
#include <limits>

namespace tidesim::tas {
namespace {

__extension__ typedef __int128 Wide;  // exact products of three thousandths

constexpr Wide kMax = std::numeric_limits<std::int64_t>::max();

// A request in thousandths of its resource's unit (cpu is already in thousandths).
Wide milli(const std::string& resource, std::int64_t amount) {
  return resource == "cpu" ? Wide{amount} : Wide{amount} * 1000;
}

Wide capped_mul(Wide a, Wide b) {
  Wide out = 0;
  if (__builtin_mul_overflow(a, b, &out)) {
    return (a < 0) == (b < 0) ? kMax * 1000000000 : -kMax * 1000000000;
  }
  return out;
}

// `nano` (billionths of a unit) in the unit of `resource`, rounded up (towards +infinity, as
// Quantity.Value() rounds), capped to 64 bits.
std::int64_t round_up(const std::string& resource, Wide nano) {
  const Wide div = resource == "cpu" ? 1000000 : 1000000000;
  Wide q = nano / div;
  if (nano % div != 0 && nano > 0) {
    ++q;
  }
  return static_cast<std::int64_t>(std::clamp<Wide>(q, -kMax, kMax));
}

}  // namespace

ResourceMap transform_requests(const ResourceMap& per_pod,
                               const std::vector<ResourceTransformation>& transformations) {
  std::map<std::string, const ResourceTransformation*> by_input;
  for (const ResourceTransformation& t : transformations) {
    by_input.emplace(t.input, &t);  // Kueue keys them by input; the reader refuses duplicates
  }
  ResourceMap retained;
  std::map<std::string, Wide> generated;  // billionths of each output's unit, exact
  for (const auto& [name, amount] : per_pod) {
    const auto it = by_input.find(name);
    if (it == by_input.end()) {
      retained[name] += amount;
      continue;
    }
    const ResourceTransformation& t = *it->second;
    Wide by = 1000;  // multiplyBy's request in thousandths; 1 when it names none the pod has
    if (!t.multiply_by.empty()) {
      if (const auto m = per_pod.find(t.multiply_by); m != per_pod.end()) {
        by = milli(m->first, m->second);
      }
    }
    for (const auto& [output, factor] : t.outputs_milli) {
      const Wide nano = capped_mul(capped_mul(milli(name, amount), by), factor);
      Wide& sum = generated[output];
      sum = std::clamp<Wide>(sum + nano, -kMax * 1000000000, kMax * 1000000000);
    }
    if (!t.replace) {
      retained[name] += amount;
    }
  }
  ResourceMap out;
  for (const auto& [name, amount] : retained) {
    if (!generated.contains(name) && amount > 0) {
      out[name] = amount;
    }
  }
  for (const auto& [name, nano] : generated) {
    const auto kept = retained.find(name);
    const Wide own = kept == retained.end() ? 0 : capped_mul(milli(name, kept->second), 1000000);
    const std::int64_t v = round_up(name, own + std::max<Wide>(nano, 0));
    if (v > 0) {
      out[name] = v;  // FloorToZero, zero amounts left out
    }
  }
  return out;
}

}  // namespace tidesim::tas
