#include "tidesim/workloads/gavel_trace.hpp"

#include <charconv>
#include <cmath>
#include <optional>
#include <string_view>

#include "tidesim/sim/input/text_file.hpp"
#include "tidesim/workloads/step_time.hpp"

namespace tidesim::workloads {

namespace {

// Bounds that keep every later product in range: steps as a job's (kMaxJobSteps), scale factors
// as the throughput table's, times below about 3,000 years.
constexpr std::int64_t kMaxScaleFactor = 1 << 20;
constexpr double kMaxSeconds = 1e11;

const std::vector<std::string> kMsr = {"job_type",       "command",     "num_steps_arg",
                                       "needs_data_dir", "total_steps", "arrival_time",
                                       "scale_factor"};
const std::vector<std::string> kPhysical = {
    "job_type",    "command",      "working_directory", "num_steps_arg", "needs_data_dir",
    "total_steps", "scale_factor", "priority_weight",   "SLO",           "arrival_time"};
const std::vector<std::string> kShockwave = {"job_type",      "command",        "working_directory",
                                             "num_steps_arg", "needs_data_dir", "total_steps",
                                             "scale_factor",  "mode",           "priority_weight",
                                             "SLO",           "duration",       "arrival_time"};

// One row split at tabs: each field with its 1-based byte column.
struct Row {
  std::string_view text;
  int line = 0;
  std::vector<std::pair<std::string_view, int>> fields;
};

Row split(std::string_view text, int line) {
  Row row{text, line, {}};
  std::size_t start = 0;
  while (true) {
    const std::size_t tab = text.find('\t', start);
    const std::size_t end = tab == std::string_view::npos ? text.size() : tab;
    row.fields.emplace_back(text.substr(start, end - start), static_cast<int>(start) + 1);
    if (tab == std::string_view::npos) {
      return row;
    }
    start = tab + 1;
  }
}

class RowReader {
 public:
  RowReader(const Row& row, const std::vector<std::string>& names, const std::string& file)
      : row_(row), names_(names), file_(file) {}

  InputError error(std::size_t i, const std::string& message) const {
    return InputError(
        SourceLocation{.file = file_, .line = row_.line, .column = row_.fields[i].second},
        names_[i], message);
  }
  std::string_view text(std::size_t i) const { return row_.fields[i].first; }
  std::size_t index(const std::string& name) const {
    for (std::size_t i = 0; i < names_.size(); ++i) {
      if (names_[i] == name) {
        return i;
      }
    }
    return names_.size();  // not in this layout
  }
  bool has(const std::string& name) const { return index(name) < names_.size(); }

  std::int64_t integer(const std::string& name, std::int64_t lo, std::int64_t hi) const {
    const std::size_t i = index(name);
    const std::string_view s = text(i);
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v < lo || v > hi) {
      throw error(i, "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                         "], not '" + std::string(s) + "'");
    }
    return v;
  }
  double number(const std::string& name, double lo, double hi) const {
    const std::size_t i = index(name);
    const std::string_view s = text(i);
    double v = 0.0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v) ||
        v < lo || v > hi) {
      throw error(i, "expected a number in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                         "], not '" + std::string(s) + "'");
    }
    return v;
  }
  std::string string(const std::string& name) const { return std::string(text(index(name))); }

 private:
  const Row& row_;
  const std::vector<std::string>& names_;
  const std::string& file_;
};

const std::vector<std::string>& layout(GavelTraceFormat f) {
  return f == GavelTraceFormat::msr ? kMsr
                                    : (f == GavelTraceFormat::physical ? kPhysical : kShockwave);
}

GavelTraceFormat detect(const Row& first, const std::string& file) {
  switch (first.fields.size()) {
    case 7:
      return GavelTraceFormat::msr;
    case 10:
      return GavelTraceFormat::physical;
    case 12:
      return GavelTraceFormat::shockwave;
    default:
      throw InputError(SourceLocation{.file = file, .line = first.line, .column = 1}, "",
                       "a Gavel trace row has 7 (MSR), 10 (physical cluster) or 12 (Shockwave) "
                       "tab-separated columns, not " +
                           std::to_string(first.fields.size()));
  }
}

// The job of one row; nullopt for an MSR row of scale factor 0 (skipped).
std::optional<GavelTraceJob> job_of(const Row& row, GavelTraceFormat format,
                                    const std::string& file) {
  const RowReader r(row, layout(format), file);
  GavelTraceJob job;
  job.line = row.line;
  const std::int64_t sf =
      r.integer("scale_factor", format == GavelTraceFormat::msr ? 0 : 1, kMaxScaleFactor);
  if (sf == 0) {
    return std::nullopt;
  }
  job.scale_factor = static_cast<int>(sf);
  job.job_type = r.string("job_type");
  if (job.job_type.empty()) {
    throw r.error(0, "a job needs a job type");
  }
  job.command = r.string("command");
  job.num_steps_arg = r.string("num_steps_arg");
  job.needs_data_dir = r.integer("needs_data_dir", 0, 1) == 1;
  job.total_steps = r.integer("total_steps", 1, kMaxJobSteps);
  job.arrival_time_s = r.number("arrival_time", 0.0, kMaxSeconds);
  if (r.has("working_directory")) {
    job.working_directory = r.string("working_directory");
    job.priority_weight = r.number("priority_weight", 1e-9, 1e9);
    job.slo = r.number("SLO", -kMaxSeconds, kMaxSeconds);
  }
  if (r.has("mode")) {
    job.mode = r.string("mode");
    if (job.mode != "static" && job.mode != "accordion" && job.mode != "gns") {
      throw r.error(r.index("mode"), "expected static, accordion or gns, not '" + job.mode + "'");
    }
    job.duration_s = r.number("duration", 0.0, kMaxSeconds);
  }
  return job;
}

}  // namespace

std::vector<GavelTraceJob> parse_gavel_trace(const std::string& text, const std::string& name,
                                             GavelTraceFormat format) {
  std::vector<GavelTraceJob> jobs;
  std::string_view rest = text;
  int line = 0;
  bool any_row = false;
  while (!rest.empty()) {
    ++line;
    const std::size_t nl = rest.find('\n');
    std::string_view row_text = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    if (!row_text.empty() && row_text.back() == '\r') {
      row_text.remove_suffix(1);
    }
    const Row row = split(row_text, line);
    if (!any_row && format == GavelTraceFormat::automatic) {
      format = detect(row, name);
    }
    any_row = true;
    if (row.fields.size() != layout(format).size()) {
      throw InputError(SourceLocation{.file = name, .line = line, .column = 1}, "",
                       "expected " + std::to_string(layout(format).size()) +
                           " tab-separated columns (as the trace's first row), found " +
                           std::to_string(row.fields.size()));
    }
    if (auto job = job_of(row, format, name)) {
      jobs.push_back(std::move(*job));
    }
  }
  if (jobs.empty()) {
    throw InputError(SourceLocation{.file = name}, "", "the trace has no job");
  }
  return jobs;
}

std::vector<GavelTraceJob> read_gavel_trace(const std::string& path, GavelTraceFormat format) {
  return parse_gavel_trace(read_text_file(path, "Gavel trace"), path, format);
}

void check_gavel_trace(const std::vector<GavelTraceJob>& jobs, const std::string& file,
                       const ThroughputTable& table, const std::vector<std::string>& gpu_types) {
  for (const GavelTraceJob& job : jobs) {
    (void)table.isolated_row(job.key(), gpu_types,
                             SourceLocation{.file = file, .line = job.line, .column = 1},
                             "job_type");
  }
}

}  // namespace tidesim::workloads
