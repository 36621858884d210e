// Which GPUs each topology preset describes, and the warning for a node group that puts other
// cards on it.
#include <gtest/gtest.h>

#include "tidesim/topologies/gpu_models.hpp"
#include "tidesim/topologies/presets.hpp"

namespace tidesim {
namespace {

TEST(PresetGpus, EveryPresetNamesModelsOfTheCatalogue) {
  for (const auto name : preset_names()) {
    const auto models = preset_gpu_models(name);
    EXPECT_FALSE(models.empty()) << name;
    for (const auto model : models) {
      EXPECT_NO_THROW((void)gpu_model(model)) << name << ": " << model;
    }
  }
  EXPECT_TRUE(preset_gpu_models("pcie-8").empty());  // any model
}

TEST(PresetGpus, AGroupWithOtherCardsIsWarned) {
  EXPECT_EQ(preset_gpu_warning("gpu", "a10x4-pcie", "A10"), std::nullopt);
  EXPECT_EQ(preset_gpu_warning("gpu", "hgx-a100x4", "A100-SXM4-40"), std::nullopt);
  EXPECT_EQ(preset_gpu_warning("gpu", "pcie-4", "T4"), std::nullopt);
  EXPECT_EQ(preset_gpu_warning("gpu", "a10x4-pcie", ""), std::nullopt);  // no GPUs named
  const auto w = preset_gpu_warning("big", "dgx-a100", "T4");
  ASSERT_TRUE(w);
  EXPECT_EQ(w->rfind("node group 'big': topology preset 'dgx-a100' is a board of A100-SXM4-40 or "
                     "A100-SXM4-80 GPUs, not T4",
                     0),
            0u)
      << *w;
}

}  // namespace
}  // namespace tidesim
