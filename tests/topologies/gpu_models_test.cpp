#include "tidesim/topologies/gpu_models.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

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
  // K80: one GK210 of the Tesla K80 board (datasheet: 24 GB, 480 GB/s for the board's two).
  EXPECT_EQ(gpu_model("K80").memory_bytes, 12LL << 30);
  EXPECT_EQ(gpu_models().size(), 17u);
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

TEST(GpuModels, CatalogueIsTheCompiledInCsv) {
  // The text compiled in is topologies/gpu_models.csv as it is in the tree: a header line, then
  // one line per model.
  std::ifstream in(std::string(TIDESIM_SOURCE_DIR) + "/topologies/gpu_models.csv");
  ASSERT_TRUE(in);
  std::stringstream file;
  file << in.rdbuf();
  const std::string text = file.str();
  EXPECT_EQ(gpu_models_csv(), text);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1 + 17);
}

TEST(GpuModels, ALikeRowTakesTheFiguresItLeavesEmpty) {
  // V100M16's row gives only its name, like V100-SXM2-16, NVLink 0 x 0 and its source: memory,
  // TFLOPS, bandwidth and PCIe are the SXM2 card's. G2 and G3 give nothing but like G1.
  const GpuModel& sxm2 = gpu_model("V100-SXM2-16");
  const GpuModel& m16 = gpu_model("V100M16");
  EXPECT_EQ(m16.memory_bytes, sxm2.memory_bytes);
  EXPECT_EQ(m16.fp32_tflops, sxm2.fp32_tflops);
  EXPECT_EQ(m16.fp16_tensor_tflops, sxm2.fp16_tensor_tflops);
  EXPECT_EQ(m16.memory_bandwidth, 900e9);
  EXPECT_EQ(m16.pcie_generation, 3);
  EXPECT_EQ(sxm2.nvlink_links, 6);
  EXPECT_EQ(m16.nvlink_generation, 0);
  EXPECT_EQ(m16.nvlink_links, 0);
  EXPECT_NE(m16.source, sxm2.source);
  EXPECT_EQ(gpu_model("V100-SXM2-32").source, sxm2.source);
  for (const char* g : {"G2", "G3"}) {
    EXPECT_EQ(gpu_model(g).memory_bytes, 16LL << 30) << g;
    EXPECT_TRUE(gpu_model(g).undisclosed) << g;
    EXPECT_EQ(gpu_model(g).source, gpu_model("G1").source) << g;
  }
}

// The tables of docs/model-hardware.md, section 1, against the catalogue.

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(' ');
  const auto e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string& s, const std::string& separator) {
  std::vector<std::string> parts;
  std::size_t from = 0;
  for (auto at = s.find(separator); at != std::string::npos; at = s.find(separator, from)) {
    parts.push_back(trim(s.substr(from, at - from)));
    from = at + separator.size();
  }
  parts.push_back(trim(s.substr(from)));
  return parts;
}

// The rows of the doc's table whose header starts with `header`, as trimmed cells.
std::vector<std::vector<std::string>> doc_table(const std::string& header) {
  std::ifstream in(std::string(TIDESIM_SOURCE_DIR) + "/docs/model-hardware.md");
  EXPECT_TRUE(in);
  std::vector<std::vector<std::string>> rows;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(header)) {
      inside = true;
    } else if (inside && !line.starts_with("|")) {
      break;
    } else if (inside && !line.starts_with("|---")) {
      auto cells = split(line.substr(1, line.size() - 2), "|");
      rows.push_back(cells);
    }
  }
  EXPECT_FALSE(rows.empty()) << header;
  return rows;
}

// "600 GB/s", "1,555 GB/s", "3.35 TB/s" -> bytes/s.
double doc_bandwidth(std::string cell) {
  std::erase(cell, ',');
  const double scale = cell.ends_with(" TB/s") ? 1e12 : 1e9;
  EXPECT_TRUE(cell.ends_with(" TB/s") || cell.ends_with(" GB/s")) << cell;
  return std::stod(cell) * scale;
}

