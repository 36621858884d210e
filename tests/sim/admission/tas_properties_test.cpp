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

// The results as text: each PodSet's reason or its domains and counts.
std::string text(const std::vector<PodSetResult>& results) {
  std::string out;
  for (const PodSetResult& r : results) {
    out += r.name + ": " + r.reason;
    if (r.assignment) {
      for (const DomainAssignment& d : r.assignment->domains) {
        for (const std::string& v : d.values) {
          out += v + "/";
        }
        out += "=" + std::to_string(d.count) + " ";
      }
    }
    out += "\n";
  }
  return out;
}

// A kept snapshot brought up to date node by node (update_node, clear_usage, as runs keep one)
// places every PodSet as a snapshot built afresh from the same nodes: the same assignment or
// the same refusal message, on hostname leaves and on rack leaves (several nodes a leaf), with
// non-TAS pods and TAS usage; a node cordoned or uncordoned asks for a new snapshot.
TEST(TasProperties, KeptSnapshotPlacesAsAFreshOne) {
  std::mt19937 rng(20261207);
  std::uniform_int_distribution<int> gpus(0, 8), percent(0, 99);
  int compared = 0;
  int rebuilt = 0;
  for (int round = 0; round < 200; ++round) {
    Cluster c = random_cluster(rng);
    const std::vector<std::string> levels =
        round % 2 == 0 ? kLevels : std::vector<std::string>{"block", "rack"};
    std::vector<TasPod> pods;
    for (const TasNode& n : c.nodes) {
      if (percent(rng) < 30) {
        pods.push_back(TasPod{
            .name = "p-" + n.name, .node_name = n.name, .requests = {{"nvidia.com/gpu", 1}}});
      }
    }
    TasSnapshot kept("t", levels, c.nodes, pods);
    for (int step = 0; step < 8; ++step) {
      for (TasNode& n : c.nodes) {
        if (percent(rng) < 25) {
          n.allocatable["nvidia.com/gpu"] = gpus(rng);
          n.unschedulable = percent(rng) < 5;
          if (!kept.update_node(n)) {
            ++rebuilt;
            kept = TasSnapshot("t", levels, c.nodes, pods);
          }
        }
      }
      kept.clear_usage();
      TasSnapshot fresh("t", levels, c.nodes, pods);
      const TasPodSet held = random_podset(rng);
      const TasPodSet ps = random_podset(rng);
      const TasFeatureGates gates;
      // An admitted workload's usage first, on both.
      const std::vector<PodSetResult> first = fresh.find_assignments({held}, gates);
      ASSERT_EQ(text(kept.find_assignments({held}, gates)), text(first));
      if (!first.empty() && first[0].assignment) {
        fresh.add_usage(*first[0].assignment, held.requests);
        kept.add_usage(*first[0].assignment, held.requests);
      }
      SCOPED_TRACE("round " + std::to_string(round) + " step " + std::to_string(step));
      ASSERT_EQ(text(kept.find_assignments({ps}, gates)),
                text(fresh.find_assignments({ps}, gates)));
      ++compared;
    }
  }
  EXPECT_EQ(compared, 1600);
  EXPECT_GT(rebuilt, 20);  // cordons happened
}

}  // namespace
}  // namespace tidesim::tas
