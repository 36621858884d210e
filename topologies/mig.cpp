#include "tidesim/topologies/mig.hpp"

#include <array>
#include <map>

namespace tidesim {

namespace {

// NVIDIA MIG user guide, "Supported MIG Profiles": A100-SXM4-40GB table (the +me media-extension
// variants are left out: tidesim models no decoders). Memory fractions 1/8, 2/8, 2/8, 4/8, 4/8,
// full; SM fractions 1/7, 1/7, 2/7, 3/7, 4/7, 7/7; instances 7, 4, 3, 2, 1, 1.
constexpr std::array<MigProfile, 6> kA100_40{{
    {"1g.5gb", 1, 1, 7},
    {"1g.10gb", 1, 2, 4},
    {"2g.10gb", 2, 2, 3},
    {"3g.20gb", 3, 4, 2},
    {"4g.20gb", 4, 4, 1},
    {"7g.40gb", 7, 8, 1},
}};
// `table` with its profiles renamed, in order, to `names`.
constexpr std::array<MigProfile, 6> with_names(std::array<MigProfile, 6> table,
                                               const std::array<std::string_view, 6>& names) {
  for (std::size_t i = 0; i < table.size(); ++i) {
    table[i].name = names[i];
  }
  return table;
}
// The same guide: on A100-SXM4-80GB the names follow the memory (1g.10gb, 1g.20gb, 2g.20gb,
// 3g.40gb, 4g.40gb, 7g.80gb) with the 40 GB table's fractions and counts.
constexpr std::array<MigProfile, 6> kA100_80 =
    with_names(kA100_40, {"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"});
// The same guide, H100-80GB table: 1g.10gb (7), 1g.20gb (4), 2g.20gb (3), 3g.40gb (2), 4g.40gb
// (1), 7g.80gb (1), with the A100's memory and SM fractions.
constexpr std::array<MigProfile, 6> kH100_80 = kA100_80;

}  // namespace

std::span<const MigProfile> mig_profiles(const GpuModel& model) {
  // A100-PCIe is the catalogue's 40 GB PCIe card: the guide lists A100-PCIE 40GB as MIG-capable.
  if (model.name == "A100-SXM4-40" || model.name == "A100-PCIe") {
    return kA100_40;
  }
  if (model.name == "A100-SXM4-80") {
    return kA100_80;
  }
  if (model.name == "H100-SXM") {
    return kH100_80;
  }
  return {};
}

const MigProfile* mig_profile(const GpuModel& model, std::string_view name) {
  for (const MigProfile& p : mig_profiles(model)) {
    if (p.name == name) {
      return &p;
    }
  }
  return nullptr;
}

double mig_compute_fraction(const MigProfile& profile) {
  return static_cast<double>(profile.compute_slices) / kMigComputeSlices;
}

std::int64_t mig_slice_memory(const MigProfile& profile, std::int64_t card_memory) {
  return card_memory / kMigMemorySlices * profile.memory_slices;
}

std::optional<std::string> mig_layout_error(const GpuModel& model,
                                            const std::vector<std::string>& profiles) {
  const auto known = mig_profiles(model);
  if (known.empty()) {
    return "GPU model '" + std::string(model.name) +
           "' has no MIG (MIG profiles are known for A100-SXM4-40, A100-PCIe, A100-SXM4-80 and "
           "H100-SXM)";
  }
  if (profiles.empty()) {
    return std::string("a MIG layout needs at least one profile");
  }
  std::map<std::string, int> count;
  int compute = 0;
  int memory = 0;
  for (const std::string& name : profiles) {
    const MigProfile* p = mig_profile(model, name);
    if (p == nullptr) {
      std::string names;
      for (const MigProfile& k : known) {
        names += names.empty() ? "" : ", ";
        names += k.name;
      }
      return "GPU model '" + std::string(model.name) + "' has no MIG profile '" + name +
             "'; known: " + names;
    }
    if (++count[name] > p->max_instances) {
      return "a card holds at most " + std::to_string(p->max_instances) + " x " + name;
    }
    compute += p->compute_slices;
    memory += p->memory_slices;
  }
  if (compute > kMigComputeSlices) {
    return "the layout takes " + std::to_string(compute) + " compute slices; a card has " +
           std::to_string(kMigComputeSlices);
  }
  if (memory > kMigMemorySlices) {
    return "the layout takes " + std::to_string(memory) + " memory slices; a card has " +
           std::to_string(kMigMemorySlices);
  }
  return std::nullopt;
}

std::optional<std::string> mig_request(const Resources& requests) {
  for (const auto& [name, amount] : requests.extended) {
    if (amount > 0 && name.starts_with(kMigResourcePrefix)) {
      return name.substr(kMigResourcePrefix.size());
    }
  }
  return std::nullopt;
}

}  // namespace tidesim
