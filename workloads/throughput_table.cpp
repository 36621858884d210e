#include "tidesim/workloads/throughput_table.hpp"

#include <charconv>
#include <cmath>
#include <utility>

#include "tidesim/sim/input/config_node.hpp"
#include "tidesim/sim/input/text_file.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim::workloads {

namespace {

// The largest scale factor a key may name, and the largest throughput (steps/s) a cell may hold:
// bounds that keep every product in range, far above any measured value.
constexpr int kMaxScaleFactor = 1 << 20;
constexpr double kMaxThroughput = 1e12;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

// A finite number in [0, kMaxThroughput] written as a JSON number.
double throughput_of(const ConfigNode& node, const std::string& file, const std::string& field) {
  const std::string text = scalar_of(node, file, field);
  double v = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) ||
      v < 0.0 || v > kMaxThroughput) {
    throw InputError(location_of(node, file), field,
                     "expected a throughput in steps/s, a number in [0, 1e12], not '" + text + "'");
  }
  return v;
}

ColocatedThroughput pair_of(const ConfigNode& node, const std::string& file,
                            const std::string& field) {
  const auto items = sequence_of(node, file, field);
  if (items.size() != 2) {
    throw InputError(location_of(node, file), field,
                     "expected [this job's steps/s, the other job's steps/s]");
  }
  return {.self = throughput_of(items[0], file, field + "[0]"),
          .other = throughput_of(items[1], file, field + "[1]")};
}

ThroughputEntry entry_of(const ConfigNode& node, const std::string& file,
                         const std::string& field) {
  if (!node.is_map()) {
    throw InputError(location_of(node, file), field,
                     "expected a mapping with \"null\" and co-located entries");
  }
  ThroughputEntry entry;
  bool alone = false;
  for (const auto& [k, v] : node.entries()) {
    const std::string at = field + "[" + k.scalar() + "]";
    if (k.scalar() == "null") {
      entry.isolated = throughput_of(v, file, at);
      alone = true;
      continue;
    }
    const JobTypeKey other = parse_job_type_key(k.scalar(), location_of(k, file), at);
    entry.colocated[other] = pair_of(v, file, at);
  }
  if (!alone) {
    throw InputError(location_of(node, file), field + "[null]",
                     "missing the job's throughput alone (\"null\")");
  }
  return entry;
}

ThroughputTable table_of(const ConfigNode& root, const std::string& name) {
  if (!root.defined()) {
    throw empty_file_error(name);
  }
  if (!root.is_map() || root.size() == 0) {
    throw InputError(location_of(root, name), "",
                     "expected a mapping of GPU types to job throughputs");
  }
  ThroughputTable table;
  table.file = name;
  for (const auto& [type, jobs] : root.entries()) {
    const std::string gpu = type.scalar();
    if (gpu.empty()) {
      throw InputError(location_of(type, name), "", "a GPU type needs a name");
    }
    if (!jobs.is_map()) {
      throw InputError(location_of(jobs, name), gpu, "expected a mapping of job keys");
    }
    for (const auto& [k, v] : jobs.entries()) {
      const std::string at = gpu + "[" + k.scalar() + "]";
      const JobTypeKey key = parse_job_type_key(k.scalar(), location_of(k, name), at);
      table.set(gpu, key, entry_of(v, name, at));
    }
  }
  return table;
}

}  // namespace

