#include "tidesim/workloads/shockwave_batch.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace tidesim::workloads {
namespace {

struct Family {
  const char* name;
  std::int64_t dataset;
  int max_batch;
  int min_batch;
};

// utils.py model_dataset_mapping, dataset_len and get_gns_bs_pattern's bs_limit; the smallest
// batches of scheduler.py _simulate_accordion.
constexpr std::array<Family, 5> kFamilies = {{{"ResNet-18", 50'000, 256, 16},
                                              {"ResNet-50", 100'000, 128, 16},
                                              {"Transformer", 10'000, 128, 16},
                                              {"LM", 59'675, 80, 5},
                                              {"Recommendation", 117'907, 8192, 512}}};

// One combination of get_gns_bs_pattern: applies when the job has more epochs than the first
// range's start; ranges [start_i, start_(i+1)) (the last to the end) at batch x mult_i.
struct Gns {
  const char* family;
  int batch;
  int scale_factor;
  std::array<std::pair<int, int>, 4> ranges;  // (start, multiple); start 0 ends the list
};

constexpr std::array<Gns, 33> kGns = {{
    {"ResNet-18", 16, 1, {{{31, 2}, {41, 4}, {51, 8}, {71, 16}}}},
    {"ResNet-18", 32, 1, {{{21, 2}, {31, 4}, {51, 8}, {0, 0}}}},
    {"ResNet-18", 64, 1, {{{11, 2}, {31, 4}, {0, 0}, {0, 0}}}},
    {"ResNet-18", 128, 1, {{{11, 2}, {0, 0}, {0, 0}, {0, 0}}}},
    {"ResNet-18", 16, 2, {{{21, 2}, {31, 4}, {91, 8}, {111, 16}}}},
    {"ResNet-18", 32, 2, {{{11, 2}, {21, 4}, {41, 8}, {0, 0}}}},
    {"ResNet-18", 64, 2, {{{21, 2}, {41, 4}, {0, 0}, {0, 0}}}},
    {"ResNet-18", 128, 2, {{{41, 2}, {0, 0}, {0, 0}, {0, 0}}}},
    {"ResNet-18", 16, 4, {{{11, 2}, {21, 4}, {81, 8}, {91, 16}}}},
    {"ResNet-18", 32, 4, {{{21, 2}, {31, 4}, {61, 8}, {0, 0}}}},
    {"ResNet-18", 64, 4, {{{11, 2}, {61, 4}, {0, 0}, {0, 0}}}},
    {"ResNet-18", 128, 4, {{{11, 2}, {0, 0}, {0, 0}, {0, 0}}}},
    {"ResNet-50", 64, 1, {{{101, 2}, {0, 0}, {0, 0}, {0, 0}}}},
    {"ResNet-50", 32, 2, {{{101, 2}, {111, 4}, {0, 0}, {0, 0}}}},
    {"ResNet-50", 64, 2, {{{81, 2}, {0, 0}, {0, 0}, {0, 0}}}},
    {"ResNet-50", 32, 4, {{{131, 2}, {221, 4}, {0, 0}, {0, 0}}}},
    {"ResNet-50", 64, 4, {{{191, 2}, {0, 0}, {0, 0}, {0, 0}}}},
    {"LM", 5, 1, {{{31, 2}, {41, 4}, {61, 8}, {71, 16}}}},
    {"LM", 10, 1, {{{11, 2}, {21, 4}, {41, 8}, {0, 0}}}},
    {"LM", 20, 1, {{{11, 2}, {41, 4}, {0, 0}, {0, 0}}}},
    {"LM", 40, 1, {{{11, 2}, {0, 0}, {0, 0}, {0, 0}}}},
    {"LM", 5, 2, {{{31, 2}, {51, 4}, {61, 8}, {71, 16}}}},
    {"LM", 10, 2, {{{11, 2}, {31, 4}, {41, 8}, {0, 0}}}},
    {"LM", 20, 2, {{{31, 2}, {41, 4}, {0, 0}, {0, 0}}}},
    {"LM", 40, 2, {{{11, 2}, {0, 0}, {0, 0}, {0, 0}}}},
    {"LM", 5, 4, {{{11, 2}, {31, 4}, {71, 8}, {91, 16}}}},
    {"LM", 10, 4, {{{11, 2}, {31, 4}, {61, 8}, {0, 0}}}},
    {"LM", 20, 4, {{{11, 2}, {61, 4}, {0, 0}, {0, 0}}}},
    {"LM", 40, 4, {{{61, 2}, {0, 0}, {0, 0}, {0, 0}}}},
    {"Recommendation", 512, 1, {{{21, 2}, {41, 4}, {71, 8}, {91, 16}}}},
    {"Recommendation", 1024, 1, {{{21, 2}, {51, 4}, {91, 8}, {0, 0}}}},
    {"Recommendation", 2048, 1, {{{21, 2}, {41, 4}, {0, 0}, {0, 0}}}},
    {"Recommendation", 4096, 1, {{{41, 2}, {0, 0}, {0, 0}, {0, 0}}}},
}};

std::vector<int> gns_batches(const ShockwaveModel& m, std::int64_t epochs, int scale_factor) {
  std::vector<int> b(static_cast<std::size_t>(std::max<std::int64_t>(epochs, 0)), m.batch);
  for (const Gns& g : kGns) {
    if (m.family != g.family || m.batch != g.batch || scale_factor != g.scale_factor ||
        epochs <= g.ranges[0].first) {
      continue;
    }
    for (std::size_t r = 0; r < g.ranges.size() && g.ranges[r].first > 0; ++r) {
      const std::int64_t end = r + 1 < g.ranges.size() && g.ranges[r + 1].first > 0
                                   ? std::min<std::int64_t>(g.ranges[r + 1].first, epochs)
                                   : epochs;
      for (std::int64_t e = g.ranges[r].first; e < end; ++e) {
        // The first range sets an epoch and then stops at the last; the later ones stop first.
        if (r > 0 && e + 1 >= epochs) {
          break;
        }
        b[static_cast<std::size_t>(e)] = m.batch * g.ranges[r].second;
      }
    }
  }
  for (int& x : b) {
    x = std::min(x, m.max_batch);
  }
  return b;
}

}  // namespace

std::optional<ShockwaveModel> shockwave_model(const std::string& job_type) {
  const std::string marker = " (batch size ";
  const std::size_t at = job_type.find(marker);
  if (at == std::string::npos || job_type.back() != ')') {
    return std::nullopt;
  }
  const std::string family = job_type.substr(0, at);
  const std::string digits =
      job_type.substr(at + marker.size(), job_type.size() - at - marker.size() - 1);
  if (digits.empty() || digits.size() > 6 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  for (const Family& f : kFamilies) {
    if (family == f.name) {
      return ShockwaveModel{family, std::stoi(digits), f.dataset, f.max_batch, f.min_batch};
    }
  }
  return std::nullopt;
}

std::int64_t shockwave_epochs(const ShockwaveModel& m, std::int64_t total_steps) {
  const std::int64_t per_epoch = (m.dataset + m.batch - 1) / m.batch;
  return (total_steps + per_epoch - 1) / per_epoch;
}

bool accordion_critical(const ShockwaveModel& m, std::int64_t e) {
  if (m.family == "ResNet-18") {
    return e < (m.batch == 256 ? 20 : 10) || (e >= 150 && e < 160) || (e >= 250 && e < 260);
  }
  if (m.family == "ResNet-50") {
    return e < 600 && e % 30 < 10;
  }
  if (m.family == "LM") {
    return e < 10;
  }
  if (m.family == "Recommendation") {
    const int regime = m.batch <= 1024 ? 30 : m.batch == 2048 ? 40 : 10;
    return e < regime || (e >= 60 && e < 70) || (e >= 80 && e < 90);
  }
  return true;  // Transformer: never changes
}

bool accordion_critical_at_round(const ShockwaveModel& m, std::int64_t e) {
  if (m.family == "ResNet-18") {
    return e < (m.batch == 256 ? 20 : 10) || (e >= 150 && e < 160) || (e >= 250 && e < 260);
  }
  if (m.family == "ResNet-50") {
    return e % 30 < 10;
  }
  if (m.family == "LM") {
    return e < 10;
  }
  if (m.family == "Recommendation") {
    return e < (m.batch <= 1024 ? 30 : m.batch == 2048 ? 40 : 10);
  }
  return true;  // Transformer: never changes
}

std::optional<int> shockwave_batch_request(const ShockwaveModel& initial, const std::string& mode,
                                           int batch, std::int64_t epoch, int scale_factor) {
  // _scale_bs_and_iters: a job whose initial batch is its family's largest never changes
  // (Transformer is not in its max_bs_dict, but never asks).
  if (initial.family != "Transformer" && initial.batch == initial.max_batch) {
    return std::nullopt;
  }
  if (mode == "gns") {
    const std::vector<int> pattern =
        gns_batches(initial, std::max<std::int64_t>(760, epoch + 2), scale_factor);
    const auto at = [&](std::int64_t e) { return pattern[static_cast<std::size_t>(e)]; };
    if ((at(epoch + 1) > batch || at(epoch) > batch) && batch != initial.max_batch) {
      return 2 * batch;
    }
    return std::nullopt;
  }
  if (mode != "accordion" || initial.family == "Transformer") {
    return std::nullopt;
  }
  const bool critical = accordion_critical_at_round(initial, epoch);
  if (batch == initial.batch && !critical && batch != initial.max_batch) {
    return initial.max_batch;
  }
  if (batch != initial.batch && critical && batch != initial.min_batch) {
    return initial.batch;
  }
  return std::nullopt;
}

std::vector<int> shockwave_batches(const ShockwaveModel& m, const std::string& mode,
                                   std::int64_t epochs, int scale_factor, bool planning) {
  if (mode == "gns") {
    return gns_batches(m, epochs, scale_factor);
  }
  std::vector<int> b(static_cast<std::size_t>(std::max<std::int64_t>(epochs, 0)), m.batch);
  if (mode == "static") {
    return b;
  }
  if (mode != "accordion") {
    throw std::invalid_argument("unknown batch-size mode '" + mode + "'");
  }
  for (std::int64_t e = 0; e < epochs; ++e) {
    const bool early = planning && static_cast<double>(e) <= static_cast<double>(epochs) * 0.3;
    if (!accordion_critical(m, e) && !early) {
      b[static_cast<std::size_t>(e)] = std::max(m.batch, m.max_batch);
    }
  }
  return b;
}

}  // namespace tidesim::workloads
