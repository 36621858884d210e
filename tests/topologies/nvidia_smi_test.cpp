// The `nvidia-smi topo -m` parser on the real outputs in ../shared/data/topo (skipped when
// absent, failing under CI=true) and on fixtures in tests/topologies/data written for each shape of
// real output.
#include "tidesim/topologies/nvidia_smi.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/common/errors.hpp"
#include "tests/common/require.hpp"
#include "tidesim/sim/input/error.hpp"

namespace tidesim {
namespace {

using test::message_of;

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string fixture(const std::string& name) {
  return std::string(TIDESIM_SOURCE_DIR) + "/tests/topologies/data/" + name;
}

std::string shared(const std::string& name) {
  return std::string(TIDESIM_SHARED_DATA_DIR) + "/topo/" + name;
}

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) {
    out.push_back(w);
  }
  return out;
}

// The input's GPU block as words: header GPU names, then each GPU row's label and GPU cells.
std::vector<std::vector<std::string>> gpu_block_words(const std::string& text, int gpus) {
  std::istringstream in(text);
  std::vector<std::vector<std::string>> out;
  bool in_table = false;
  for (std::string line; std::getline(in, line);) {
    auto w = words(line);
    if (!in_table) {
      if (!w.empty() && w[0] == "GPU0" && (w.size() == 1 || w[1] != "X")) {
        in_table = true;
        w.resize(static_cast<std::size_t>(gpus));
        out.push_back(w);
      }
      continue;
    }
    if (static_cast<int>(out.size()) > gpus) {
      break;
    }
    w.resize(static_cast<std::size_t>(gpus + 1));
    out.push_back(w);
  }
  out.resize(static_cast<std::size_t>(gpus + 1));
  return out;
}

