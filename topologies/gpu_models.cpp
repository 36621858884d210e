#include "tidesim/topologies/gpu_models.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <deque>
#include <stdexcept>
#include <string>
#include <vector>

#include "tidesim/sim/input/csv.hpp"
#include "tidesim/sim/input/error.hpp"

namespace tidesim {

namespace {

constexpr std::int64_t kMiB = 1024LL * 1024;
constexpr std::int64_t kGiB = 1024 * kMiB;
constexpr double kGBps = 1e9;

// The catalogue's columns, in gpu_models.csv's order. A row is one model; a cell left empty takes
// the value of the row `like` names (an earlier row: openb's V100s are the SXM2 cards without
// NVLink, its undisclosed G1-G3 one assumed record), or, in a row without `like`, zero (false):
// "not published / not modelled", as GpuModel says. So each figure is written once.
//
// Sources, abbreviated in the `source` column:
//  CAL   the calibration sources: Baseten's "A10 vs A10G" comparison and AWS's g5 instance page
//        (A10/A10G), NVIDIA's NVLink generation tables (links and GB/s per GPU, NVLink2-4).
//  DS    the vendor datasheet of that GPU (NVIDIA A10/T4/V100/A100/H100/H200 datasheets); these
//        figures were not re-checked against the CAL sources.
//  SMI   visible memory: the total nvidia-smi (NVML) reports, listed per GPU in
//        modal-labs/modal-client pull request 2797 (A10 23,028 MiB, T4 15,360 MiB, A100 40GB
//        40,960 MiB, A100 80GB 81,920 MiB, H100 81,559 MiB); the A10's NVML total
//        24,146,608,128 bytes (= 23,028 MiB) is also in mayooot/detect-gpu issue 3. A10G and
//        A100-PCIe take the A10's and A100 40GB's figure (assumption: same memory part). A model
//        without a figure leaves visible_memory_mib empty: its nominal size is used (assumption).
enum Column {
  kName,
  kLike,
  kMemoryGib,
  kVisibleMemoryMib,
  kFp32Tflops,
  kFp16TensorTflops,
  kMemoryBandwidthGbps,
  kNvlinkGeneration,
  kNvlinkLinks,
  kPcieGeneration,
  kUndisclosed,
  kSource,
  kColumns
};
constexpr std::array<std::string_view, kColumns> kHeader{"name",
                                                         "like",
                                                         "memory_gib",
                                                         "visible_memory_mib",
                                                         "fp32_tflops",
                                                         "fp16_tensor_tflops",
                                                         "memory_bandwidth_gbps",
                                                         "nvlink_generation",
                                                         "nvlink_links",
                                                         "pcie_generation",
                                                         "undisclosed",
                                                         "source"};
constexpr std::string_view kCatalogueFile = "topologies/gpu_models.csv";

// One row of the catalogue, read cell by cell into a record.
class Row {
 public:
  Row(const std::vector<std::string>& cells, const std::vector<CellPlace>& places)
      : cells_(cells), places_(places) {}

  const std::string& cell(Column c) const { return cells_[static_cast<std::size_t>(c)]; }

  // An error at the cell of column `c` (where it begins).
  [[noreturn]] void fail(Column c, const std::string& message) const {
    const CellPlace at = places_[std::min(static_cast<std::size_t>(c), places_.size() - 1)];
    throw InputError(SourceLocation{std::string(kCatalogueFile), at.line, at.column},
                     std::string(kHeader[static_cast<std::size_t>(c)]), message);
  }

  // Unless the cell is empty, `out` becomes its number times `scale`.
  template <class T>
  void number(Column c, T& out, T scale = 1) const {
    const std::string& text = cell(c);
    if (text.empty()) {
      return;
    }
    T value{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size()) {
      fail(c, "'" + text + "' is not a number");
    }
    out = value * scale;
  }

  // Unless the cell is empty, `out` becomes true or false as it says.
  void boolean(Column c, bool& out) const {
    const std::string& text = cell(c);
    if (!text.empty() && text != "true" && text != "false") {
      fail(c, "'" + text + "' is neither true nor false");
    }
    if (!text.empty()) {
      out = text == "true";
    }
  }

