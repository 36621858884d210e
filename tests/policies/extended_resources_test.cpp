// Resources::extended (sim/api/extended_resources.hpp): a flat map with interned names that must
// behave as the std::map<std::string, std::int64_t> it replaced (name order, lookups, arithmetic).
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "tidesim/sim/api/api.hpp"

namespace tidesim {
namespace {

// Names inserted out of order, with a prefix of another name, upper case (sorts before lower
// case in ASCII) and a byte above 127 (std::string compares bytes as unsigned char): the
// iteration order must be std::map's.
TEST(ExtendedResources, IteratesInStdMapOrder) {
  const std::vector<std::string> names = {
      "nvidia.com/mig-2g.10gb", "example.com/foo",       "nvidia.com/mig-1g.5gb", "Example.com/foo",
      "example.com/fo",         "example.com/f\xc3\xa9", "tidesim.io/gpu-milli"};
  ExtendedResources flat;
  std::map<std::string, std::int64_t> reference;
  std::int64_t v = 1;
  for (const auto& n : names) {
    flat[n] = v;
    reference[n] = v;
    ++v;
  }
  ASSERT_EQ(flat.size(), reference.size());
  auto it = flat.begin();
  for (const auto& [name, value] : reference) {
    EXPECT_EQ(it->first, name);
    EXPECT_EQ(it->second, value);
    ++it;
  }
}

TEST(ExtendedResources, LooksUpByNameAndById) {
  ExtendedResources r{{"example.com/fpga", 3}, {"tidesim.io/gpu-milli", 500}};
  EXPECT_EQ(r.at("example.com/fpga"), 3);
  EXPECT_EQ(r.count("example.com/fpga"), 1u);
  EXPECT_EQ(r.count("example.com/gpu"), 0u);
  EXPECT_EQ(r.find("example.com/gpu"), r.end());
  EXPECT_THROW(static_cast<void>(std::as_const(r).at("example.com/gpu")), std::out_of_range);
  // Equal names get equal ids; a name never inserted reads 0 by id.
  EXPECT_EQ(extended_resource_id("tidesim.io/gpu-milli"),
            extended_resource_id(std::string("tidesim.io/") + "gpu-milli"));
  EXPECT_EQ(r.amount(extended_resource_id("tidesim.io/gpu-milli")), 500);
  EXPECT_EQ(r.amount(extended_resource_id("example.com/never-inserted")), 0);
  EXPECT_EQ(r.id_at(r.find("example.com/fpga")), extended_resource_id("example.com/fpga"));
  // emplace keeps an existing amount, as std::map::emplace; erase removes the entry and its id.
  EXPECT_FALSE(r.emplace("example.com/fpga", 9).second);
  EXPECT_EQ(r.at("example.com/fpga"), 3);
  EXPECT_EQ(r.erase("example.com/fpga"), 1u);
  EXPECT_EQ(r.erase("example.com/fpga"), 0u);
  EXPECT_EQ(r.amount(extended_resource_id("example.com/fpga")), 0);
  EXPECT_EQ(r.amount(extended_resource_id("tidesim.io/gpu-milli")), 500);
}

// Equality compares names and amounts, whatever the insertion order.
TEST(ExtendedResources, EqualityIgnoresInsertionOrder) {
  ExtendedResources a;
  a["b.io/y"] = 2;
  a["a.io/x"] = 1;
  const ExtendedResources b{{"a.io/x", 1}, {"b.io/y", 2}};
  EXPECT_EQ(a, b);
  a["a.io/x"] = 5;
  EXPECT_FALSE(a == b);
}

// Resources arithmetic over extended keys: a key only one side has is added as 0 first, so
// {x: 3} + {x: 4, y: 2} = {x: 7, y: 2}, and - {x: 4, y: 2} gives back {x: 3, y: 0} (the key
// stays, as with the std::map).
TEST(ExtendedResources, ResourcesArithmetic) {
  Resources a;
  a.extended["example.com/x"] = 3;
  Resources b;
  b.extended["example.com/x"] = 4;
  b.extended["example.com/y"] = 2;
  a += b;
  EXPECT_EQ(a.extended.at("example.com/x"), 7);
  EXPECT_EQ(a.extended.at("example.com/y"), 2);
  EXPECT_EQ(a.extended.amount(extended_resource_id("example.com/y")), 2);
  a -= b;
  EXPECT_EQ(a.extended, (ExtendedResources{{"example.com/x", 3}, {"example.com/y", 0}}));
}

}  // namespace
}  // namespace tidesim