TEST(GpuModels, DocTableIsTheCatalogue) {
  const auto rows = doc_table("| name | memory | FP32 TFLOPS |");
  std::map<std::string, int> seen;
  for (const auto& cells : rows) {
    ASSERT_EQ(cells.size(), 8u) << cells[0];
    // Models with the same figures share a row: "A / B" in the name and, where they differ,
    // in the memory cell.
    const auto names = split(cells[0], " / ");
    std::string memory = cells[1];
    ASSERT_TRUE(memory.ends_with(" GiB")) << memory;
    const auto gib = split(memory.substr(0, memory.size() - 4), " / ");
    ASSERT_TRUE(gib.size() == 1 || gib.size() == names.size()) << cells[0];
    for (std::size_t i = 0; i < names.size(); ++i) {
      const GpuModel& m = gpu_model(names[i]);
      ++seen[names[i]];
      EXPECT_EQ(m.memory_bytes, std::stoll(gib[gib.size() == 1 ? 0 : i]) << 30) << m.name;
      EXPECT_DOUBLE_EQ(m.fp32_tflops, std::stod(cells[2])) << m.name;
      EXPECT_DOUBLE_EQ(m.fp16_tensor_tflops, cells[3] == "-" ? 0.0 : std::stod(cells[3])) << m.name;
      EXPECT_NEAR(m.memory_bandwidth, doc_bandwidth(cells[4]), 1e3) << m.name;
      if (cells[5].starts_with("none")) {
        EXPECT_EQ(m.nvlink_generation, 0) << m.name;
        EXPECT_EQ(m.nvlink_links, 0) << m.name;
      } else {
        const auto link = split(cells[5], " x ");
        ASSERT_EQ(link.size(), 2u) << cells[5];
        EXPECT_EQ(m.nvlink_generation, std::stoi(link[0])) << m.name;
        EXPECT_EQ(m.nvlink_links, std::stoi(link[1])) << m.name;
      }
      EXPECT_EQ("Gen" + std::to_string(m.pcie_generation), cells[6]) << m.name;
      // Both cite CALIBRATION.md, or neither; only the undisclosed ones are flagged so.
      EXPECT_EQ(cells[7].find("CAL") != std::string::npos,
                m.source.find("CAL") != std::string_view::npos)
          << m.name;
      EXPECT_EQ(cells[7].find("`undisclosed`") != std::string::npos, m.undisclosed) << m.name;
    }
  }
  // Every model exactly once.
  EXPECT_EQ(seen.size(), gpu_models().size());
  for (const GpuModel& m : gpu_models()) {
    EXPECT_EQ(seen[std::string(m.name)], 1) << m.name;
  }
}

TEST(GpuModels, DocVisibleMemoryTableIsTheCatalogue) {
  const auto rows = doc_table("| name | nominal | visible (MiB) |");
  std::map<std::string, bool> listed;
  for (const auto& cells : rows) {
    ASSERT_EQ(cells.size(), 5u) << cells[0];
    if (cells[0].starts_with("others")) {
      continue;
    }
    const GpuModel& m = gpu_model(cells[0]);
    listed[cells[0]] = true;
    EXPECT_EQ(cells[1], std::to_string(m.memory_bytes >> 30) + " GiB") << m.name;
    std::string mib = cells[2];
    std::erase(mib, ',');
    EXPECT_EQ(m.visible_memory_bytes, std::stoll(mib) << 20) << m.name;
    // GiB to two decimals: 23,028 MiB / 1,024 = 22.488 -> 22.49.
    EXPECT_NEAR(std::stod(cells[3]), std::stod(mib) / 1024.0, 0.005) << m.name;
  }
  // The "others" row: no reported figure, the nominal size.
  for (const GpuModel& m : gpu_models()) {
    if (!listed.contains(std::string(m.name))) {
      EXPECT_EQ(m.visible_memory_bytes, 0) << m.name;
    }
  }
  EXPECT_EQ(listed.size(), 7u);
}

TEST(GpuModels, DocLinkTableIsTheCatalogue) {
  const auto rows = doc_table("| link | per direction |");
  int checked = 0;
  for (const auto& cells : rows) {
    ASSERT_EQ(cells.size(), 3u) << cells[0];
    const double doc = doc_bandwidth(cells[1]);
    if (cells[0] == "one NVLink2/3/4 link") {
      for (int gen = 2; gen <= 4; ++gen) {
        EXPECT_DOUBLE_EQ(nvlink_link_bandwidth(gen), doc) << gen;
      }
      ++checked;
    } else if (cells[0].starts_with("one NVLink1 link")) {
      EXPECT_DOUBLE_EQ(nvlink_link_bandwidth(1), doc);
      ++checked;
    } else if (cells[0].starts_with("PCIe Gen")) {
      // "PCIe Gen5 x16": the doc rounds the derived Gen5 figure (63 x 25 / 31.5) to 50 GB/s.
      EXPECT_NEAR(pcie_bandwidth(cells[0][8] - '0'), doc, 1.0) << cells[0];
      ++checked;
    }
  }
  EXPECT_EQ(checked, 5);
}

}  // namespace
}  // namespace tidesim