// The first lines of a tab-separated file, each cut to its first `fields` tab fields.
std::string tab_block(const std::string& text, int gpus) {
  std::istringstream in(text);
  std::string out;
  std::string line;
  for (int i = 0; i <= gpus && std::getline(in, line); ++i) {
    std::vector<std::string> fields;
    std::size_t start = 0;
    while (true) {
      const auto tab = line.find('\t', start);
      fields.push_back(
          line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
      if (tab == std::string::npos) {
        break;
      }
      start = tab + 1;
    }
    for (int f = 0; f <= gpus; ++f) {
      out += (f == 0 ? "" : "\t") + fields[static_cast<std::size_t>(f)];
    }
    out += "\n";
  }
  return out;
}

TEST(NvidiaSmiReal, Dgx1) {
  const auto path = shared("dgx1_v100.txt");
  TIDESIM_REQUIRE_FILE(path);
  const std::string text = read(path);
  const Topology t = parse_nvidia_smi(text, path, params_for_gpu("V100-SXM2-16"));
  EXPECT_EQ(t.gpu_count(), 8);
  EXPECT_EQ(t.nic_count(), 4);
  // Tab-separated input: the GPU block round-trips byte for byte.
  EXPECT_EQ(t.to_nvidia_smi(), tab_block(text, 8));
  EXPECT_EQ(t.nvlink_groups().size(), 1u);
  EXPECT_DOUBLE_EQ(t.bandwidth(1, 5), 50e9);  // NV2
  EXPECT_EQ(t.numa_node(6), 1);
}

TEST(NvidiaSmiReal, A100Nvlink) {
  const auto path = shared("nvlink_4x_a100_sxm_della.txt");
  TIDESIM_REQUIRE_FILE(path);
  const std::string text = read(path);
  const Topology t = load_nvidia_smi_file(path, params_for_gpu("A100-SXM4-80"));
  EXPECT_EQ(t.to_nvidia_smi(), tab_block(text, 4));
  EXPECT_EQ(t.nic_count(), 1);
  EXPECT_EQ(t.numa_node(0), 0);
  EXPECT_EQ(t.numa_node(3), 1);
  EXPECT_EQ(t.cpu_affinity(2), "24-47");
  EXPECT_DOUBLE_EQ(t.bandwidth(0, 2), 100e9);  // NV4 x 25 GB/s
}

TEST(NvidiaSmiReal, A100Pcie) {
  const auto path = shared("pcie_4x_a100_adroit.txt");
  TIDESIM_REQUIRE_FILE(path);
  const std::string text = read(path);
  const Topology t = load_nvidia_smi_file(path, params_for_gpu("A100-PCIe"));
  // The header is indented with spaces, not a tab: compare word by word.
  EXPECT_EQ(gpu_block_words(t.to_nvidia_smi(), 4), gpu_block_words(text, 4));
  EXPECT_EQ(t.link(0, 1), LinkType::kNode);
  EXPECT_EQ(t.link(1, 2), LinkType::kSys);
  EXPECT_TRUE(t.nvlink_groups().empty());
  EXPECT_EQ(t.numa_node(2), 1);
  EXPECT_DOUBLE_EQ(t.bandwidth(0, 1), 25e9);  // PCIe Gen4 through the socket
  EXPECT_DOUBLE_EQ(t.bandwidth(0, 3), 10e9);  // the SMP link
  // Best pair: a NODE pair (25 GB/s) rather than a SYS one.
  EXPECT_EQ(t.best_free_set(2, {true, false, true, true}), (std::vector<int>{2, 3}));
}

TEST(NvidiaSmiFixtures, SpacesPaddingAndPrompt) {
  const Topology t = load_nvidia_smi_file(fixture("spaces_prompt.txt"));
  EXPECT_EQ(t.gpu_count(), 4);
  EXPECT_EQ(t.nic_count(), 0);
  EXPECT_EQ(t.link(0, 1), LinkType::kPix);
  EXPECT_EQ(t.link(1, 3), LinkType::kPhb);
  EXPECT_EQ(t.cpu_affinity(3), "0-15");
  EXPECT_EQ(t.numa_node(3), 0);
  EXPECT_EQ(gpu_block_words(t.to_nvidia_smi(), 4),
            gpu_block_words(read(fixture("spaces_prompt.txt")), 4));
}

TEST(NvidiaSmiFixtures, OldDriverSocAndCrlf) {
  const std::string text = read(fixture("soc_old_driver.txt"));
  const Topology t = parse_nvidia_smi(text, "soc_old_driver.txt");
  EXPECT_EQ(t.link(0, 2), LinkType::kSys);
  EXPECT_EQ(t.link(2, 3), LinkType::kPxb);
  EXPECT_EQ(t.nic_count(), 1);
  EXPECT_TRUE(t.matrix().soc_spelling);
  // The SOC spelling is kept when printed back.
  EXPECT_NE(t.to_nvidia_smi().find("SOC"), std::string::npos);
  EXPECT_EQ(t.to_nvidia_smi().find("SYS"), std::string::npos);
  // No NUMA column: sockets come from the SOC split and the CPU affinity.
  EXPECT_EQ(t.numa_node(1), 0);
  EXPECT_EQ(t.numa_node(2), 1);
  EXPECT_EQ(t.socket_count(), 2);
}

TEST(NvidiaSmiFixtures, NicColumnsGpuNumaIdAndNicLegend) {
  const Topology t = load_nvidia_smi_file(fixture("nic_legend.txt"));
  EXPECT_EQ(t.gpu_count(), 2);
  EXPECT_EQ(t.nic_count(), 2);
  EXPECT_EQ(t.matrix().devices[2], "NIC0");
  EXPECT_EQ(t.cell(0, 1), (LinkCell{LinkType::kNVLink, 18}));
  EXPECT_EQ(t.numa_node(1), 1);
  EXPECT_EQ(t.cpu_affinity(1), "56-111,168-223");
  // 18 links x 25 GB/s, direct (18 does not exceed the most links a GPU has).
  EXPECT_DOUBLE_EQ(t.bandwidth(0, 1), 450e9);
  EXPECT_FALSE(t.has_nvswitch());
}

TEST(NvidiaSmiFixtures, SingleGpu) {
  const Topology t = load_nvidia_smi_file(fixture("single_gpu.txt"));
  EXPECT_EQ(t.gpu_count(), 1);
  const std::vector<int> one{0};
  EXPECT_TRUE(std::isinf(t.ring_bandwidth(one)));
  EXPECT_EQ(t.to_nvidia_smi(), "\tGPU0\nGPU0\t X \n");
}

struct BadCase {
  const char* file;
  int line;
  int column;  // counted by hand in the fixture (a tab is one character)
  const char* field;
  const char* message_part;
};

class NvidiaSmiBad : public ::testing::TestWithParam<BadCase> {};

TEST_P(NvidiaSmiBad, NamesLineAndField) {
  const BadCase& c = GetParam();
  try {
    load_nvidia_smi_file(fixture(c.file));
    FAIL() << "expected InputError for " << c.file;
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, c.line) << e.what();
    EXPECT_EQ(e.where().column, c.column) << e.what();
    EXPECT_EQ(e.field(), c.field) << e.what();
    EXPECT_NE(std::string(e.what()).find(c.message_part), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(c.file), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, NvidiaSmiBad,
    // Asymmetric: GPU1's cell of GPU0 ("GPU1\tNV1": column 6). Unknown: "GPU0\t X \tQPI", Q at
    // 10. Short row: just past "GPU0\t X \tPIX" (13), where the third cell would begin. Missing
    // row: the empty line 4 that ends the table. No matrix: the file's start. Wrong label: the
    // label "GPU2" at the line's start.
    ::testing::Values(BadCase{"bad_asymmetric.txt", 3, 6, "GPU1/GPU0", "asymmetric"},
                      BadCase{"bad_cell.txt", 2, 10, "GPU0/GPU1", "unknown connection 'QPI'"},
                      BadCase{"bad_short_row.txt", 2, 13, "GPU0", "row has 2 cells, expected 3"},
                      BadCase{"bad_missing_row.txt", 4, 1, "GPU2", "missing the row of 'GPU2'"},
                      BadCase{"bad_no_matrix.txt", 1, 1, "header", "no `nvidia-smi topo -m`"},
                      BadCase{"bad_row_label.txt", 3, 1, "GPU2", "expected the row of 'GPU1'"}),
    [](const ::testing::TestParamInfo<BadCase>& info) {
      std::string name = info.param.file;
      name = name.substr(0, name.find('.'));
      return name;
    });

TEST(NvidiaSmiBadText, MoreProblems) {
  // Every error names the line and the column where its word begins (a tab is one character).
  // X off the diagonal: GPU0's second cell, "GPU0\t X \t X " column 11.
  EXPECT_EQ(
      message_of([] { parse_nvidia_smi("\tGPU0\tGPU1\nGPU0\t X \t X \nGPU1\t X \t X \n", "t"); }),
      "t:2:11: GPU0/GPU1: X off the diagonal");
  // NVLink to a NIC: "GPU0\t X \tNV1", N at 10.
  EXPECT_EQ(message_of([] {
              parse_nvidia_smi("\tGPU0\tmlx5_0\nGPU0\t X \tNV1\nmlx5_0\tNV1\t X \n", "t");
            }),
            "t:2:10: GPU0/mlx5_0: NVLink is only modelled between GPUs");
  // NUMA affinity that is not a number: "GPU0\t X \tzero", z at 10.
  EXPECT_EQ(message_of([] { parse_nvidia_smi("\tGPU0\tNUMA Affinity\nGPU0\t X \tzero\n", "t"); }),
            "t:2:10: GPU0/NUMA Affinity: expected a NUMA node number or N/A, got 'zero'");
  // GPUs out of order: the header word GPU1 of "\tGPU1\tGPU0" at 2.
  EXPECT_EQ(
      message_of([] { parse_nvidia_smi("\tGPU1\tGPU0\nGPU1\t X \tPIX\nGPU0\tPIX\t X \n", "t"); }),
      "t:1:2: GPU1: GPU columns must come first, in order GPU0, GPU1, ...; found 'GPU1' at "
      "position 0");
  // Too many cells: the extra one, "GPU0\t X \tPIX" P at 10.
  EXPECT_EQ(message_of([] { parse_nvidia_smi("\tGPU0\nGPU0\t X \tPIX\n", "t"); }),
            "t:2:10: GPU0: row has 2 cells, the header has 1 columns");
  // Too many rows: the extra row's label.
  EXPECT_EQ(message_of([] { parse_nvidia_smi("\tGPU0\nGPU0\t X \n  GPU1\t X \n", "t"); }),
            "t:3:3: GPU1: more rows than the 1 columns of the header");
  // A matrix cut at the end of the text: just past its last line ("GPU0\t X \tPIX" ends at 12).
  EXPECT_EQ(message_of([] { parse_nvidia_smi("\tGPU0\tGPU1\nGPU0\t X \tPIX", "t"); }),
            "t:2:13: GPU1: matrix ends after 1 rows; the header has 2 columns (missing the row "
            "of 'GPU1')");
  // Columns count characters, not bytes: in "\tGPU0\t\u00b5\tGPU1" (the micro sign is two
  // bytes) GPU1 begins at 9.
  EXPECT_EQ(message_of([] { parse_nvidia_smi("\tGPU0\t\u00b5\tGPU1\n", "t"); }),
            "t:1:9: GPU1: GPU columns must come first, in order GPU0, GPU1, ...; found 'GPU1' at "
            "position 2");
  // A NUL byte in a word is shown, not the end of the message.
  const std::string nul = std::string("\tGPU0\tGPU1\nGPU0\t X \tQ") + '\0' + "I\n";
  EXPECT_EQ(message_of([&] { parse_nvidia_smi(nul, "t"); }),
            "t:2:10: GPU0/GPU1: unknown connection 'Q\\0I' (expected X, NV#, PIX, PXB, PHB, NODE, "
            "SYS or SOC)");
  EXPECT_THROW(load_nvidia_smi_file("tests/topologies/data/does_not_exist.txt"), InputError);
}

TEST(NvidiaSmiHostile, LongTokenIsCheckedWithoutRegexAndShortenedInTheMessage) {
  // A 30,000-character GPU7777... token used to overflow the stack inside std::regex.
  const std::string label = "GPU" + std::string(30000, '7');
  const std::string shown = "GPU" + std::string(97, '7') + "...(30003 characters)";
  EXPECT_EQ(message_of([&] { parse_nvidia_smi(label + "\n", "t"); }),
            "t:1:1: " + shown + ": GPU columns must come first, in order GPU0, GPU1, ...; found '" +
                std::string("GPU") + std::string(96, '7') + "...(30005 characters) at position 0");
}

TEST(NvidiaSmiHostile, WideHeaderIsRefusedBeforeAnyRow) {
  // 30,001 columns used to take 40 s and 7 GB: a quadratic duplicate check and n x n cells.
  std::string header = "\tGPU0";
  for (int i = 1; i <= 30000; ++i) {
    header += " NIC";
  }
  EXPECT_EQ(message_of([&] { parse_nvidia_smi(header + "\n", "t"); }),
            "t:1:1055: header: too many columns (30001); a matrix has at most 256 devices");
  // Within the word limit but past the device limit: at the 257th device word, NIC256, after the
  // tab, GPU0 and 255 words " NICi" (9 of 5 characters, 90 of 6, 156 of 7: 1677) and a space.
  std::string wide = "\tGPU0";
  for (int i = 1; i <= 256; ++i) {
    wide += " NIC" + std::to_string(i);
  }
  EXPECT_EQ(message_of([&] { parse_nvidia_smi(wide + "\n", "t"); }),
            "t:1:1684: header: 257 device columns; a matrix has at most 256 devices");
  // The duplicate check is a hash set: the second NIC2 is found with its column.
  EXPECT_EQ(message_of([] { parse_nvidia_smi("\tGPU0 NIC1 NIC2 NIC2\n", "t"); }),
            "t:1:17: NIC2: device column 'NIC2' repeated");
}

}  // namespace
}  // namespace tidesim
