#include "tidesim/sim/input/csv.hpp"

#include <utility>

#include "tidesim/sim/input/error.hpp"

namespace tidesim {

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    return std::string(text);
  }
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') {
      out += '"';
    }
    out += c;
  }
  return out + "\"";
}

std::string csv_record(const std::vector<std::string>& fields) {
  if (fields.size() == 1 && fields[0].empty()) {
    return "\"\"";
  }
  std::string out;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) {
      out += ',';
    }
    out += csv_field(fields[i]);
  }
  return out;
}

CsvReader::CsvReader(std::string_view text, std::string file)
    : text_(text), file_(std::move(file)) {}

bool CsvReader::next(std::vector<std::string>& fields) {
  fields.clear();
  places_.clear();
  if (done()) {
    return false;
  }
  line_ = next_line_;
  std::string field;
  bool quoted = false;
  bool any_quote = false;
  CellPlace quote_at;  // the opening quote of the quoted part
  places_.push_back(CellPlace{next_line_, next_column_});
  // Moves past text_[pos_]: a line break starts the next line; any other byte but a UTF-8
  // continuation byte is a column.
  const auto advance = [this](char c) {
    if (c == '\n') {
      ++next_line_;
      next_column_ = 1;
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++next_column_;
    }
  };
  for (; pos_ < text_.size(); advance(text_[pos_]), ++pos_) {
    const char c = text_[pos_];
    if (quoted) {
      if (c == '"') {
        if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '"') {
          field += '"';
          advance(c);
          ++pos_;
        } else {
          quoted = false;
        }
        continue;
      }
      field += c;
      continue;
    }
    if (c == '\n') {
      break;
    }
    if (c == '"') {
      quoted = true;
      any_quote = true;
      quote_at = CellPlace{next_line_, next_column_};
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
      places_.push_back(CellPlace{next_line_, next_column_ + 1});
    } else if (c == '\r' && (pos_ + 1 == text_.size() || text_[pos_ + 1] == '\n')) {
      // the CR of a CRLF, or a last line's
    } else {
      field += c;
    }
  }
  if (quoted) {
    throw InputError(SourceLocation{file_, quote_at.line, quote_at.column}, "",
                     "unterminated quoted field");
  }
  fields.push_back(std::move(field));
  blank_ = !any_quote && fields.size() == 1 && fields[0].empty();
  end_ = CellPlace{next_line_, next_column_};
  if (pos_ > 0 && pos_ <= text_.size() && text_[pos_ - 1] == '\r' && end_.column > 1) {
    --end_.column;  // before the CR of a CRLF
  }
  if (pos_ < text_.size()) {
    advance(text_[pos_]);  // the line break
    ++pos_;
  }
  return true;
}

}  // namespace tidesim
