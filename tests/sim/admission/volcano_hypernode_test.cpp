// Volcano HyperNodes: the reader of the objects as users write them, the tree it builds
// (volcano-sh/volcano pkg/scheduler/api/hyper_node_info.go), the label discoverer's construction,
// and the errors that name file, line, column and field.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tidesim/sim/admission/volcano_hypernode.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim::volcano {
namespace {

const std::string kData = std::string(TIDESIM_SOURCE_DIR) + "/tests/sim/admission/data/volcano/";

std::vector<NodeSpec> four_nodes() {
  std::vector<NodeSpec> out;
  for (const char* n : {"n1", "n2", "n3", "n4"}) {
    NodeSpec s;
    s.name = n;
    s.labels = {{"rack", n[1] < '3' ? "a" : "b"}, {"spine", "s"}};
    out.push_back(s);
  }
  return out;
}

std::string names(const HyperNodeTree& t, const std::vector<int>& v, bool nodes) {
  std::string out;
  for (const int i : v) {
    out += (out.empty() ? "" : ",") + (nodes ? "n" + std::to_string(i + 1) : t.name(i));
  }
  return out;
}

TEST(VolcanoHyperNode, ReadsExactRegexAndLabelMembersIntoATree) {
  const std::vector<HyperNodeSpec> specs = read_hypernode_file(kData + "hypernodes.yaml");
  ASSERT_EQ(specs.size(), 3U);
  EXPECT_EQ(specs[1].tier_name, "rack");
  const HyperNodeTree t(specs, four_nodes());
  const int a = t.find("rack-a");
  const int b = t.find("rack-b");
  const int s = t.find("spine");
  EXPECT_EQ(names(t, t.nodes(a), true), "n1,n2");
  EXPECT_EQ(names(t, t.nodes(b), true), "n3,n4");
  EXPECT_EQ(names(t, t.nodes(s), true), "n1,n2,n3,n4");
  EXPECT_EQ(t.parent(a), s);
  EXPECT_EQ(t.parent(s), 0);  // under the cluster top
  EXPECT_EQ(t.name(0), kClusterTop);
  EXPECT_EQ(t.top_tier(), 3);
  EXPECT_EQ(t.tier_list(), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(t.hypernode_of(2), b);
  EXPECT_EQ(t.lca(a, b), s);
  EXPECT_EQ(t.ancestors(a), (std::vector<int>{a, s, 0}));
}

TEST(VolcanoHyperNode, BuildsTiersFromNodeLabelsAsTheLabelDiscoverer) {
  const std::vector<HyperNodeSpec> specs = hypernodes_from_labels({"rack", "spine"}, four_nodes());
  ASSERT_EQ(specs.size(), 3U);
  EXPECT_EQ(specs[0].name, "hypernode-rack-tier1-a");
  EXPECT_EQ(specs[1].name, "hypernode-spine-tier2-s");
  EXPECT_EQ(specs[2].name, "hypernode-rack-tier1-b");
  const HyperNodeTree t(specs, four_nodes());
  const int spine = t.find("hypernode-spine-tier2-s");
  EXPECT_EQ(t.tier(spine), 2);
  EXPECT_EQ(names(t, t.children(spine), false), "hypernode-rack-tier1-a,hypernode-rack-tier1-b");
  EXPECT_EQ(t.nodes(spine).size(), 4U);
}

std::string error_of(const std::string& yaml) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "tidesim-volcano-hn-test.yaml").string();
  std::ofstream(path) << yaml;
  try {
    const auto specs = read_hypernode_file(path);
    const HyperNodeTree t(specs, four_nodes());
  } catch (const InputError& e) {
    return std::string(e.what()).substr(path.size());
  }
  return "no error";
}

const char* kHead =
    "apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata: {name: h}\n";

TEST(VolcanoHyperNode, BadObjectsNameFileLineColumnAndField) {
  EXPECT_EQ(error_of("apiVersion: v1\nkind: HyperNode\n"),
            ":1:13: apiVersion: expected topology.volcano.sh/v1alpha1, not 'v1'");
  EXPECT_EQ(error_of(std::string(kHead) + "spec: {members: [{type: Node, selector: {exactMatch: "
                                          "{name: n1}}}]}\n"),
            ":4:7: spec.tier: missing required field (an integer)");
  EXPECT_EQ(
      error_of(std::string(kHead) +
               "spec:\n  tier: 1\n  members:\n    - type: Node\n      selector: {exactMatch: "
               "{name: n1}, regexMatch: {pattern: n}}\n"),
      ":8:17: spec.members[0].selector: Only one of ExactMatch, RegexMatch, or LabelMatch can be "
      "specified");
  EXPECT_EQ(error_of(std::string(kHead) +
                     "spec:\n  tier: 1\n  members:\n    - {type: Switch, selector: {}}\n"),
            ":7:14: spec.members[0].type: 'Switch' is not one of: Node, HyperNode");
  EXPECT_EQ(error_of(std::string(kHead) +
                     "spec:\n  tier: 2\n  members:\n    - type: HyperNode\n      selector: "
                     "{exactMatch: {name: rack-z}}\n"),
            ":7:7: spec.members[0].selector.exactMatch.name: names no HyperNode: 'rack-z'");
  EXPECT_EQ(error_of(std::string(kHead) +
                     "spec:\n  tier: 1\n  members:\n    - type: Node\n      selector: "
                     "{regexMatch: {pattern: '(('}}\n"),
            ":8:40: spec.members[0].selector.regexMatch.pattern: '((' is not a regular "
            "expression");
}

TEST(VolcanoHyperNode, RefusesCyclesAndTwoParents) {
  const std::string cycle =
      "apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata: {name: a}\n"
      "spec: {tier: 1, members: [{type: HyperNode, selector: {exactMatch: {name: b}}}]}\n---\n"
      "apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata: {name: b}\n"
      "spec: {tier: 2, members: [{type: HyperNode, selector: {exactMatch: {name: a}}}]}\n";
  EXPECT_NE(error_of(cycle).find("cyclic dependency"), std::string::npos) << error_of(cycle);
  const std::string two =
      "apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata: {name: a}\n"
      "spec: {tier: 1, members: [{type: Node, selector: {exactMatch: {name: n1}}}]}\n---\n"
      "apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata: {name: b}\n"
      "spec: {tier: 2, members: [{type: HyperNode, selector: {exactMatch: {name: a}}}]}\n---\n"
      "apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata: {name: c}\n"
      "spec: {tier: 2, members: [{type: HyperNode, selector: {exactMatch: {name: a}}}]}\n";
  EXPECT_NE(error_of(two).find("is already a member of 'b'"), std::string::npos) << error_of(two);
}

}  // namespace
}  // namespace tidesim::volcano
