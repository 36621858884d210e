// Provenance of results (tools/lib/provenance.hpp) and scenario overrides
// (sim/scenario/scenario_override.hpp): hashes against published test vectors, the recorded command
// and inputs, byte-identical reruns, `--set`.
#include "tidesim/tools/lib/provenance.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/common/cli.hpp"
#include "tests/common/require.hpp"
#include "tidesim/policies/loaded_profile.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"
#include "tidesim/sim/scenario/scenario_override.hpp"
#include "tidesim/tools/lib/policy_select.hpp"
#include "tidesim/version.hpp"

namespace tidesim::app {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using tidesim::test::read_file;

std::string out_dir() {
  const std::string d = ::testing::TempDir() + "/tidesim_provenance_" + std::to_string(::getpid());
  fs::create_directories(d);
  return d;
}

// stdout of `tidesim ARGS` (stderr dropped), with its exit code.
tidesim::test::CliOutput run_json(const std::string& args) {
  return tidesim::test::run_capturing(args, "2>/dev/null");
}

TEST(Sha256, MatchesTheFipsTestVectors) {
  // FIPS 180-2, appendix B.1 and B.2; the empty string's digest from the same algorithm.
  EXPECT_EQ(sha256_hex("abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "sha256:248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

// A policy's hash is that of the text its runs were built from, taken when --policy was
// resolved: an edit of the file afterwards (during the runs) is not what the provenance records.
TEST(Provenance, HashesThePolicyTextLoadedNotTheFileAfterwards) {
  const std::string dir = out_dir();
  const std::string policy = dir + "/loaded-once.yaml";
  fs::copy_file("scenarios/schedulers/most-allocated.yaml", policy,
                fs::copy_options::overwrite_existing);
  const std::string text = read_file(policy);
  const Scenario s = load_scenario("tests/tools/data/solo.yaml");
  const auto policies = select_policies(s, {"first-fit", "mine=" + policy});
  ASSERT_EQ(policies.size(), 2u);
  EXPECT_EQ(policies[1].loaded().sha256, sha256_hex(text));
  std::ofstream(policy, std::ios::app) << "# edited during the runs\n";
  const json p = make_provenance(s, policies, {1}, ProvenanceInput{});
  EXPECT_EQ(p["policies"][0]["sha256"], nullptr);
  EXPECT_EQ(p["policies"][1]["scheduler"], policy);
  EXPECT_EQ(p["policies"][1]["sha256"], sha256_hex(text));
  fs::remove(policy);
}

TEST(ShellCommand, QuotesWhatTheShellWouldSplit) {
  EXPECT_EQ(shell_command({"tidesim", "run", "s.yaml", "--set", "cluster.node_groups[0].count=4"}),
            "tidesim run s.yaml --set cluster.node_groups[0].count=4");
  EXPECT_EQ(shell_command({"a b", "it's", ""}), "'a b' 'it'\\''s' ''");
}

TEST(Override, SetsAValueByPath) {
  ConfigNode root = load_yaml_string("a: {b: [1, {c: 2}]}\nd: x\n", "s.yaml");
  apply_override(root, parse_override("a.b[1].c=5"));
  apply_override(root, parse_override("d=[1, 2]"));
  apply_override(root, parse_override("e.f=2h"));  // missing keys are created
  EXPECT_EQ(root["a"]["b"][1]["c"].scalar(), "5");
  EXPECT_EQ(root["a"]["b"][0].scalar(), "1");
  ASSERT_TRUE(root["d"].is_sequence());
  EXPECT_EQ(root["d"].size(), 2u);
  EXPECT_EQ(root["e"]["f"].scalar(), "2h");
}

TEST(Override, RefusesPathsThatDoNotFit) {
  ConfigNode root = load_yaml_string("a: {b: [1, 2]}\n", "s.yaml");
  auto message = [&](const std::string& text) {
    try {
      apply_override(root, parse_override(text));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("a.b[2]=1"), "--set: 'a.b[2]=1': a.b has 2 items (indices from 0)");
  EXPECT_EQ(message("a.b.c=1"), "--set: 'a.b.c=1': a.b is not a mapping");
  EXPECT_EQ(message("a[0]=1"), "--set: 'a[0]=1': a is not a list");
  EXPECT_EQ(message("a=[1"), message("a=[1"));  // not YAML: an InputError, whatever the parser says
  EXPECT_NE(message("a=[1").find("the value is not YAML"), std::string::npos);
  for (const char* bad : {"a", "=1", "a=", "a..b=1", "a[x]=1", "a[1=2", ".a=1", "a.=1"}) {
    EXPECT_THROW((void)parse_override(bad), InputError) << bad;
  }
}

class CliProvenance : public ::testing::Test {
 protected:
  void SetUp() override { TIDESIM_REQUIRE_CLI(); }
  std::string dir_ = out_dir();
};

TEST_F(CliProvenance, RecordsCommandCommitFilesAndPolicies) {
  const std::string policy = dir_ + "/mine.yaml";
  fs::copy_file("scenarios/schedulers/load-aware.yaml", policy,
                fs::copy_options::overwrite_existing);
  const std::string args =
      "run scenarios/seed-benchmark.yaml --seed 1 --policy default-k8s "
      "--policy mine=" +
      policy + " --format json --threads ";
  const auto a = run_json(args + "1");
  const auto b = run_json(args + "2");
  ASSERT_EQ(a.code, 0);
  ASSERT_EQ(b.code, 0);
  EXPECT_EQ(a.out, b.out);  // byte-identical: nothing of the machine, the time or the threads
  const json p = json::parse(a.out)["metadata"]["provenance"];
  EXPECT_EQ(p["command"],
            "tidesim run scenarios/seed-benchmark.yaml --policy default-k8s "
            "--policy mine=" +
                policy + " --seed 1");
  EXPECT_EQ(p["tidesim_version"], kVersion);
  EXPECT_EQ(p["tidesim_commit"], kCommit);
  EXPECT_EQ(p["seeds"], json::array({1}));
  EXPECT_EQ(p["overrides"], json::array());
  EXPECT_EQ(p["scenario"]["sha256"], sha256_hex(read_file("scenarios/seed-benchmark.yaml")));
  // The four job entries name two manifests, each under its key.
  ASSERT_EQ(p["files"].size(), 4u) << p.dump(2);
  EXPECT_EQ(p["files"][0]["key"], "workload.jobs[0].manifest");
  EXPECT_EQ(p["files"][0]["path"], "scenarios/manifests/resnet50-heavy.yaml");
  EXPECT_EQ(p["files"][0]["sha256"],
            sha256_hex(read_file("scenarios/manifests/resnet50-heavy.yaml")));
  EXPECT_EQ(p["files"][2]["path"], "scenarios/manifests/gpt2-dp.yaml");
  EXPECT_EQ(p["policies"][0],
            json({{"name", "default-k8s"}, {"scheduler", "default-k8s"}, {"sha256", nullptr}}));
  EXPECT_EQ(p["policies"][1]["sha256"], sha256_hex(read_file(policy)));

  // Editing the policy file changes its recorded hash.
  std::ofstream(policy, std::ios::app) << "# edited\n";
  const auto c = run_json(args + "1");
  ASSERT_EQ(c.code, 0);
  const json q = json::parse(c.out)["metadata"]["provenance"];
  EXPECT_NE(q["policies"][1]["sha256"], p["policies"][1]["sha256"]);
  EXPECT_EQ(q["policies"][1]["sha256"], sha256_hex(read_file(policy)));
}

TEST_F(CliProvenance, SetChangesTheScenarioAndIsRecorded) {
  const auto r = run_json(
      "run tests/tools/data/solo.yaml --set workload.arrivals.count=3 --set run.pod_startup=1s "
      "--format json");
  ASSERT_EQ(r.code, 0) << r.out;
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc["runs"][0]["jobs"].size(), 3u);
  EXPECT_EQ(doc["metadata"]["provenance"]["overrides"],
            json::array({"workload.arrivals.count=3", "run.pod_startup=1s"}));
  EXPECT_EQ(doc["metadata"]["provenance"]["command"],
            "tidesim run tests/tools/data/solo.yaml --set workload.arrivals.count=3 "
            "--set run.pod_startup=1s");
  const auto bad = tidesim::test::run(
      "run tests/tools/data/solo.yaml --set "
      "cluster.node_groups[0].cuont=3");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.out.find("cluster.node_groups[0].cuont: unknown key"), std::string::npos)
      << bad.out;
  const auto range = tidesim::test::run(
      "run tests/tools/data/solo.yaml --set "
      "cluster.node_groups[1].count=3");
  EXPECT_EQ(range.code, 2);
  EXPECT_NE(range.out.find("--set: 'cluster.node_groups[1].count=3': cluster.node_groups has 1 "
                           "item (indices from 0)"),
            std::string::npos)
      << range.out;
}

}  // namespace
}  // namespace tidesim::app
