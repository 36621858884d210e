#include "tidesim/topologies/gpu_models.hpp"

#include <gtest/gtest.h>

#include <string>

#include "tidesim/sim/input/error.hpp"

namespace tidesim {
namespace {

TEST(GpuModels, CatalogueFiguresFromCalibration) {
  // CALIBRATION.md "GPUs": A10 24 GB, 600 GB/s, FP32 31.2, FP16 tensor 125, PCIe 4, no NVLink.
  const GpuModel& a10 = gpu_model("A10");
  EXPECT_EQ(a10.memory_bytes, 24LL << 30);
  EXPECT_DOUBLE_EQ(a10.memory_bandwidth, 600e9);
  EXPECT_DOUBLE_EQ(a10.fp32_tflops, 31.2);
  EXPECT_DOUBLE_EQ(a10.fp16_tensor_tflops, 125.0);
  EXPECT_EQ(a10.nvlink_generation, 0);
  EXPECT_EQ(a10.pcie_generation, 4);
  // V100-SXM2: NVLink2, 6 links; A100-SXM4: 12; H100/H200: 18.
  EXPECT_EQ(gpu_model("V100-SXM2-32").nvlink_links, 6);
  EXPECT_EQ(gpu_model("V100-SXM2-32").memory_bytes, 32LL << 30);
  EXPECT_EQ(gpu_model("A100-SXM4-80").nvlink_links, 12);
  EXPECT_EQ(gpu_model("H200").nvlink_links, 18);
  EXPECT_EQ(gpu_model("H200").memory_bytes, 141LL << 30);
  EXPECT_TRUE(gpu_model("G2").undisclosed);
  EXPECT_FALSE(gpu_model("T4").undisclosed);
  EXPECT_EQ(gpu_models().size(), 16u);
}

TEST(GpuModels, VisibleMemoryIsWhatTheCardReports) {
  // nvidia-smi's totals (modal-client PR 2797): A10 23,028 MiB (NVML 24,146,608,128 bytes =
  // 23,028 x 2^20), T4 15,360 MiB, H100 81,559 MiB; about 22.49 GiB on a 24 GiB A10.
  EXPECT_EQ(visible_memory(gpu_model("A10")), 24'146'608'128LL);
  EXPECT_EQ(visible_memory(gpu_model("T4")), 15360LL << 20);
  EXPECT_EQ(visible_memory(gpu_model("H100-SXM")), 81559LL << 20);
  EXPECT_NEAR(static_cast<double>(visible_memory(gpu_model("A10"))) / (1LL << 30), 22.49, 0.005);
  // No reported figure: the nominal size (assumption).
  EXPECT_EQ(visible_memory(gpu_model("V100-SXM2-16")), 16LL << 30);
  for (const GpuModel& m : gpu_models()) {
    EXPECT_LE(visible_memory(m), m.memory_bytes) << m.name;
  }
}

TEST(GpuModels, HopperTensorFiguresFromTheWhitepaper) {
  // H100 whitepaper, dense FP16 tensor: 528 tensor cores x 1,024 FLOP/clock x 1.83 GHz = 989.4
  // TFLOPS; the H200 has the same GPU.
  EXPECT_DOUBLE_EQ(gpu_model("H100-SXM").fp16_tensor_tflops, 989.4);
  EXPECT_DOUBLE_EQ(gpu_model("H200").fp16_tensor_tflops, 989.4);
}

TEST(GpuModels, LinkBandwidths) {
  // One NVLink2-4 link: 50 GB/s bidirectional = 25 GB/s per direction (CALIBRATION.md).
  EXPECT_DOUBLE_EQ(nvlink_link_bandwidth(3), 25e9);
  EXPECT_DOUBLE_EQ(nvlink_link_bandwidth(1), 20e9);
  // Measured pinned copies: Gen3 12.4 GB/s, Gen4 25 GB/s; Gen5 = 63 x 25 / 31.5 = 50 GB/s.
  EXPECT_DOUBLE_EQ(pcie_bandwidth(3), 12.4e9);
  EXPECT_DOUBLE_EQ(pcie_bandwidth(4), 25e9);
  EXPECT_NEAR(pcie_bandwidth(5), 50e9, 1.0);
  EXPECT_THROW(pcie_bandwidth(2), std::invalid_argument);
  EXPECT_THROW(nvlink_link_bandwidth(5), std::invalid_argument);
}

TEST(GpuModels, UnknownNameListsKnownOnes) {
  try {
    gpu_model("RTX4090");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("RTX4090"), std::string::npos);
    EXPECT_NE(what.find("A100-SXM4-40"), std::string::npos);
    EXPECT_NE(what.find("V100M16"), std::string::npos);
  }
}

}  // namespace
}  // namespace tidesim
