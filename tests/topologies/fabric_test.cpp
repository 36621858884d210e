// The fabric's figures (topologies/fabric.hpp), each worked by hand, and its checks.
#include "tidesim/topologies/fabric.hpp"

#include <gtest/gtest.h>

namespace tidesim {
namespace {

Fabric two_tiers() {
  Fabric f;
  f.nics_per_node = 8;
  f.nic_bandwidth = 50e9;
  f.efficiency = 0.9;
  f.tiers = {FabricTier{"leaf", "l", 4, 2.0, 1.0, 0.0},
             FabricTier{"spine", "s", 16, 3.0, 0.5, 0.0}};
  return f;
}

TEST(Fabric, ANodeReachesTheFabricThroughAllItsNics) {
  EXPECT_DOUBLE_EQ(node_fabric_bandwidth(two_tiers()), 8 * 50e9 * 0.9);
}

TEST(Fabric, APodReachesItThroughItsGpusShareOfTheNics) {
  const Fabric f = two_tiers();
  EXPECT_DOUBLE_EQ(pod_fabric_bandwidth(f, 2, 8), 360e9 * 2 / 8);
  EXPECT_DOUBLE_EQ(pod_fabric_bandwidth(f, 8, 8), 360e9);
  EXPECT_DOUBLE_EQ(pod_fabric_bandwidth(f, 1, 0), 360e9);  // a node without GPUs: all its NICs
}

TEST(Fabric, UplinksDivideByTheOversubscriptionOfEveryTierBelow) {
  const Fabric f = two_tiers();
  // A leaf of 4 nodes: 4 x 360 GB/s / 2. A spine domain of 16: 16 x 360 / (2 x 3) x 0.5.
  EXPECT_DOUBLE_EQ(domain_uplink_bandwidth(f, 0, 4), 4 * 360e9 / 2);
  EXPECT_DOUBLE_EQ(domain_uplink_bandwidth(f, 1, 16), 16 * 360e9 / 6 * 0.5);
  // A partial domain (the cluster's last nodes) has the up-links of its members.
  EXPECT_DOUBLE_EQ(domain_uplink_bandwidth(f, 0, 1), 360e9 / 2);
}

TEST(Fabric, DomainsAreRunsOfConsecutiveNodesNamedAsTopographLabelsThem) {
  const Fabric f = two_tiers();
  EXPECT_EQ(fabric_domain(f, 0, 3), 0);
  EXPECT_EQ(fabric_domain(f, 0, 4), 1);
  EXPECT_EQ(fabric_domain(f, 1, 15), 0);
  EXPECT_EQ(fabric_domain(f, 1, 16), 1);
  std::map<std::string, std::string> labels;
  add_fabric_labels(f, 17, labels);
  EXPECT_EQ(labels.at("l"), "leaf-0004");
  EXPECT_EQ(labels.at("s"), "spine-0001");
}

TEST(Fabric, TiersThatDoNotAddUpAreRefused) {
  Fabric f = two_tiers();
  f.tiers[1].nodes = 6;  // not a multiple of 4
  ASSERT_TRUE(fabric_error(f));
  EXPECT_EQ(fabric_error(f)->first, "tiers[1].nodes");
  f.tiers[1].nodes = 4;  // not larger
  EXPECT_EQ(fabric_error(f)->first, "tiers[1].nodes");
  f = two_tiers();
  f.tiers[1].name = "leaf";
  EXPECT_EQ(fabric_error(f)->first, "tiers[1].name");
  f = two_tiers();
  f.tiers[1].label = "l";  // the leaf's
  EXPECT_EQ(fabric_error(f)->first, "tiers[1].label");
  f.tiers[1].label = "kubernetes.io/hostname";
  EXPECT_EQ(fabric_error(f)->first, "tiers[1].label");
  f = two_tiers();
  f.tiers[0].oversubscription = 0.5;
  EXPECT_EQ(fabric_error(f)->first, "tiers[0].oversubscription");
  f = two_tiers();
  f.efficiency = 1.5;
  EXPECT_EQ(fabric_error(f)->first, "efficiency");
  EXPECT_FALSE(fabric_error(two_tiers()));
}

TEST(Fabric, PresetsAreValidAndDescribed) {
  for (const std::string_view name : fabric_preset_names()) {
    const std::optional<Fabric> f = fabric_preset(name);
    ASSERT_TRUE(f) << name;
    EXPECT_FALSE(fabric_error(*f)) << name;
    EXPECT_FALSE(fabric_preset_description(name).empty()) << name;
    EXPECT_EQ(f->tiers.front().label, "network.topology.nvidia.com/leaf") << name;
  }
  EXPECT_FALSE(fabric_preset("superpod"));
  // DGX SuperPOD: scalable units of 32 nodes; Meta: pods of 3,072 GPUs = 384 nodes, 7:1 up.
  EXPECT_EQ(fabric_preset("dgx-superpod-h100")->tiers[0].nodes, 32);
  EXPECT_EQ(fabric_preset("meta-roce")->tiers[1].nodes * 8, 3072);
  EXPECT_DOUBLE_EQ(fabric_preset("meta-roce")->tiers[1].oversubscription, 7.0);
  EXPECT_EQ(fabric_preset("alibaba-hpn")->tiers[0].nodes * 8, 1024);
}

}  // namespace
}  // namespace tidesim