JobTypeKey parse_job_type_key(std::string_view text, const SourceLocation& where,
                              const std::string& field) {
  const auto bad = [&](const std::string& why) {
    return InputError(where, field,
                      "expected a job key such as \"('ResNet-50 (batch size 64)', 1)\": " + why);
  };
  std::string_view s = trim(text);
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') {
    throw bad("not in parentheses");
  }
  s = s.substr(1, s.size() - 2);
  const std::size_t comma = s.rfind(',');
  if (comma == std::string_view::npos) {
    throw bad("no ', scale factor'");
  }
  const std::string_view name = trim(s.substr(0, comma));
  const std::string_view number = trim(s.substr(comma + 1));
  if (name.size() < 2 || (name.front() != '\'' && name.front() != '"') ||
      name.back() != name.front()) {
    throw bad("the job type is not quoted");
  }
  JobTypeKey key;
  key.job_type = std::string(name.substr(1, name.size() - 2));
  if (key.job_type.empty()) {
    throw bad("the job type is empty");
  }
  const auto [end, ec] =
      std::from_chars(number.data(), number.data() + number.size(), key.scale_factor);
  if (number.empty() || ec != std::errc() || end != number.data() + number.size() ||
      key.scale_factor < 1 || key.scale_factor > kMaxScaleFactor) {
    throw bad("the scale factor is not an integer in [1, 1048576]");
  }
  return key;
}

std::string format_job_type_key(const JobTypeKey& key) {
  const char quote = key.job_type.find('\'') == std::string::npos ? '\'' : '"';
  return "(" + std::string(1, quote) + key.job_type + std::string(1, quote) + ", " +
         std::to_string(key.scale_factor) + ")";
}

void ThroughputTable::set(const std::string& gpu_type, const JobTypeKey& key,
                          ThroughputEntry entry) {
  cells_[gpu_type][key] = std::move(entry);
}

std::vector<std::string> ThroughputTable::gpu_types() const {
  std::vector<std::string> out;
  for (const auto& [type, jobs] : cells_) {
    out.push_back(type);
  }
  return out;
}

std::vector<JobTypeKey> ThroughputTable::keys(const std::string& gpu_type) const {
  std::vector<JobTypeKey> out;
  const auto it = cells_.find(gpu_type);
  if (it != cells_.end()) {
    for (const auto& [key, entry] : it->second) {
      out.push_back(key);
    }
  }
  return out;
}

const ThroughputEntry* ThroughputTable::find(const std::string& gpu_type,
                                             const JobTypeKey& key) const {
  const auto type = cells_.find(gpu_type);
  if (type == cells_.end()) {
    return nullptr;
  }
  const auto cell = type->second.find(key);
  return cell == type->second.end() ? nullptr : &cell->second;
}

std::optional<double> ThroughputTable::isolated(const std::string& gpu_type,
                                                const JobTypeKey& key) const {
  const ThroughputEntry* e = find(gpu_type, key);
  return e == nullptr ? std::nullopt : std::optional<double>(e->isolated);
}

std::optional<ColocatedThroughput> ThroughputTable::colocated(const std::string& gpu_type,
                                                              const JobTypeKey& key,
                                                              const JobTypeKey& other) const {
  const ThroughputEntry* e = find(gpu_type, key);
  if (e == nullptr) {
    return std::nullopt;
  }
  const auto it = e->colocated.find(other);
  return it == e->colocated.end() ? std::nullopt : std::optional(it->second);
}

std::vector<double> ThroughputTable::isolated_row(const JobTypeKey& key,
                                                  const std::vector<std::string>& gpu_types,
                                                  const SourceLocation& where,
                                                  const std::string& field) const {
  std::vector<double> row;
  bool runs = false;
  for (const std::string& gpu : gpu_types) {
    const auto v = isolated(gpu, key);
    if (!v) {
      throw InputError(where, field,
                       "job type " + format_job_type_key(key) + " has no throughput on GPU type '" +
                           gpu + "' in the throughput table" + (file.empty() ? "" : " " + file));
    }
    runs = runs || *v > 0.0;
    row.push_back(*v);
  }
  if (!runs) {
    throw InputError(where, field,
                     "job type " + format_job_type_key(key) +
                         " has a zero throughput on every GPU type: it can run nowhere");
  }
  return row;
}

ThroughputTable parse_throughput_table(const std::string& text, const std::string& name) {
  return yaml_guard(name, [&] { return table_of(load_yaml_string(text, name), name); });
}

ThroughputTable read_throughput_table(const std::string& path) {
  return parse_throughput_table(read_text_file(path, "throughput table"), path);
}

}  // namespace tidesim::workloads
