#include "tidesim/workloads/trace_record.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "tidesim/workloads/csv.hpp"

namespace tidesim::workloads {
namespace {

struct FormatName {
  TraceFormat format;
  const char* name;
};

constexpr std::array<FormatName, 8> kFormats{{{TraceFormat::kAuto, "auto"},
                                              {TraceFormat::kNative, "native"},
                                              {TraceFormat::kOpenb, "openb"},
                                              {TraceFormat::kPhilly, "philly"},
                                              {TraceFormat::kAcme, "acme"},
                                              {TraceFormat::kHelios, "helios"},
                                              {TraceFormat::kPai2020, "pai2020"},
                                              {TraceFormat::kGfs, "gfs"}}};

}  // namespace

SourceLocation Trace::where(const TraceRecord& record, const std::string& column) const {
  const auto it = std::find(columns.begin(), columns.end(), column);
  const auto i = static_cast<std::size_t>(it - columns.begin());
  const CellPlace at = it != columns.end() && i < record.cells.size() ? record.cells[i]
                       : record.cells.empty()                         ? CellPlace{record.line, 0}
                                                                      : record.cells.front();
  return SourceLocation{file, at.line, at.column};
}

std::string Trace::column_of(const std::string& field) const {
  if (field == "submit") {
    switch (format) {
      case TraceFormat::kOpenb:
        return "creation_time";
      case TraceFormat::kPhilly:
        return "timestamp";
      case TraceFormat::kAcme:
      case TraceFormat::kHelios:
      case TraceFormat::kGfs:
        return "submit_time";
      case TraceFormat::kPai2020:
        return "start_time";
      default:
        return "submit_s";
    }
  }
  if (field == "duration") {
    switch (format) {
      case TraceFormat::kOpenb:
        return "deletion_time";
      case TraceFormat::kPhilly:
      case TraceFormat::kGfs:
        return "duration";
      case TraceFormat::kAcme:
      case TraceFormat::kHelios:
      case TraceFormat::kPai2020:
        return "end_time";
      default:
        return "duration_s";
    }
  }
  return field;
}

TraceFormat parse_trace_format(const std::string& text, const std::string& field) {
  std::string names;
  for (const auto& f : kFormats) {
    if (text == f.name) {
      return f.format;
    }
    names += std::string(names.empty() ? "" : ", ") + f.name;
  }
  throw InputError(SourceLocation{}, field, "'" + text + "' is not one of: " + names);
}

const char* to_string(TraceFormat format) {
  for (const auto& f : kFormats) {
    if (f.format == format) {
      return f.name;
    }
  }
  return "unknown";
}

Trace empty_trace(const CsvTable& t, TraceFormat format) {
  Trace trace;
  trace.file = t.file();
  trace.format = format;
  trace.columns = t.header();
  trace.records.reserve(t.rows());
  return trace;
}

}  // namespace tidesim::workloads
