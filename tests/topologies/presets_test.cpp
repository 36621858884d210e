#include "tidesim/topologies/presets.hpp"

#include <gtest/gtest.h>

#include <string>

#include "tidesim/sim/input/error.hpp"

namespace tidesim {
namespace {

TEST(Presets, EveryPresetBuilds) {
  for (auto name : preset_names()) {
    const Topology t = preset(name);
    EXPECT_GE(t.gpu_count(), 4) << name;
    EXPECT_TRUE(is_preset(name));
    EXPECT_FALSE(preset_description(name).empty()) << name;
  }
  EXPECT_EQ(preset_names().size(), 6u);
  EXPECT_NE(preset_description("a10x4-nvlink-mesh").find("no NVLink"), std::string_view::npos);
  EXPECT_TRUE(preset_description("dgx2").empty());
}

TEST(Presets, UnknownNameListsPresets) {
  try {
    preset("dgx2");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("dgx2"), std::string::npos);
    EXPECT_NE(what.find("a10x4-nvlink-mesh"), std::string::npos);
    EXPECT_NE(what.find("hgx-h100x8"), std::string::npos);
  }
  EXPECT_THROW(load_topology("no/such/file.txt"), InputError);
}

}  // namespace
}  // namespace tidesim
