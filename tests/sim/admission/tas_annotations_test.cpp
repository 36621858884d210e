// The one reader of Kueue's PodSet topology annotations (sim/admission/tas_annotations.hpp), as
// Kueue's jobframework builds a topologyRequest from them (kubernetes-sigs/kueue @ff69552,
// pkg/controller/jobframework/tas.go): which annotation wins, and the refusal of bad values.
#include "tidesim/sim/admission/tas_annotations.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tidesim::tas {
namespace {

using Annotations = std::map<std::string, std::string>;

const std::string kRequired = "kueue.x-k8s.io/podset-required-topology";
const std::string kPreferred = "kueue.x-k8s.io/podset-preferred-topology";
const std::string kUnconstrained = "kueue.x-k8s.io/podset-unconstrained-topology";
const std::string kSliceTopology = "kueue.x-k8s.io/podset-slice-required-topology";
const std::string kSliceSize = "kueue.x-k8s.io/podset-slice-size";
const std::string kConstraints = "kueue.x-k8s.io/podset-slice-required-topology-constraints";
const std::string kGroup = "kueue.x-k8s.io/podset-group-name";

TEST(TasAnnotations, RequiredWinsOverPreferredWhichWinsOverUnconstrained) {
  auto r = request_from_annotations({{kRequired, "rack"}, {kPreferred, "block"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->required, "rack");
  EXPECT_FALSE(r->preferred);
  r = request_from_annotations({{kPreferred, "block"}, {kUnconstrained, "true"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->preferred, "block");
  EXPECT_FALSE(r->unconstrained);
  EXPECT_FALSE(request_from_annotations({}));
  EXPECT_FALSE(request_from_annotations({{"other", "x"}, {kGroup, "g"}}));
}

TEST(TasAnnotations, UnconstrainedTakesStrconvParseBoolSpellings) {
  for (const char* yes : {"1", "t", "T", "true", "TRUE", "True"}) {
    auto r = request_from_annotations({{kUnconstrained, yes}});
    ASSERT_TRUE(r) << yes;
    EXPECT_TRUE(r->unconstrained) << yes;
  }
  for (const char* no : {"0", "f", "F", "false", "FALSE", "False"}) {
    auto r = request_from_annotations({{kUnconstrained, no}});
    ASSERT_TRUE(r) << no;
    EXPECT_FALSE(r->unconstrained) << no;
  }
}

TEST(TasAnnotations, SlicesNeedBothAnnotations) {
  auto r = request_from_annotations({{kSliceTopology, "rack"}, {kSliceSize, "4"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->slice_topology, "rack");
  EXPECT_EQ(r->slice_size, 4);
  EXPECT_FALSE(request_from_annotations({{kSliceTopology, "rack"}}));
  r = request_from_annotations({{kRequired, "block"}, {kSliceSize, "4"}});
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->slice_topology);
  EXPECT_FALSE(r->slice_size);
}

TEST(TasAnnotations, ConstraintsReplaceTheSingleSlice) {
  auto r = request_from_annotations(
      {{kRequired, "block"},
       {kSliceTopology, "host"},
       {kSliceSize, "2"},
       {kConstraints, R"([{"topology": "rack", "size": 8}, {"topology": "host", "size": 2}])"}});
  ASSERT_TRUE(r);
  ASSERT_EQ(r->slice_layers.size(), 2U);
  EXPECT_EQ(r->slice_layers[0].topology, "rack");
  EXPECT_EQ(r->slice_layers[0].size, 8);
  EXPECT_EQ(r->slice_layers[1].size, 2);
  EXPECT_FALSE(r->slice_topology);
}

TEST(TasAnnotations, GroupCountsOnlyWithRequiredOrPreferred) {
  auto r = request_from_annotations({{kPreferred, "rack"}, {kGroup, "g"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->group, "g");
  r = request_from_annotations({{kUnconstrained, "true"}, {kGroup, "g"}});
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->group);
}

// Each bad value: the annotation named and the message.
TEST(TasAnnotations, BadValuesAreRefusedWithTheAnnotationNamed) {
  const std::string layers = "failed to parse multi-layer topology constraints annotation: ";
  const std::vector<std::pair<Annotations, std::pair<std::string, std::string>>> bad = {
      {{{kUnconstrained, "yes"}}, {kUnconstrained, "expected true or false, got 'yes'"}},
      {{{kUnconstrained, ""}}, {kUnconstrained, "expected true or false, got ''"}},
      {{{kSliceTopology, "rack"}, {kSliceSize, "0"}},
       {kSliceSize, "expected an integer of at least 1, got '0'"}},
      {{{kSliceTopology, "rack"}, {kSliceSize, "-2"}},
       {kSliceSize, "expected an integer of at least 1, got '-2'"}},
      {{{kSliceTopology, "rack"}, {kSliceSize, "4x"}},
       {kSliceSize, "expected an integer of at least 1, got '4x'"}},
      {{{kSliceTopology, "rack"}, {kSliceSize, "2147483648"}},
       {kSliceSize, "expected an integer of at least 1, got '2147483648'"}},
      {{{kConstraints, "[]"}},
       {kConstraints, layers + "topology constraints must contain between 1 and 3 entries"}},
      {{{kConstraints, R"({"topology": "rack", "size": 2})"}},
       {kConstraints, layers + "expected a list of {\"topology\", \"size\"}"}},
      {{{kConstraints, R"([{"topology": "rack"}])"}},
       {kConstraints, layers + "each layer needs topology and size"}},
      {{{kConstraints, R"([{"topology": "rack", "size": 0}])"}},
       {kConstraints, layers + "size: expected an integer of at least 1, got '0'"}},
      {{{kConstraints,
         R"([{"topology": "a", "size": 1}, {"topology": "b", "size": 1},
             {"topology": "c", "size": 1}, {"topology": "d", "size": 1}])"}},
       {kConstraints, layers + "topology constraints must contain between 1 and 3 entries"}},
  };
  for (const auto& [annotations, want] : bad) {
    try {
      request_from_annotations(annotations);
      ADD_FAILURE() << "accepted; expected: " << want.second;
    } catch (const TasAnnotationError& e) {
      EXPECT_EQ(e.annotation(), want.first);
      EXPECT_EQ(e.message(), want.second);
      EXPECT_EQ(std::string(e.what()), want.first + ": " + want.second);
    }
  }
  // A list that is not YAML or JSON at all: the parser's own message after the prefix.
  try {
    request_from_annotations({{kConstraints, "[{"}});
    ADD_FAILURE() << "accepted an unclosed list";
  } catch (const TasAnnotationError& e) {
    EXPECT_EQ(e.annotation(), kConstraints);
    EXPECT_EQ(e.message().rfind(layers, 0), 0U) << e.message();
  }
}

}  // namespace
}  // namespace tidesim::tas
