#include "tidesim/sim/input/csv.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/common/errors.hpp"

namespace tidesim {
namespace {

using test::message_of;
using Records = std::vector<std::vector<std::string>>;

Records read_all(std::string_view text) {
  CsvReader reader(text, "t.csv");
  Records out;
  std::vector<std::string> fields;
  while (reader.next(fields)) {
    out.push_back(fields);
  }
  return out;
}

TEST(Csv, FieldsAreQuotedOnlyWhenTheyMustBe) {
  EXPECT_EQ(csv_field("plain text"), "plain text");
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("a\rb"), "\"a\rb\"");
  EXPECT_EQ(csv_field("a\nb"), "\"a\nb\"");
  EXPECT_EQ(csv_record({"x", "", "y,z"}), "x,,\"y,z\"");
  EXPECT_EQ(csv_record({""}), "\"\"");  // not an empty line
}

TEST(Csv, EveryFieldRoundTripsWithLfAndCrlfRecordEnds) {
  const Records records = {
      {"plain", "with,comma", "with \"quotes\"", "\"", "\"\""},
      {"cr\rinside", "lf\ninside", "crlf\r\ninside", "ends with cr\r", "\nstarts with lf"},
      {"", "", ""},
      {""},
      {",", "\r\n", "a\"b,c\nd"},
      {"last"},
  };
  for (const char* end : {"\n", "\r\n"}) {
    for (const bool final_break : {true, false}) {
      std::string text;
      for (std::size_t i = 0; i < records.size(); ++i) {
        text += csv_record(records[i]);
        if (i + 1 < records.size() || final_break) {
          text += end;
        }
      }
      EXPECT_EQ(read_all(text), records) << "record end " << (end[0] == '\r' ? "CRLF" : "LF")
                                         << (final_break ? "" : ", none after the last");
    }
  }
}

TEST(Csv, RecordsKnowTheLineTheyBeginOn) {
  CsvReader reader("h1,h2\n\"two\nlines\",x\nnext,\"a\r\nb\"\r\n\nend", "t.csv");
  std::vector<std::string> f;
  ASSERT_TRUE(reader.next(f));
  EXPECT_EQ(reader.line(), 1);
  ASSERT_TRUE(reader.next(f));
  EXPECT_EQ(reader.line(), 2);
  EXPECT_EQ(f, (std::vector<std::string>{"two\nlines", "x"}));
  ASSERT_TRUE(reader.next(f));
  EXPECT_EQ(reader.line(), 4);
  EXPECT_EQ(f, (std::vector<std::string>{"next", "a\r\nb"}));
  EXPECT_FALSE(reader.blank());
  ASSERT_TRUE(reader.next(f));
  EXPECT_EQ(reader.line(), 6);  // the quoted CRLF is line 5's end
  EXPECT_TRUE(reader.blank());
  EXPECT_FALSE(reader.done());
  ASSERT_TRUE(reader.next(f));
  EXPECT_EQ(reader.line(), 7);
  EXPECT_EQ(f, (std::vector<std::string>{"end"}));
  EXPECT_TRUE(reader.done());
  EXPECT_FALSE(reader.next(f));
}

TEST(Csv, CrOutsideQuotesIsKeptUnlessItEndsALine) {
  EXPECT_EQ(read_all("a\rb,c\r\r\nd\r"), (Records{{"a\rb", "c\r"}, {"d"}}));
  EXPECT_EQ(read_all("\"\"\n"), (Records{{""}}));
}

TEST(Csv, AnUnterminatedQuoteNamesTheLineAndColumnItOpensOn) {
  EXPECT_EQ(message_of([] { read_all("a,b\nc,\"d\ne,f\n"); }),
            "t.csv:2:3: unterminated quoted field");
  // The record began on line 2; its second quoted part opens on line 3 and is never closed. The
  // column counts characters ("é" is two bytes).
  EXPECT_EQ(message_of([] { read_all("h\n\"x\ny\",\xC3\xA9\"z\n"); }),
            "t.csv:3:5: unterminated quoted field");
}

// Where each field begins (the one place every CSV reader's error columns come from), counted by
// hand: columns count characters, a quoted field that spans lines moves the next field to a later
// line, CRLF ends a record as LF does.
TEST(Csv, EachFieldKnowsWhereItBegins) {
  CsvReader reader("ab,,\"c\nd\",\xC3\xA9,f\r\n\n\"x\"\"y\",z", "t.csv");
  std::vector<std::string> f;
  ASSERT_TRUE(reader.next(f));
  ASSERT_EQ(f.size(), 5u);
  // "ab" at 1, the empty field at 4, the quoted one at 5 (line 1); after its line break the
  // field "é" begins at line 2, column 4 (d, ", comma), and "f" at 6 (é is one character).
  EXPECT_EQ(reader.places(), (std::vector<CellPlace>{{1, 1}, {1, 4}, {1, 5}, {2, 4}, {2, 6}}));
  EXPECT_EQ(reader.end(), (CellPlace{2, 7}));  // past "f", before the CR
  ASSERT_TRUE(reader.next(f));                 // the empty line 3
  EXPECT_EQ(reader.places(), (std::vector<CellPlace>{{3, 1}}));
  EXPECT_EQ(reader.end(), (CellPlace{3, 1}));
  ASSERT_TRUE(reader.next(f));
  // "x""y" is 6 characters: z after its comma at 8.
  EXPECT_EQ(reader.places(), (std::vector<CellPlace>{{4, 1}, {4, 8}}));
  EXPECT_EQ(reader.end(), (CellPlace{4, 9}));
}

}  // namespace
}  // namespace tidesim
