#pragma once
/// A small strict CSV reader for traces: a header row names the columns; every row must have as
/// many fields; errors name the file, the line and column where the offending cell begins
/// (columns count characters) and the column's name. Records are read by the
/// one CSV rule (sim/input/csv.hpp): a quoted field may hold commas, quotes and line breaks.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tidesim/sim/input/csv.hpp"
#include "tidesim/sim/input/error.hpp"

namespace tidesim::workloads {

/// Reads a whole CSV file: the header row, then data rows (blank lines are errors, except a
/// trailing newline). Columns are looked up by name.
class CsvTable {
 public:
  /// Reads `path`. `required` columns must all be present; every column must be in `required`
  /// or `optional`. InputError (file, line 1, column) otherwise.
  CsvTable(const std::string& path, const std::vector<std::string>& required,
           const std::vector<std::string>& optional);
  /// Parses CSV text; `name` is used as the file name in errors.
  static CsvTable from_text(const std::string& text, const std::string& name,
                            const std::vector<std::string>& required,
                            const std::vector<std::string>& optional);

  /// Parses CSV text whose columns are `columns`, in that order: a first row equal to `columns`
  /// is a header row; otherwise every row is data (the tables of Alibaba's
  /// cluster-trace-gpu-v2020 ship their header in a separate `.header` file).
  static CsvTable with_columns(const std::string& text, const std::string& name,
                               const std::vector<std::string>& columns);

  /// Number of data rows.
  std::size_t rows() const { return rows_.size(); }
  /// True when the header has `column`.
  bool has(const std::string& column) const { return index_.contains(column); }
  /// The 1-based file line data row `row` begins on.
  int line(std::size_t row) const { return lines_[row]; }
  /// The raw text of `column` in `row` ("" when the column is absent).
  const std::string& text(std::size_t row, const std::string& column) const;
  /// An integer in [lo, hi]; InputError naming the line and column otherwise.
  std::int64_t integer(std::size_t row, const std::string& column, std::int64_t lo,
                       std::int64_t hi) const;
  /// A finite number in [lo, hi].
  double number(std::size_t row, const std::string& column, double lo, double hi) const;
  /// Where the cell of `column` in data row `row` begins (file, line, column); the row's first
  /// cell when the header has no such column.
  SourceLocation where(std::size_t row, const std::string& column) const;
  /// Where the cells of data row `row` begin, one per column in header order.
  const std::vector<CellPlace>& places(std::size_t row) const { return places_[row]; }
  /// Where the header cell of `column` begins (line 1, column 1 when there is none).
  SourceLocation header_where(const std::string& column) const;
  /// An InputError at the cell of `column` in `row` (where), naming the column.
  InputError error(std::size_t row, const std::string& column, const std::string& message) const;
  /// The file name.
  const std::string& file() const { return file_; }
  /// Column names in header order.
  const std::vector<std::string>& header() const { return header_; }

 private:
  CsvTable() = default;
  void parse(const std::string& text, const std::vector<std::string>& required,
             const std::vector<std::string>& optional,
             const std::vector<std::string>* given = nullptr);
  void set_header(const std::vector<std::string>& required,
                  const std::vector<std::string>& optional);
  std::string file_;
  std::vector<std::string> header_;
  std::map<std::string, std::size_t> index_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<int> lines_;
  std::vector<std::vector<CellPlace>> places_;  // per data row, per column
  std::vector<CellPlace> header_places_;
  std::string empty_;
};

}  // namespace tidesim::workloads
