#include "tidesim/policies/plugins/gpu_share.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <tuple>

namespace tidesim::policies::gpushare {

std::int64_t NodeState::total_left() const {
  std::int64_t sum = 0;
  for (const int l : left) {
    sum += l;
  }
  return sum;
}

int NodeState::free_cards() const {
  int n = 0;
  for (const int l : left) {
    n += l == kMilli;
  }
  return n;
}

std::uint32_t pod_tag_bit(const PodReq& pod) {
  if (pod.ng == 0 || pod.gm == 0) {
    return 0;
  }
  if (pod.share()) {
    return 1U;
  }
  return 1U << std::min(pod.ng, 31);
}

bool model_allowed(const NodeState& node, std::uint64_t models) {
  if (models == 0) {
    return true;
  }
  return node.model >= 0 && node.model < 64 && ((models >> node.model) & 1U) != 0;
}

namespace {

// Cards with left >= gm.
int cards_fitting(const NodeState& node, int gm) {
  int n = 0;
  for (const int l : node.left) {
    n += l >= gm;
  }
  return n;
}

// The first `ng` card indices in ascending left (stable on index) with left >= gm
// (NodeResource.Sub and GpuPacking's walk).
int ascending_fitting(const NodeState& node, int gm, int ng, int* out) {
  const int g = static_cast<int>(node.left.size());
  int order[64];
  const int m = std::min(g, 64);
  for (int i = 0; i < m; ++i) {
    order[i] = i;
  }
  std::stable_sort(order, order + m, [&](int a, int b) {
    return node.left[static_cast<std::size_t>(a)] < node.left[static_cast<std::size_t>(b)];
  });
  int taken = 0;
  for (int k = 0; k < m && taken < ng; ++k) {
    if (node.left[static_cast<std::size_t>(order[k])] >= gm) {
      out[taken++] = order[k];
    }
  }
  return taken;
}

double sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

}  // namespace

bool fits(const NodeState& node, const PodReq& pod) {
  if (node.cpu_left < pod.cpu || node.mem_left < pod.mem) {
    return false;
  }
  if (pod.gm <= 0 || pod.ng <= 0) {
    return true;
  }
  if (node.left.empty() || !model_allowed(node, pod.models)) {
    return false;
  }
  return cards_fitting(node, pod.gm) >= pod.ng;
}

int best_fit_card(const NodeState& node, const PodReq& pod) {
  int best = -1;
  for (int i = 0; i < static_cast<int>(node.left.size()); ++i) {
    const int l = node.left[static_cast<std::size_t>(i)];
    if (l >= pod.gm && (best < 0 || l < node.left[static_cast<std::size_t>(best)])) {
      best = i;
    }
  }
  return best;
}

std::vector<int> cards_for(const NodeState& node, const PodReq& pod, int card) {
  std::vector<int> out;
  if (pod.ng <= 0 || pod.gm <= 0) {
    return out;
  }
  if (pod.share()) {
    out.push_back(card >= 0 ? card : best_fit_card(node, pod));
    return out;
  }
  for (int i = 0; i < static_cast<int>(node.left.size()) && static_cast<int>(out.size()) < pod.ng;
       ++i) {
    if (node.left[static_cast<std::size_t>(i)] == kMilli) {
      out.push_back(i);
    }
  }
  return out;
}

void allocate(NodeState& node, const PodReq& pod, std::span<const int> cards) {
  node.cpu_left -= pod.cpu;
  node.mem_left -= pod.mem;
  for (const int c : cards) {
    node.left[static_cast<std::size_t>(c)] -= pod.gm;
  }
  node.tags |= pod_tag_bit(pod);
}

Verdict dot_product(const NodeState& node, const PodReq& pod) {
  // utils.CalculateVectorDotProduct over (cpu, gpu) normalised by the max spec, / len(vec).
  const double n0 = static_cast<double>(node.cpu_left) / kMaxSpecCpu;
  const double n1 = static_cast<double>(node.total_left()) / static_cast<double>(kMaxSpecGpu);
  const double p0 = static_cast<double>(pod.cpu) / kMaxSpecCpu;
  const double p1 = static_cast<double>(pod.req()) / static_cast<double>(kMaxSpecGpu);
  double dot = 0.0;
  dot += n0 * p0;
  dot += n1 * p1;
  const double s = 1.0 - dot / 2.0;
  return {static_cast<std::int64_t>(100.0 * s), pod.share() ? best_fit_card(node, pod) : -1};
}

Verdict gpu_clustering(const NodeState& node, const PodReq& pod) {
  const std::uint32_t tag = pod_tag_bit(pod);
  if (tag == 0) {
    return {0, -1};
  }
  const int card = pod.share() ? best_fit_card(node, pod) : -1;
  // MaxNodeScore/4 * (MaxSpecGpu - L) / MaxSpecGpu, integer arithmetic left to right.
  const std::int64_t base = 25 * (kMaxSpecGpu - node.total_left()) / kMaxSpecGpu;
  if ((node.tags & tag) != 0) {
    return {base + (std::popcount(node.tags) == 1 ? 75 : 50), card};
  }
  return {base + (node.tags == 0 ? 25 : 0), card};
}

Verdict gpu_packing(const NodeState& node, const PodReq& pod) {
  if (pod.gm <= 0) {
    return {0, -1};
  }
  const int card = pod.share() ? best_fit_card(node, pod) : -1;
  const int g = static_cast<int>(node.left.size());
  const int free = node.free_cards();
  if (free == g) {
    return {std::max<std::int64_t>(33 - free, free), card};
  }
  int use[64];
  const int taken = ascending_fitting(node, pod.gm, pod.ng, use);
  if (taken < pod.ng) {
    return {0, card};  // cannot happen on a feasible node
  }
  int fully_free = 0;
  for (int k = 0; k < taken; ++k) {
    fully_free += node.left[static_cast<std::size_t>(use[k])] == kMilli;
  }
  if (fully_free > 0) {
    return {std::max<std::int64_t>(50 - fully_free, 33), card};
  }
  std::int64_t ratio = 0;
  for (int k = 0; k < taken; ++k) {
    ratio += static_cast<std::int64_t>(node.left[static_cast<std::size_t>(use[k])]) * 100 / kMilli;
  }
  return {std::max<std::int64_t>(100 - ratio / 10, 50), card};
}

Verdict best_fit_raw(const NodeState& node, const PodReq& pod) {
  double s = 0.0;
  s += static_cast<double>(node.cpu_left - pod.cpu) / kMaxSpecCpu * 0.5;
  s += static_cast<double>(node.total_left() - pod.req()) / static_cast<double>(kMaxSpecGpu) * 0.5;
  s = (1.0 - s) * 100.0;
  return {static_cast<std::int64_t>(s), pod.share() ? best_fit_card(node, pod) : -1};
}

void min_max_normalize(std::span<std::int64_t> scores) {
  if (scores.empty()) {
    return;
  }
  const auto [lo, hi] = std::minmax_element(scores.begin(), scores.end());
  const std::int64_t low = *lo;
  const std::int64_t range = *hi - *lo;
  for (auto& s : scores) {
    s = range == 0 ? 0 : (s - low) * 100 / range;
  }
}

std::vector<TypicalPod> typical_pods(std::span<const PodReq> pods,
                                     std::span<const std::string> types, double threshold) {
  using Key = std::tuple<std::int64_t, int, int, std::string>;
  std::map<Key, std::pair<std::int64_t, std::uint64_t>> counts;
  for (std::size_t i = 0; i < pods.size(); ++i) {
    const PodReq& p = pods[i];
    auto& c = counts[Key{p.cpu, p.gm, p.ng, i < types.size() ? types[i] : std::string()}];
    ++c.first;
    c.second = p.models;
  }
  std::vector<TypicalPod> all;
  for (const auto& [key, c] : counts) {
    all.push_back(TypicalPod{std::get<0>(key), std::get<1>(key), std::get<2>(key), c.second,
                             std::get<3>(key), c.first, 0.0});
  }
  std::sort(all.begin(), all.end(), [](const TypicalPod& a, const TypicalPod& b) {
    if (a.count != b.count) {
      return a.count > b.count;
    }
    return std::tie(a.cpu, a.gm, a.ng, a.type) > std::tie(b.cpu, b.gm, b.ng, b.type);
  });
  const double need = threshold * static_cast<double>(pods.size());
  std::int64_t cum = 0;
  std::size_t kept = 0;
  while (kept < all.size() && static_cast<double>(cum) < need) {
    cum += all[kept].count;
    ++kept;
  }
  // The weights in utils.GetTypicalPods' two roundings: (count / N) / (cum / N), or count / N
  // when every key is kept, not count / cum. The same value but not always the same last bit,
  // and FGD's score truncates sigmoid(dFrag / 1000) * 100: where Frag's change cancels exactly
  // (dFrag is 0 in exact arithmetic), the last bit of the sum decides 50 or 49 (docs/fgd.md).
  const bool chopped = kept < all.size();
  all.resize(kept);
  const auto n = static_cast<double>(pods.size());
  const double kept_share = static_cast<double>(cum) / n;
  for (auto& t : all) {
    t.weight = static_cast<double>(t.count) / n;
    if (chopped) {
      t.weight /= kept_share;
    }
  }
  return all;
}

double fragmentation(const NodeState& node, std::span<const TypicalPod> typical) {
  // The seven accumulators of utils.FragAmount, added per typical pod and summed except Q3 in
  // their index order, as the Go code does (float sums are order-sensitive).
  enum { kQ1LackBoth, kQ2LackGpu, kQ3Satisfied, kQ4LackCpu, kXlSatisfied, kXrLackCpu, kNoAccess };
  double acc[7] = {0, 0, 0, 0, 0, 0, 0};
  const std::int64_t total = node.total_left();
  const auto dtotal = static_cast<double>(total);
  for (const TypicalPod& t : typical) {
    const double f = t.weight;
    const bool cpu_ok = node.cpu_left >= t.cpu;
    if (t.ng == 0) {
      acc[cpu_ok ? kXlSatisfied : kXrLackCpu] += f * dtotal;
      continue;
    }
    if (!model_allowed(node, t.models)) {
      acc[kNoAccess] += f * dtotal;
      continue;
    }
    int fitting = 0;
    std::int64_t frag = 0;
    for (const int l : node.left) {
      if (l >= t.gm) {
        ++fitting;
      } else {
        frag += l;
      }
    }
    if (fitting >= t.ng) {
      if (cpu_ok) {
        acc[kQ2LackGpu] += f * static_cast<double>(frag);
        acc[kQ3Satisfied] += f * static_cast<double>(total - frag);
      } else {
        acc[kQ4LackCpu] += f * dtotal;
      }
    } else {
      acc[cpu_ok ? kQ2LackGpu : kQ1LackBoth] += f * dtotal;
    }
  }
  double out = 0.0;
  for (int i = 0; i < 7; ++i) {
    if (i != kQ3Satisfied) {
      out += acc[i];
    }
  }
  return out;
}

Verdict fgd(const NodeState& node, const PodReq& pod, std::span<const TypicalPod> typical) {
  const double before = fragmentation(node, typical);
  NodeState after = node;
  after.cpu_left -= pod.cpu;
  if (pod.gm > 0 && pod.ng == 1 && pod.share()) {
    Verdict best{0, -1};
    for (int i = 0; i < static_cast<int>(node.left.size()); ++i) {
      const int l = node.left[static_cast<std::size_t>(i)];
      if (l < pod.gm) {
        continue;
      }
      after.left[static_cast<std::size_t>(i)] = l - pod.gm;
      const auto s = static_cast<std::int64_t>(
          sigmoid((before - fragmentation(after, typical)) / 1000.0) * 100.0);
      after.left[static_cast<std::size_t>(i)] = l;
      if (best.card < 0 || s > best.score) {
        best = {s, i};
      }
    }
    return best;
  }
  if (pod.gm > 0 && pod.ng > 0) {
    int use[64];
    const int taken = ascending_fitting(node, pod.gm, pod.ng, use);
    for (int k = 0; k < taken; ++k) {
      after.left[static_cast<std::size_t>(use[k])] -= pod.gm;
    }
  }
  const auto s =
      static_cast<std::int64_t>(sigmoid((before - fragmentation(after, typical)) / 1000.0) * 100.0);
  return {s, -1};
}

Verdict score(Policy policy, const NodeState& node, const PodReq& pod,
              std::span<const TypicalPod> typical) {
  switch (policy) {
    case Policy::kRandom:
      return {0, -1};
    case Policy::kDotProd:
      return dot_product(node, pod);
    case Policy::kGpuClustering:
      return gpu_clustering(node, pod);
    case Policy::kGpuPacking:
      return gpu_packing(node, pod);
    case Policy::kBestFit:
      return best_fit_raw(node, pod);
    case Policy::kFgd:
      return fgd(node, pod, typical);
  }
  return {0, -1};
}

}  // namespace tidesim::policies::gpushare
