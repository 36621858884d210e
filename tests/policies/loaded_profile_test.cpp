// A scheduler profile is resolved and loaded once (policies/loaded_profile.hpp): a built-in or a
// file by the one rule, one message for an unknown name, the hash of the text loaded, and
// schedulers built later from the load, whatever happens to the file.
#include "tidesim/policies/loaded_profile.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/policies/test_cluster.hpp"
#include "tidesim/policies/scheduler.hpp"
#include "tidesim/sim/input/sha256.hpp"

namespace tidesim::policies {
namespace {

namespace fs = std::filesystem;

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// A folder of this test's own, removed at the end.
class LoadedProfileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tidesim-loaded-profile-" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }

  fs::path dir_;
};

// A profile with one score plugin, under its own scheduler name.
std::string profile_text(const std::string& scheduler_name) {
  return "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
         "profiles:\n  - schedulerName: " +
         scheduler_name +
         "\n    plugins:\n      score:\n        disabled: [{name: \"*\"}]\n"
         "        enabled: [{name: NodeResourcesFit, weight: 1}]\n";
}

TEST_F(LoadedProfileTest, ABuiltinNameIsTheBuiltin) {
  const auto p = load_profile("load-aware");
  EXPECT_TRUE(p->builtin);
  EXPECT_EQ(p->source, "load-aware");
  EXPECT_EQ(p->path, "");
  EXPECT_EQ(p->config.file, "<builtin:load-aware>");
  EXPECT_EQ(p->sha256, sha256_hex(*builtin_scheduler_config("load-aware")));
  EXPECT_TRUE(p->reads_metrics);
  EXPECT_FALSE(p->reads_forecasts);
  EXPECT_FALSE(load_profile("default-k8s")->reads_metrics);
}

TEST_F(LoadedProfileTest, AnyOtherNameIsAFileResolvedAgainstTheFolder) {
  const std::string text = read("scenarios/schedulers/load-aware-predictive.yaml");
  write("predictive.yaml", text);
  ProfilePlace place;
  place.folder = dir_.string();
  const auto p = load_profile("predictive.yaml", place);
  EXPECT_FALSE(p->builtin);
  EXPECT_EQ(p->source, "predictive.yaml");
  EXPECT_EQ(p->path, (dir_ / "predictive.yaml").string());
  EXPECT_EQ(p->sha256, sha256_hex(text));
  EXPECT_TRUE(p->reads_metrics);
  EXPECT_TRUE(p->reads_forecasts);
  // A file with no extension is a file too.
  write("plain", profile_text("plain-scheduler"));
  EXPECT_EQ(make_scheduler(*load_profile("plain", place), 1)->name(), "plain-scheduler");
}

TEST_F(LoadedProfileTest, AnUnknownNameHasItsPlaceASuggestionAndTheBuiltins) {
  ProfilePlace place;
  place.where = SourceLocation{"s.yaml", 12, 7};
  place.field = "policies[0]";
  place.folder = dir_.string();
  try {
    load_profile("load-awre", place);
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("s.yaml:12:7: policies[0]: unknown policy 'load-awre' (did you mean "
                         "'load-aware'?): not a built-in scheduler (first-fit, default-k8s, ",
                         0),
              0u)
        << what;
    EXPECT_NE(what.find("fgd) and no KubeSchedulerConfiguration file (NAME.yaml) by that name"),
              std::string::npos)
        << what;
  }
  // A name written as a file says where it was looked for; `--policy` also names the scenario's.
  place.scenario_policies = std::vector<std::string>{"mine", "theirs"};
  try {
    load_profile("missing.yaml", place);
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("unknown policy 'missing.yaml': not a policy of the scenario (mine, "
                        "theirs), not a built-in scheduler"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("(looked at " + (dir_ / "missing.yaml").string() + ")"), std::string::npos)
        << what;
  }
}

