// Properties every TAS placement must have, on random clusters and requests (a fixed seed): an
// admitted PodSet gets exactly its pods, no host gets more pods than fit its free capacity, a
// required level puts every pod in one domain of that level, a slice stays in one domain of its
// level with a whole number of slices per domain, and a refusal leaves no assignment. The
// placement rules themselves are checked against Kueue's cases (tas_kueue_cases_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tidesim/sim/admission/tas_snapshot.hpp"

namespace tidesim::tas {
namespace {

const std::vector<std::string> kLevels = {"block", "rack", kHostnameLabel};

struct Cluster {
  std::vector<TasNode> nodes;
  std::map<std::string, std::vector<std::string>> path;  // host -> block, rack, host
};

Cluster random_cluster(std::mt19937& rng) {
  Cluster c;
  std::uniform_int_distribution<int> blocks(1, 3), racks(1, 3), hosts(1, 4), gpus(0, 8);
  const int nb = blocks(rng);
  for (int b = 0; b < nb; ++b) {
    const int nr = racks(rng);
    for (int r = 0; r < nr; ++r) {
      const int nh = hosts(rng);
      for (int h = 0; h < nh; ++h) {
        TasNode n;
        const std::string rack = "b" + std::to_string(b) + "r" + std::to_string(r);
        n.name = rack + "h" + std::to_string(h);
        n.labels = {{"block", "b" + std::to_string(b)}, {"rack", rack}, {kHostnameLabel, n.name}};
        n.allocatable = {{"nvidia.com/gpu", gpus(rng)}, {"pods", 110}};
        c.path[n.name] = {"b" + std::to_string(b), rack, n.name};
        c.nodes.push_back(n);
      }
    }
  }
  return c;
}

TasPodSet random_podset(std::mt19937& rng) {
  TasPodSet ps;
  ps.name = "main";
  std::uniform_int_distribution<int> count(0, 12), gpus(1, 4), kind(0, 5), level(0, 2);
  ps.count = count(rng);
  ps.requests = {{"nvidia.com/gpu", gpus(rng)}};
  TopologyRequest r;
  switch (kind(rng)) {
    case 0:
      return ps;  // implied
    case 1:
      r.required = kLevels[static_cast<std::size_t>(level(rng))];
      break;
    case 2:
      r.preferred = kLevels[static_cast<std::size_t>(level(rng))];
      break;
    case 3:
      r.unconstrained = true;
      break;
    default:
      r.required = "block";
      r.slice_topology = "rack";
      r.slice_size = 2;
      ps.count = 2 * (ps.count / 2);
  }
  ps.topology = r;
  return ps;
}

TEST(TasProperties, RandomPlacementsKeepKueuesPromises) {
  std::mt19937 rng(20261206);
  int admitted = 0;
  for (int round = 0; round < 3000; ++round) {
    Cluster c = random_cluster(rng);
    TasPodSet ps = random_podset(rng);
    TasFeatureGates gates;
    gates.balanced_placement = (round % 3) == 0;
    gates.profile_mixed = (round % 5) != 0;
    TasSnapshot snapshot("t", kLevels, c.nodes, {});
    std::vector<PodSetResult> got = snapshot.find_assignments({ps}, gates);
    ASSERT_EQ(got.size(), 1U);
    SCOPED_TRACE("round " + std::to_string(round));
    if (!got[0].admitted()) {
      EXPECT_FALSE(got[0].reason.empty());
      continue;
    }
    ++admitted;
    ASSERT_TRUE(got[0].assignment.has_value());
    std::int32_t total = 0;
    std::set<std::string> required_domains;
    std::map<std::string, std::int32_t> per_rack;
    for (const DomainAssignment& d : got[0].assignment->domains) {
      ASSERT_EQ(d.values.size(), 1U);
      const std::string& host = d.values[0];
      const auto node = std::find_if(c.nodes.begin(), c.nodes.end(),
                                     [&](const TasNode& n) { return n.name == host; });
      ASSERT_NE(node, c.nodes.end());
      EXPECT_GT(d.count, 0);
      EXPECT_LE(d.count * ps.requests.at("nvidia.com/gpu"), node->allocatable.at("nvidia.com/gpu"));
      total += d.count;
      per_rack[c.path[host][1]] += d.count;
      if (ps.topology && ps.topology->required) {
        const auto level = static_cast<std::size_t>(
            std::find(kLevels.begin(), kLevels.end(), *ps.topology->required) - kLevels.begin());
        required_domains.insert(c.path[host][level]);
      }
    }
    EXPECT_EQ(total, ps.count);
    EXPECT_LE(required_domains.size(), 1U);
    if (ps.topology && ps.topology->slice_size) {
      for (const auto& [rack, n] : per_rack) {
        EXPECT_EQ(n % *ps.topology->slice_size, 0) << rack;
      }
    }
  }
  EXPECT_GT(admitted, 1000);  // the rounds exercise placements, not only refusals
}

}  // namespace
}  // namespace tidesim::tas