 private:
  const std::vector<std::string>& cells_;
  const std::vector<CellPlace>& places_;
};

// The catalogue, read once from the compiled-in gpu_models.csv. The records' names and sources
// view `strings`, which never moves them.
struct Catalogue {
  std::deque<std::string> strings;
  std::vector<GpuModel> models;
};

Catalogue read_catalogue(std::string_view csv) {
  Catalogue catalogue;
  CsvReader reader(csv, std::string(kCatalogueFile));
  std::vector<std::string> cells;
  if (!reader.next(cells) ||
      !std::equal(cells.begin(), cells.end(), kHeader.begin(), kHeader.end())) {
    throw InputError(SourceLocation{std::string(kCatalogueFile), 1, 1}, "",
                     "the header must be the catalogue's columns");
  }
  while (reader.next(cells)) {
    if (reader.blank() && reader.done()) {
      break;  // the line break after the last row
    }
    const Row row(cells, reader.places());
    if (cells.size() != static_cast<std::size_t>(kColumns)) {
      row.fail(kName, "expected " + std::to_string(kColumns) + " fields, found " +
                          std::to_string(cells.size()));
    }
    GpuModel m;
    if (!row.cell(kLike).empty()) {
      const auto like = std::find_if(catalogue.models.begin(), catalogue.models.end(),
                                     [&](const GpuModel& g) { return g.name == row.cell(kLike); });
      if (like == catalogue.models.end()) {
        row.fail(kLike, "no earlier model '" + row.cell(kLike) + "'");
      }
      m = *like;
    }
    m.name = catalogue.strings.emplace_back(row.cell(kName));
    row.number(kMemoryGib, m.memory_bytes, kGiB);
    row.number(kVisibleMemoryMib, m.visible_memory_bytes, kMiB);
    row.number(kFp32Tflops, m.fp32_tflops);
    row.number(kFp16TensorTflops, m.fp16_tensor_tflops);
    row.number(kMemoryBandwidthGbps, m.memory_bandwidth, kGBps);
    row.number(kNvlinkGeneration, m.nvlink_generation);
    row.number(kNvlinkLinks, m.nvlink_links);
    row.number(kPcieGeneration, m.pcie_generation);
    row.boolean(kUndisclosed, m.undisclosed);
    if (!row.cell(kSource).empty()) {
      m.source = catalogue.strings.emplace_back(row.cell(kSource));
    }
    if (m.name.empty() || std::any_of(catalogue.models.begin(), catalogue.models.end(),
                                      [&](const GpuModel& g) { return g.name == m.name; })) {
      row.fail(kName, "empty or repeated name");
    }
    if (m.source.empty()) {
      row.fail(kSource, "no source");
    }
    catalogue.models.push_back(m);
  }
  return catalogue;
}

const std::vector<GpuModel>& all_models() {
  static const Catalogue catalogue = read_catalogue(gpu_models_csv());
  return catalogue.models;
}

}  // namespace

std::int64_t visible_memory(const GpuModel& model) {
  return model.visible_memory_bytes > 0 ? model.visible_memory_bytes : model.memory_bytes;
}

std::span<const GpuModel> gpu_models() {
  return all_models();
}

const GpuModel& gpu_model(std::string_view name) {
  for (const GpuModel& m : all_models()) {
    if (m.name == name) {
      return m;
    }
  }
  std::string known;
  for (const GpuModel& m : all_models()) {
    known += known.empty() ? "" : ", ";
    known += m.name;
  }
  throw InputError(SourceLocation{}, "gpu_model",
                   "unknown GPU model '" + std::string(name) + "'; known: " + known);
}

double nvlink_link_bandwidth(int generation) {
  switch (generation) {
    case 1:
      return 20 * kGBps;  // P100 whitepaper: 40 GB/s bidirectional per link (not in CAL)
    case 2:
    case 3:
    case 4:
      return 25 * kGBps;  // CAL: one NVLink2/3/4 link is 50 GB/s bidirectional
    default:
      throw std::invalid_argument("no NVLink generation " + std::to_string(generation));
  }
}

double pcie_bandwidth(int generation) {
  switch (generation) {
    case 3:
      return 12.4 * kGBps;  // CAL: measured pinned host-to-device copy, Gen3
    case 4:
      return 25 * kGBps;  // CAL: measured pinned host-to-device copy, Gen4
    case 5:
      return 63.0 * (25.0 / 31.5) * kGBps;  // derived: Gen4's measured/theoretical ratio x 63 GB/s
    default:
      throw std::invalid_argument("no PCIe generation " + std::to_string(generation));
  }
}

}  // namespace tidesim
