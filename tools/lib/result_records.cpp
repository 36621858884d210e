#include "tidesim/tools/lib/result_records.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "tidesim/sim/input/error.hpp"

namespace tidesim::app {

const std::vector<std::string>& record_names() {
  static const std::vector<std::string> kNames{"jobs", "events", "attempts"};
  return kNames;
}

std::vector<std::string> records_omitted_by(const std::string& text, const std::string& flag) {
  const auto& names = record_names();
  if (text == "all") {
    return {};
  }
  if (text == "none") {
    return names;
  }
  std::vector<std::string> kept;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string name = text.substr(start, comma - start);
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      throw InputError(SourceLocation{}, flag,
                       fmt::format("'{}' is not a record; give all, none or the records to keep, "
                                   "from jobs, events, attempts, joined by commas (e.g. jobs)",
                                   name));
    }
    kept.push_back(name);
    start = comma + 1;
  }
  std::vector<std::string> omitted;
  for (const auto& n : names) {
    if (std::find(kept.begin(), kept.end(), n) == kept.end()) {
      omitted.push_back(n);
    }
  }
  return omitted;
}

std::string records_flag(const std::vector<std::string>& omitted) {
  if (omitted.empty()) {
    return "all";
  }
  std::string kept;
  for (const auto& n : record_names()) {
    if (std::find(omitted.begin(), omitted.end(), n) == omitted.end()) {
      kept += (kept.empty() ? "" : ",") + n;
    }
  }
  return kept.empty() ? "none" : kept;
}

void omit_records(RunResult& result, const std::vector<std::string>& omitted) {
  const auto has = [&](const char* name) {
    return std::find(omitted.begin(), omitted.end(), name) != omitted.end();
  };
  for (auto& run : result.runs) {
    if (has("jobs")) {
      run.jobs = {};
    }
    if (has("events")) {
      run.events = {};
    }
    if (has("attempts")) {
      run.attempts = {};
    }
  }
  result.metadata.records_omitted.clear();
  for (const auto& n : record_names()) {
    if (has(n.c_str())) {
      result.metadata.records_omitted.push_back(n);
    }
  }
}

void require_records(const RunResult& result, std::string_view record, std::string_view use,
                     const std::string& source) {
  const auto& omitted = result.metadata.records_omitted;
  if (std::find(omitted.begin(), omitted.end(), record) == omitted.end()) {
    return;
  }
  const std::string what = record == "jobs"     ? "the per-job records are"
                           : record == "events" ? "the events are"
                                                : "the attempt log is";
  throw InputError(SourceLocation{source, 0, 0}, "",
                   fmt::format("written with `tidesim run --records {}`: {} not in it, and "
                               "{} needs them; rerun without --records (or with a --records "
                               "list that keeps {})",
                               records_flag(omitted), what, use, record));
}

}  // namespace tidesim::app
