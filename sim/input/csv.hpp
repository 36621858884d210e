#pragma once
/// CSV (RFC 4180), the one rule every CSV writer and reader of tidesim follows: fields separated
/// by commas, records by line breaks (LF or CRLF); a field that holds a comma, a double quote, a
/// CR or an LF is written in double quotes, with each double quote doubled, and may then span
/// lines. What csv_field and csv_record write, CsvReader reads back exactly.
#include <string>
#include <string_view>
#include <vector>

namespace tidesim {

/// Where a CSV field begins: its 1-based line and column (columns count characters, as an
/// editor does: every byte but UTF-8 continuation bytes). A field that follows a quoted field
/// spanning lines begins on a later line than its record.
struct CellPlace {
  int line = 0;
  int column = 0;
  bool operator==(const CellPlace&) const = default;
};

/// One CSV field: `text` itself when it holds no comma, double quote, CR or LF; otherwise `text`
/// in double quotes with each double quote doubled.
std::string csv_field(std::string_view text);

/// One CSV record without its line break: the fields through csv_field, joined by commas. A
/// record of one empty field is written `""` (an empty line reads as a blank line).
std::string csv_record(const std::vector<std::string>& fields);

/// Reads the records of a CSV text one at a time. Outside quotes a CR just before a line break
/// or at the end of the text is dropped (CRLF ends a record as LF does); inside quotes CR and LF
/// are part of the field. A double quote opens a quoted part anywhere in a field; inside it, ""
/// is a double quote and a lone " closes it. The line break after the last record is optional.
class CsvReader {
 public:
  /// Reads `text`; `file` names it in errors. The text must outlive the reader.
  CsvReader(std::string_view text, std::string file);

  /// The next record's fields into `fields` (an empty line gives one empty field and blank()
  /// true); false at the end of the text. Throws InputError "FILE:LINE:COLUMN: unterminated
  /// quoted field" at the opening quote of a quoted part the text does not close (the column
  /// counts characters).
  bool next(std::vector<std::string>& fields);

  /// The 1-based line the record last read begins on.
  int line() const { return line_; }
  /// Where each field of the record last read begins (one per field; an empty field begins
  /// where its comma or line ends).
  const std::vector<CellPlace>& places() const { return places_; }
  /// The place just past the record's last character (before its line break): where a field
  /// the record lacks would begin.
  CellPlace end() const { return end_; }
  /// True when the record last read is an empty line (not `""`).
  bool blank() const { return blank_; }
  /// True when no record follows the one last read.
  bool done() const { return pos_ >= text_.size(); }

 private:
  std::string_view text_;
  std::string file_;
  std::size_t pos_ = 0;
  int next_line_ = 1;
  int next_column_ = 1;  // the column of text_[pos_]
  int line_ = 0;
  bool blank_ = false;
  std::vector<CellPlace> places_;
  CellPlace end_;
};

}  // namespace tidesim