TEST_F(LoadedProfileTest, TheFileIsReadOnceAndSchedulersComeFromThatRead) {
  const std::string text = profile_text("first-version");
  const std::string path = write("p.yaml", text);
  const auto loaded = load_profile(path);
  fs::remove(path);
  // Built after the file is gone: the load is all a scheduler needs.
  EXPECT_EQ(make_scheduler(*loaded, 1)->name(), "first-version");
  EXPECT_EQ(make_scheduler(*loaded, 2)->name(), "first-version");
  // Written again with another profile: the load still holds the text it read, and its hash.
  write("p.yaml", profile_text("second-version"));
  EXPECT_EQ(make_scheduler(*loaded, 3)->name(), "first-version");
  EXPECT_EQ(loaded->sha256, sha256_hex(text));
  EXPECT_EQ(make_scheduler(path, 1)->name(), "second-version");  // a new load reads it anew
}

TEST_F(LoadedProfileTest, AFileNamedLikeABuiltinIsTheFileWhenLoadedAsOne) {
  const std::string path = write("default-k8s", profile_text("from-the-file"));
  EXPECT_EQ(make_scheduler(*load_profile_file(path), 1)->name(), "from-the-file");
}

namespace registry_values {

// A Score plugin that gives 100 to the node named `favourite` and 0 to the others.
class Prefers final : public ScorePlugin {
 public:
  explicit Prefers(std::string favourite) : favourite_(std::move(favourite)) {}
  std::string_view name() const override { return "Prefers"; }
  std::int64_t score(CycleContext& ctx, const PodSpec& /*pod*/, int node_index) override {
    return ctx.cluster.nodes[static_cast<std::size_t>(node_index)].node.name == favourite_ ? 100
                                                                                           : 0;
  }

 private:
  std::string favourite_;
};

// The default registry plus a "Prefers" that favours `favourite`.
RegistryPtr registry_preferring(const std::string& favourite) {
  Registry extra;
  extra["Prefers"] = plugin_without_args(
      [favourite]() -> std::unique_ptr<Plugin> { return std::make_unique<Prefers>(favourite); });
  return registry_with(builtin_registry(), std::move(extra));
}

// Where a scheduler of `profile` puts a small pod on two alike nodes, "a" and "b".
std::string placed_by(const LoadedProfile& profile) {
  ClusterView cluster;
  cluster.nodes.push_back(testing::make_node("a", 8000, 64LL << 30, 4));
  cluster.nodes.push_back(testing::make_node("b", 8000, 64LL << 30, 4));
  const auto pod = testing::make_pod("p", 100, 1 << 20);
  const ScheduleResult r =
      make_scheduler(profile, 1)->schedule_one(*pod, cluster, nullptr, TimePoint{});
  return r.node ? cluster.nodes[*r.node].node.name : "unscheduled: " + r.reason;
}

}  // namespace registry_values

// Two registry values hold different plugins of one name: the one file loaded with each builds
// schedulers that take their plugin from that registry, and the default registry has neither.
TEST_F(LoadedProfileTest, TwoRegistriesWithAPluginOfOneNameBuildDifferentSchedulers) {
  const std::string path =
      write("prefers.yaml",
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
            "profiles:\n  - schedulerName: prefers\n    plugins:\n      score:\n"
            "        disabled: [{name: \"*\"}]\n        enabled: [{name: Prefers, weight: 1}]\n");
  ProfilePlace to_a;
  to_a.registry = registry_values::registry_preferring("a");
  ProfilePlace to_b;
  to_b.registry = registry_values::registry_preferring("b");
  const auto a = load_profile(path, to_a);
  const auto b = load_profile(path, to_b);
  EXPECT_EQ(a->registry, to_a.registry);  // kept, for every scheduler built from the profile
  EXPECT_EQ(registry_values::placed_by(*a), "a");
  EXPECT_EQ(registry_values::placed_by(*b), "b");
  EXPECT_EQ(registry_values::placed_by(*load_profile_file(path, to_b.registry)), "b");
  EXPECT_FALSE(default_registry()->contains("Prefers"));
  EXPECT_THROW(load_profile(path), InputError);  // the default registry has no "Prefers"
  // A registry refuses a plugin that takes a name it holds.
  Registry clash;
  clash["NodeResourcesFit"] = plugin_without_args(
      []() -> std::unique_ptr<Plugin> { return std::make_unique<registry_values::Prefers>("a"); });
  EXPECT_THROW((void)registry_with(builtin_registry(), std::move(clash)), std::logic_error);
}

}  // namespace
}  // namespace tidesim::policies
