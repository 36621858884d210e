#include "tidesim/sim/admission/kueue_quota_message.hpp"

#include <algorithm>
#include <array>
#include <limits>

namespace tidesim::tas {
namespace {

// Kubernetes' canonical form (quantity.go CanonicalizeBytes): `mantissa` x 10^`exponent`
// with the exponent a multiple of 3 and no trailing zeros beyond it.
std::string decimal(std::int64_t mantissa, int exponent) {
  if (mantissa == 0) {
    return "0";
  }
  while (mantissa % 10 == 0 && exponent < 18) {
    mantissa /= 10;
    ++exponent;
  }
  while (((exponent % 3) + 3) % 3 != 0) {
    mantissa *= 10;
    --exponent;
  }
  static const std::map<int, const char*> kSuffix = {{-9, "n"}, {-6, "u"}, {-3, "m"}, {0, ""},
                                                     {3, "k"},  {6, "M"},  {9, "G"},  {12, "T"},
                                                     {15, "P"}, {18, "E"}};
  return std::to_string(mantissa) + kSuffix.at(exponent);
}

std::string binary(std::int64_t v) {
  if (v > -1024 && v < 1024) {
    return std::to_string(v);
  }
  static const std::array<const char*, 7> kSuffix = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  std::size_t e = 0;
  while (v % 1024 == 0 && e + 1 < kSuffix.size()) {
    v /= 1024;
    ++e;
  }
  return e == 0 ? decimal(v, 0) : std::to_string(v) + kSuffix[e];
}

std::int64_t max_capacity(const QuotaConfig& q, int queue, int slot) {
  const ClusterQueueConfig& cq = q.cluster_queues[static_cast<std::size_t>(queue)];
  const ResourceQuota& own = cq.quota[static_cast<std::size_t>(slot)];
  if (cq.cohort.empty()) {
    return own.nominal;
  }
  std::int64_t lent = 0;
  for (std::size_t i = 0; i < q.cluster_queues.size(); ++i) {
    const ClusterQueueConfig& other = q.cluster_queues[i];
    if (static_cast<int>(i) != queue && other.cohort == cq.cohort) {
      const ResourceQuota& r = other.quota[static_cast<std::size_t>(slot)];
      lent += r.nominal - r.guaranteed();
    }
  }
  return own.nominal +
         std::min(lent, own.borrowing_limit.value_or(std::numeric_limits<std::int64_t>::max()));
}

}  // namespace

std::string quantity_string(const std::string& resource, std::int64_t amount) {
  if (resource == "cpu") {
    return decimal(amount, -3);
  }
  if (resource == "memory" || resource == "ephemeral-storage") {
    return binary(amount);
  }
  return decimal(amount, 0);
}

std::string max_quota_refusal(const QuotaConfig& q, int queue,
                              const std::vector<std::int64_t>& requests,
                              const std::map<int, std::int64_t>& assumed) {
  const ClusterQueueConfig& cq = q.cluster_queues[static_cast<std::size_t>(queue)];
  std::string out;
  for (const ResourceGroup& g : cq.groups) {
    std::string reasons;
    bool some_fits = false;
    bool asked = false;
    for (const int f : g.flavors) {
      bool fits = true;
      for (const int r : g.resources) {
        const std::int64_t want = requests[static_cast<std::size_t>(r)];
        const int slot = slot_of(q, f, r);
        if (want <= 0 || slot < 0) {
          continue;
        }
        asked = true;
        const auto a = assumed.find(slot);
        const std::int64_t before = a == assumed.end() ? 0 : a->second;
        const std::int64_t cap = max_capacity(q, queue, slot);
        if (before + want > cap) {
          const std::string& name = q.resources[static_cast<std::size_t>(r)];
          reasons += (reasons.empty() ? "" : ", ") + std::string("insufficient quota for ") + name +
                     " in flavor " + q.flavors[static_cast<std::size_t>(f)].name +
                     ", previously considered podsets requests (" + quantity_string(name, before) +
                     ") + current podset request (" + quantity_string(name, want) +
                     ") > maximum capacity (" + quantity_string(name, cap) + ")";
          fits = false;
        }
      }
      some_fits = some_fits || fits;
    }
    if (asked && !some_fits) {
      out += (out.empty() ? "" : ", ") + reasons;
    }
  }
  return out;
}

}  // namespace tidesim::tas
