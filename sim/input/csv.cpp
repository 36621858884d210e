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
  if (done()) {
    return false;
  }
  line_ = next_line_;
  std::string field;
  bool quoted = false;
  bool any_quote = false;
  std::size_t quote_at = 0;  // the opening quote of the quoted part
  int quote_line = 0;
  for (; pos_ < text_.size(); ++pos_) {
    const char c = text_[pos_];
    if (quoted) {
      if (c == '"') {
        if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '"') {
          field += '"';
          ++pos_;
        } else {
          quoted = false;
        }
        continue;
      }
      if (c == '\n') {
        ++next_line_;
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
      quote_at = pos_;
      quote_line = next_line_;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
    } else if (c == '\r' && (pos_ + 1 == text_.size() || text_[pos_ + 1] == '\n')) {
      // the CR of a CRLF, or a last line's
    } else {
      field += c;
    }
  }
  if (quoted) {
    // Columns count characters: every byte but UTF-8 continuation bytes.
    std::size_t begin = quote_at;
    while (begin > 0 && text_[begin - 1] != '\n') {
      --begin;
    }
    int column = 1;
    for (std::size_t i = begin; i < quote_at; ++i) {
      column += (static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80 ? 1 : 0;
    }
    throw InputError(SourceLocation{file_, quote_line, column}, "", "unterminated quoted field");
  }
  fields.push_back(std::move(field));
  blank_ = !any_quote && fields.size() == 1 && fields[0].empty();
  if (pos_ < text_.size()) {
    ++pos_;  // the line break
    ++next_line_;
  }
  return true;
}

}  // namespace tidesim
