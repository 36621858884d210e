#include "tidesim/workloads/csv.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tidesim/sim/input/csv.hpp"
#include "tidesim/sim/input/text_file.hpp"

namespace tidesim::workloads {

CsvTable::CsvTable(const std::string& path, const std::vector<std::string>& required,
                   const std::vector<std::string>& optional) {
  file_ = path;
  parse(read_text_file(path), required, optional);
}

CsvTable CsvTable::from_text(const std::string& text, const std::string& name,
                             const std::vector<std::string>& required,
                             const std::vector<std::string>& optional) {
  CsvTable t;
  t.file_ = name;
  t.parse(text, required, optional);
  return t;
}

CsvTable CsvTable::with_columns(const std::string& text, const std::string& name,
                                const std::vector<std::string>& columns) {
  CsvTable t;
  t.file_ = name;
  t.parse(text, columns, {}, &columns);
  return t;
}

void CsvTable::set_header(const std::vector<std::string>& required,
                          const std::vector<std::string>& optional) {
  for (std::size_t i = 0; i < header_.size(); ++i) {
    const auto& name = header_[i];
    const bool known = std::find(required.begin(), required.end(), name) != required.end() ||
                       std::find(optional.begin(), optional.end(), name) != optional.end();
    if (!known || index_.contains(name)) {
      std::string allowed;
      for (const auto& r : required) {
        allowed += (allowed.empty() ? "" : ", ") + r;
      }
      for (const auto& o : optional) {
        allowed += (allowed.empty() ? "" : ", ") + o;
      }
      throw InputError(SourceLocation{file_, header_places_[i].line, header_places_[i].column},
                       name,
                       known ? "duplicate column" : "unknown column; allowed columns: " + allowed);
    }
    index_[name] = i;
  }
  for (const auto& r : required) {
    if (!index_.contains(r)) {
      throw InputError(SourceLocation{file_, 1, 1}, r, "missing required column");
    }
  }
}

void CsvTable::parse(const std::string& text, const std::vector<std::string>& required,
                     const std::vector<std::string>& optional,
                     const std::vector<std::string>* given) {
  CsvReader reader(text, file_);
  std::vector<std::string> fields;
  bool have_header = false;
  if (given != nullptr) {
    header_ = *given;
    header_places_.assign(header_.size(), CellPlace{1, 1});
    set_header(required, optional);
  }
  while (reader.next(fields)) {
    const int line_no = reader.line();
    if (reader.blank()) {
      if (reader.done()) {
        break;  // trailing newline
      }
      throw InputError(SourceLocation{file_, line_no, 1}, "", "empty line");
    }
    if (given != nullptr && !have_header && rows_.empty() && fields == *given) {
      have_header = true;  // the header row of a table whose columns are given
      continue;
    }
    if (given == nullptr && !have_header) {
      header_ = fields;
      header_places_ = reader.places();
      set_header(required, optional);
      have_header = true;
      continue;
    }
    if (fields.size() != header_.size()) {
      // At the first extra field, or where the first missing one would begin.
      const CellPlace at =
          fields.size() > header_.size() ? reader.places()[header_.size()] : reader.end();
      throw InputError(SourceLocation{file_, at.line, at.column}, "",
                       "expected " + std::to_string(header_.size()) + " fields, found " +
                           std::to_string(fields.size()));
    }
    rows_.push_back(std::move(fields));
    lines_.push_back(line_no);
    places_.push_back(reader.places());
  }
  if (!have_header && given == nullptr) {
    throw InputError(SourceLocation{file_, 0, 0}, "", "empty file: a header row is required");
  }
}

const std::string& CsvTable::text(std::size_t row, const std::string& column) const {
  const auto it = index_.find(column);
  return it == index_.end() ? empty_ : rows_[row][it->second];
}

SourceLocation CsvTable::where(std::size_t row, const std::string& column) const {
  const auto it = index_.find(column);
  const CellPlace at = places_[row][it == index_.end() ? 0 : it->second];
  return SourceLocation{file_, at.line, at.column};
}

SourceLocation CsvTable::header_where(const std::string& column) const {
  const auto it = index_.find(column);
  const CellPlace at = it == index_.end() ? CellPlace{1, 1} : header_places_[it->second];
  return SourceLocation{file_, at.line, at.column};
}

InputError CsvTable::error(std::size_t row, const std::string& column,
                           const std::string& message) const {
  return InputError(where(row, column), column, message);
}

std::int64_t CsvTable::integer(std::size_t row, const std::string& column, std::int64_t lo,
                               std::int64_t hi) const {
  const std::string& s = text(row, column);
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) {
    throw error(row, column, "'" + s + "' is not an integer");
  }
  if (v < lo || v > hi) {
    throw error(row, column,
                std::to_string(v) + " is out of range [" + std::to_string(lo) + ", " +
                    std::to_string(hi) + "]");
  }
  return v;
}

double CsvTable::number(std::size_t row, const std::string& column, double lo, double hi) const {
  const std::string& s = text(row, column);
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v)) {
    throw error(row, column, "'" + s + "' is not a number");
  }
  if (v < lo || v > hi) {
    std::ostringstream msg;
    msg << s << " is out of range [" << lo << ", " << hi << "]";
    throw error(row, column, msg.str());
  }
  return v;
}

}  // namespace tidesim::workloads
