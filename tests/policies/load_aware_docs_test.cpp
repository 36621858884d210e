// docs/policies.md's table of load-aware args against LoadAwareArgs, the one statement of their
// defaults: every documented default parses back to the default-constructed struct, and the table
// lists every arg the parser accepts, once.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tidesim/policies/plugins/load_aware.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim::policies {
namespace {

std::string trim(std::string s) {
  const auto first = s.find_first_not_of(' ');
  const auto last = s.find_last_not_of(' ');
  return first == std::string::npos ? "" : s.substr(first, last - first + 1);
}

std::string without_backticks(std::string s) {
  std::erase(s, '`');
  return s;
}

// The (arg, default) rows of the table under "### Parameters" in docs/policies.md, backticks
// removed.
std::vector<std::pair<std::string, std::string>> documented_defaults() {
  std::ifstream in(std::string(TIDESIM_SOURCE_DIR) + "/docs/policies.md");
  EXPECT_TRUE(in) << "docs/policies.md";
  std::vector<std::pair<std::string, std::string>> rows;
  std::string line;
  bool in_section = false;
  bool in_table = false;
  while (std::getline(in, line)) {
    if (line.starts_with("#")) {
      if (in_section) {
        break;
      }
      in_section = line.starts_with("### Parameters (`pluginConfig` args");
      continue;
    }
    if (!in_section || !line.starts_with("|")) {
      if (in_table) {
        break;  // the table has ended
      }
      continue;
    }
    if (!in_table) {  // the header row and the |---| row
      in_table = true;
      std::getline(in, line);
      continue;
    }
    std::vector<std::string> cells;
    std::size_t from = 1;
    for (std::size_t bar = line.find('|', from); bar != std::string::npos;
         bar = line.find('|', from)) {
      cells.push_back(trim(line.substr(from, bar - from)));
      from = bar + 1;
    }
    EXPECT_EQ(cells.size(), 3u) << line;
    if (cells.size() >= 2) {
      rows.emplace_back(without_backticks(cells[0]), without_backticks(cells[1]));
    }
  }
  return rows;
}

// The keys the parser accepts, from the error an unknown key gets (Fields::finish lists them).
std::set<std::string> accepted_keys() {
  const ConfigNode args = load_yaml_string("noSuchArg: 1", "args");
  try {
    parse_load_aware_args(PluginArgs{args, "", "args"});
  } catch (const InputError& e) {
    const std::string marker = "allowed keys here: ";
    const auto at = e.message().find(marker);
    EXPECT_NE(at, std::string::npos) << e.message();
    std::set<std::string> keys;
    std::string list = e.message().substr(at + marker.size());
    for (std::size_t comma = list.find(", "); comma != std::string::npos; comma = list.find(", ")) {
      keys.insert(list.substr(0, comma));
      list.erase(0, comma + 2);
    }
    keys.insert(list);
    keys.erase("apiVersion");  // every plugin's args may carry these two (args_fields)
    keys.erase("kind");
    return keys;
  }
  ADD_FAILURE() << "an unknown arg was accepted";
  return {};
}

TEST(LoadAwareDocs, DefaultsTableIsTheArgsStruct) {
  const auto rows = documented_defaults();
  ASSERT_GE(rows.size(), 10u);
  const LoadAwareArgs defaults;
  for (const auto& [arg, cell] : rows) {
    ConfigNode args = ConfigNode::empty_map();
    args.set(arg, load_yaml_string(cell, "docs/policies.md"));
    const LoadAwareArgs parsed = parse_load_aware_args(PluginArgs{args, "docs/policies.md", arg});
    EXPECT_TRUE(parsed == defaults)
        << arg << ": the documented default " << cell << " is not LoadAwareArgs' default";
  }
  std::multiset<std::string> documented;
  for (const auto& row : rows) {
    documented.insert(row.first);
  }
  const std::set<std::string> accepted = accepted_keys();
  EXPECT_EQ(documented, std::multiset<std::string>(accepted.begin(), accepted.end()));
}

// The check above fails on a wrong default: a documented value that is not the default parses to
// other args.
TEST(LoadAwareDocs, AnotherValueIsNotTheDefault) {
  ConfigNode args = load_yaml_string("gpuMemory: {safe: 0.70, reject: 0.85, weight: 0.4}", "a");
  EXPECT_FALSE(parse_load_aware_args(PluginArgs{args, "", "args"}) == LoadAwareArgs{});
  args = load_yaml_string("metricCacheTTL: 20s", "a");
  EXPECT_FALSE(parse_load_aware_args(PluginArgs{args, "", "args"}) == LoadAwareArgs{});
}

}  // namespace
}  // namespace tidesim::policies
