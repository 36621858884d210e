#include "tidesim/sim/input/yaml_fields.hpp"

#include <gtest/gtest.h>

#include "tests/common/errors.hpp"

namespace tidesim {
namespace {

using namespace std::chrono_literals;

using test::message_of;

TEST(Fields, ReadsTypedValues) {
  const auto doc =
      load_yaml_string("a: 10s\nb: 24GiB\nc: 85%\nd: 3\ne: true\nf: 25GB/s\n", "x.yaml");
  Fields f(doc, "x.yaml", "top");
  EXPECT_EQ(f.duration("a", std::nullopt), 10s);
  EXPECT_EQ(f.bytes("b", std::nullopt), 24LL << 30);
  EXPECT_DOUBLE_EQ(f.fraction("c", std::nullopt), 0.85);
  EXPECT_EQ(f.integer("d", std::nullopt, 0, 10), 3);
  EXPECT_TRUE(f.boolean("e", std::nullopt));
  EXPECT_DOUBLE_EQ(f.bandwidth("f", std::nullopt), 25e9);
  EXPECT_EQ(f.integer("absent", 7, 0, 10), 7);
  EXPECT_NO_THROW(f.finish());
}

TEST(Fields, UnknownKeyNamesLineAndAllowedKeys) {
  const auto doc = load_yaml_string("seeds: 3\nsead: 4\n", "s.yaml");
  Fields f(doc, "s.yaml", "");
  f.integer("seeds", 1, 1, 100);
  f.has("policies");
  EXPECT_EQ(message_of([&] { f.finish(); }),
            "s.yaml:2:1: sead: unknown key; allowed keys here: policies, seeds");
}

TEST(Fields, WrongTypeMissingAndOutOfRangeNameTheField) {
  const auto doc = load_yaml_string("run:\n  seeds: -2\n  until: soon\n  list: [1, 2]\n", "r.yaml");
  Fields top(doc, "r.yaml", "");
  Fields run(top.require("run"), "r.yaml", "run");
  EXPECT_EQ(message_of([&] { run.integer("seeds", std::nullopt, 1, 100); }),
            "r.yaml:2:10: run.seeds: -2 is out of range [1, 100]");
  EXPECT_EQ(message_of([&] { run.duration("until", std::nullopt); }),
            "r.yaml:3:10: run.until: 'soon' is not a duration (expected e.g. 10s, 250ms, 6h)");
  EXPECT_EQ(message_of([&] { run.string("list"); }),
            "r.yaml:4:9: run.list: expected a single value, not a list or mapping");
  EXPECT_EQ(message_of([&] { run.string("name"); }),
            "r.yaml:2:3: run.name: missing required field (a string)");
}

// A duration finer than the clock's microsecond is refused at its place, not rounded to 0.
TEST(Fields, ADurationBelowTheClocksResolutionNamesThePlace) {
  const auto doc = load_yaml_string("run:\n  cycle_time: 0.4us\n", "r.yaml");
  Fields top(doc, "r.yaml", "");
  Fields run(top.require("run"), "r.yaml", "run");
  EXPECT_EQ(message_of([&] { run.duration("cycle_time", std::nullopt); }),
            "r.yaml:2:15: run.cycle_time: '0.4us' is not a whole number of microseconds (the "
            "clock's resolution is 1us)");
}

TEST(Fields, ChoiceListsTheChoices) {
  const auto doc = load_yaml_string("mode: shared\n", "m.yaml");
  Fields f(doc, "m.yaml", "gpu");
  EXPECT_EQ(message_of([&] {
              f.choice("mode", std::nullopt, {"exclusive", "time-slicing"});
            }),
            "m.yaml:1:7: gpu.mode: 'shared' is not one of: exclusive, time-slicing");
}

TEST(Fields, SyntaxErrorsCarryTheLine) {
  // The flow sequence opened on line 1 is found broken on line 2.
  EXPECT_EQ(message_of([] { load_yaml_string("a: [1, 2\nb: 3\n", "bad.yaml"); }).substr(0, 11),
            "bad.yaml:2:");
}

TEST(Fields, NonMappingIsAnError) {
  const auto doc = load_yaml_string("- 1\n- 2\n", "l.yaml");
  EXPECT_EQ(message_of([&] { Fields f(doc, "l.yaml", "cluster"); }),
            "l.yaml:1:1: cluster: expected a mapping of keys to values");
}

TEST(Fields, DuplicateKeysAreRefusedWithBothPlaces) {
  // yaml-cpp keeps both and node[key] returns the first: the second used to be dropped silently.
  EXPECT_EQ(message_of([] { load_yaml_string("a: 1\nb:\n  c: 2\n  c: 3\n", "d.yaml"); }),
            "d.yaml:4:3: b.c: duplicate key (first at line 3, column 3)");
  EXPECT_EQ(message_of([] { load_all_yaml_string("x: 1\n---\nl:\n  - {k: 1, k: 2}\n", "d.yaml"); }),
            "d.yaml:4:12: l[0].k: duplicate key (first at line 4, column 6)");
  // The same key in two mappings is fine, and so is an alias to a mapping.
  EXPECT_NO_THROW(load_yaml_string("a: &x {k: 1}\nb: *x\nc: {k: 2}\n", "ok.yaml"));
}

TEST(Fields, StrayFlowIndicatorDoesNotLoopForever) {
  // yaml-cpp 0.7's LoadAll returned empty documents forever on a file holding only `,`.
  const std::string expected =
      "c.yaml:1:1: YAML syntax error: the parser makes no progress here (a stray ',', ']' or '}' "
      "outside a flow collection?)";
  EXPECT_EQ(message_of([] { load_all_yaml_string(",", "c.yaml"); }), expected);
  EXPECT_EQ(load_all_yaml_string("---\n---\n", "e.yaml").size(), 2U);
}

TEST(Fields, NonScalarKeyIsAnError) {
  const auto doc = load_yaml_string("? [a, b]\n: 1\n", "k.yaml");
  Fields f(doc, "k.yaml", "top");
  EXPECT_EQ(message_of([&] { f.finish(); }),
            "k.yaml:1:3: top: a key must be a single value, not a list or mapping");
}

TEST(InputErrorText, LongWordsAreShortened) {
  EXPECT_EQ(shorten_tokens("bad 'x' here", 4), "bad 'x' here");
  EXPECT_EQ(shorten_tokens("value " + std::string(100, 'a') + " end", 80),
            "value " + std::string(40, 'a') + "...(100 characters) end");
  // Field paths up to 200 characters are kept whole; a longer word keeps its first 100.
  const std::string path =
      "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]";
  EXPECT_EQ(InputError(SourceLocation{"f", 1, 2}, path, "m").what(), "f:1:2: " + path + ": m");
  EXPECT_EQ(InputError(SourceLocation{"f", 1, 2}, std::string(300, 'k'), "m").what(),
            "f:1:2: " + std::string(100, 'k') + "...(300 characters): m");
}

}  // namespace
}  // namespace tidesim
