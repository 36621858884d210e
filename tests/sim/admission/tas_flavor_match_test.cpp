// Kueue's checkPodSetAndFlavorMatchForTAS and TASFlavorSnapshot::HasLevel
// (sim/admission/tas_flavor_match.hpp), each rule with the message of
// kubernetes-sigs/kueue @ff69552 pkg/scheduler/flavorassigner/tas_flavorassigner.go.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tidesim/sim/admission/tas_flavor_match.hpp"

namespace tidesim::tas {
namespace {

const std::vector<std::string> kLevels = {"block", "rack", kHostnameLabel};

// A request with `set` applied to it.
template <typename F>
TopologyRequest request(F set) {
  TopologyRequest r;
  set(r);
  return r;
}

TEST(TasFlavorMatch, FlavorWithoutTopologyRefusesARequestThatOverlapsIt) {
  const TopologyRequest r = request([](auto& x) { x.required = "rack"; });
  EXPECT_EQ(flavor_mismatch("default", nullptr, &r, false),
            "Flavor \"default\" does not support TopologyAwareScheduling");
  EXPECT_EQ(flavor_mismatch("default", nullptr, &r, false, /*overlaps=*/false), "");
}

TEST(TasFlavorMatch, FlavorWithTopologyRefusesAPodSetAskingNoneUnlessImplied) {
  EXPECT_EQ(flavor_mismatch("tas", &kLevels, nullptr, false),
            "Flavor \"tas\" supports only TopologyAwareScheduling");
  EXPECT_EQ(flavor_mismatch("tas", &kLevels, nullptr, true), "");  // a TAS-only queue: implied
  EXPECT_EQ(flavor_mismatch("default", nullptr, nullptr, false), "");
}

TEST(TasFlavorMatch, TopologyWithoutTheLevelIsRefused) {
  const TopologyRequest r = request([](auto& x) { x.preferred = "zone"; });
  EXPECT_EQ(flavor_mismatch("tas", &kLevels, &r, true),
            "Flavor \"tas\" does not contain the requested level");
  const TopologyRequest ok = request([](auto& x) { x.preferred = "rack"; });
  EXPECT_EQ(flavor_mismatch("tas", &kLevels, &ok, true), "");
}

TEST(TasFlavorMatch, HasLevelReadsTheRequestAsKueuesLevelKey) {
  EXPECT_TRUE(has_level(kLevels, request([](auto& x) { x.unconstrained = true; })));
  // unconstrained: false names no level (Kueue's levelKey is nil).
  EXPECT_FALSE(has_level(kLevels, TopologyRequest{}));
  // Slices alone take the highest level; the slice level must be in the topology too.
  EXPECT_TRUE(has_level(kLevels, request([](auto& x) {
                          x.slice_topology = "rack";
                          x.slice_size = 2;
                        })));
  EXPECT_FALSE(has_level(kLevels, request([](auto& x) {
                           x.slice_topology = "zone";
                           x.slice_size = 2;
                         })));
  EXPECT_FALSE(has_level(kLevels, request([](auto& x) {
                           x.required = "block";
                           x.slice_layers = {{"rack", 4}, {"zone", 2}};
                         })));
  EXPECT_FALSE(has_level({}, request([](auto& x) { x.unconstrained = true; })));
}

}  // namespace
}  // namespace tidesim::tas
