// Collectors on hand-built timelines; every expected number is worked out in the comment above it.
#include <gtest/gtest.h>

#include "tidesim/sim/metrics/catalog.hpp"
#include "tidesim/sim/metrics/cluster_balance.hpp"
#include "tidesim/sim/metrics/fragmentation.hpp"
#include "tidesim/sim/metrics/job_metrics.hpp"
#include "tidesim/sim/metrics/lscs.hpp"
#include "tidesim/sim/metrics/node_stats.hpp"
#include "tidesim/sim/metrics/nvlink_contention.hpp"
#include "tidesim/sim/metrics/nvlink_variance.hpp"
#include "tidesim/sim/metrics/per_node_values.hpp"
#include "tidesim/sim/metrics/scheduling_metrics.hpp"
#include "tidesim/sim/metrics/standard_collectors.hpp"
#include "tidesim/sim/metrics/step_average.hpp"

namespace tidesim::metrics {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

TimePoint at_s(long s) {
  return TimePoint{seconds(s)};
}

constexpr std::int64_t kGiB = 1024LL * 1024 * 1024;

NodeState node(std::string name, std::vector<double> util, int allocated = 0, int allocatable = 0) {
  NodeState n;
  n.name = std::move(name);
  n.gpu_utilization = std::move(util);
  n.gpus_allocated = allocated;
  n.gpus_allocatable = allocatable;
  return n;
}

NodeState memory_node(std::string name, std::vector<std::int64_t> used, std::int64_t capacity) {
  NodeState n;
  n.name = std::move(name);
  n.gpu_utilization.assign(used.size(), 0.0);
  n.gpu_memory_used = std::move(used);
  n.gpu_memory_capacity = capacity;
  return n;
}

ClusterSample sample(long t, std::vector<NodeState> nodes, int pending = 0) {
  ClusterSample s;
  s.at = at_s(t);
  s.nodes = std::move(nodes);
  s.pending_pods = pending;
  return s;
}

JobEvent job_event(long t, JobEventKind kind, std::string job, int gpus = 1, std::string pod = "") {
  JobEvent e;
  e.at = at_s(t);
  e.kind = kind;
  e.job = std::move(job);
  e.pod = std::move(pod);
  e.gpus = gpus;
  return e;
}

TEST(StepAverage, WeightsValuesByHoldTime) {
  StepAverage a;
  EXPECT_FALSE(a.mean(at_s(10)).has_value());
  // 2 over [0, 10), undefined over [10, 20), 5 over [20, 40): (2*10 + 5*20) / 30 = 4.
  a.add(at_s(0), 2.0);
  a.add(at_s(10), std::nullopt);
  a.add(at_s(20), 5.0);
  EXPECT_DOUBLE_EQ(*a.mean(at_s(40)), 4.0);
  EXPECT_EQ(a.weight(at_s(40)), seconds(30));
  EXPECT_DOUBLE_EQ(*a.max(), 5.0);
  EXPECT_THROW(a.add(at_s(5), 1.0), std::logic_error);
}

TEST(StepAverage, ZeroLengthRunGivesTheLastValue) {
  StepAverage a;
  a.add(at_s(7), 3.0);
  EXPECT_DOUBLE_EQ(*a.mean(at_s(7)), 3.0);
}

TEST(NodeStats, PopulationStddevDividesByN) {
  // Values 2, 4, 4, 4, 5, 5, 7, 9: mean 5, squared deviations sum to 32, 32 / 8 = 4 -> 2.
  const std::vector<double> v{2, 4, 4, 4, 5, 5, 7, 9};
  EXPECT_DOUBLE_EQ(*population_stddev(v), 2.0);
  EXPECT_DOUBLE_EQ(*population_variance(v), 4.0);
}

TEST(ClusterBalance, TwoNodesWithKnownUtilisationSteps) {
  ClusterBalanceCollector c;
  // t=0: nodes at 1.0 (cards 1, 1) and 0.0: std-dev 0.5, mean 0.5, allocated 2 of 4, 5 pending.
  c.on_sample(sample(0, {node("a", {1.0, 1.0}, 2, 2), node("b", {0.0, 0.0}, 0, 2)}, 5));
  // t=10: nodes at 0.75 (cards 1.0, 0.5) and 0.25 (0.5, 0.0): std-dev 0.25, mean 0.5, 3 of 4.
  c.on_sample(sample(10, {node("a", {1.0, 0.5}, 2, 2), node("b", {0.5, 0.0}, 1, 2)}, 1));
  // t=30: both at 0.5: std-dev 0, all 4 allocated, none pending. The run ends at t=40.
  c.on_sample(sample(30, {node("a", {0.5, 0.5}, 2, 2), node("b", {0.5, 0.5}, 2, 2)}, 0));
  MetricValues m;
  c.finish(at_s(40), m);
  // std-dev: (0.5*10 + 0.25*20 + 0*10) / 40 = 0.25.
  EXPECT_DOUBLE_EQ(m.at("gpu_util_stddev"), 0.25);
  EXPECT_DOUBLE_EQ(m.at("gpu_util_mean"), 0.5);
  // allocation: (0.5*10 + 0.75*20 + 1*10) / 40 = 30 / 40.
  EXPECT_DOUBLE_EQ(m.at("gpu_allocation_rate"), 0.75);
  // queue: (5*10 + 1*20 + 0*10) / 40 = 1.75, max 5.
  EXPECT_DOUBLE_EQ(m.at("queue_length_mean"), 1.75);
  EXPECT_DOUBLE_EQ(m.at("queue_length_max"), 5.0);
}

TEST(ClusterBalance, NodesWithoutGpusAreLeftOut) {
  ClusterBalanceCollector c;
  // A CPU-only node has no utilisation: the std-dev is over the two GPU nodes, |1 - 0| / 2.
  c.on_sample(sample(0, {node("cpu", {}), node("a", {1.0}, 1, 1), node("b", {0.0}, 0, 1)}));
  MetricValues m;
  c.finish(at_s(10), m);
  EXPECT_DOUBLE_EQ(m.at("gpu_util_stddev"), 0.5);
}

TEST(ClusterBalance, RevisionsGiveTheSameNumbersAsFullSamples) {
  // The timeline of TwoNodesWithKnownUtilisationSteps, with the nodes listed in reverse name
  // order and with revisions (as the Observer sends them): every node moves at every sample.
  ClusterBalanceCollector c;
  auto with_revisions = [](ClusterSample s, std::vector<std::uint64_t> r) {
    s.node_revisions = std::move(r);
    return s;
  };
  c.on_sample(with_revisions(
      sample(0, {node("b", {0.0, 0.0}, 0, 2), node("a", {1.0, 1.0}, 2, 2)}, 5), {1, 1}));
  c.on_sample(with_revisions(
      sample(10, {node("b", {0.5, 0.0}, 1, 2), node("a", {1.0, 0.5}, 2, 2)}, 1), {2, 2}));
  c.on_sample(with_revisions(
      sample(30, {node("b", {0.5, 0.5}, 2, 2), node("a", {0.5, 0.5}, 2, 2)}, 0), {3, 3}));
  MetricValues m;
  c.finish(at_s(40), m);
  EXPECT_DOUBLE_EQ(m.at("gpu_util_stddev"), 0.25);
  EXPECT_DOUBLE_EQ(m.at("gpu_util_mean"), 0.5);
  EXPECT_DOUBLE_EQ(m.at("gpu_allocation_rate"), 0.75);
  // Per node over [0, 40): a = (1*10 + 0.75*20 + 0.5*10) / 40 = 0.75, b = (0*10 + 0.25*20 +
  // 0.5*10) / 40 = 0.25: std-dev of {0.75, 0.25} = 0.25.
  EXPECT_DOUBLE_EQ(m.at("gpu_util_stddev_node_avg"), 0.25);
}

TEST(StepAverage, AddRepeatedIsAddAtEachInstantBitForBit) {
  // Uneven intervals and a value with no short binary form: the sum of v * seconds rounds at
  // every step, so only the same additions in the same order give the same bits.
  std::vector<TimePoint> times;
  for (long t = 7, step = 1; t < 5000; t += step, step = step * 7 % 101) {
    times.push_back(at_s(t));
  }
  StepAverage one_by_one;
  StepAverage repeated;
  one_by_one.add(at_s(0), 0.3);
  repeated.add(at_s(0), 0.3);
  for (const TimePoint t : times) {
    one_by_one.add(t, 1.0 / 3.0);
  }
  repeated.add_repeated(times, 1.0 / 3.0);
  EXPECT_EQ(*one_by_one.mean(at_s(250)), *repeated.mean(at_s(250)));
  EXPECT_EQ(one_by_one.weight(at_s(250)), repeated.weight(at_s(250)));
  EXPECT_EQ(*one_by_one.max(), *repeated.max());
}

// The Observer's samples carry revisions and change a few nodes at a time; the collectors then
// recompute only those (and keep the nodes' averages lazily). Fed the same samples without
// revisions, they recompute every node at every sample: the metrics must be the same bits.
TEST(Collectors, ChangedNodesOnlyGiveTheBitsOfFullRecomputation) {
  constexpr int kNodes = 40;
  std::vector<NodeState> nodes;
  for (int n = 0; n < kNodes; ++n) {
    NodeState s =
        node("n" + std::to_string(100 + n),
             n == 5 ? std::vector<double>{} : std::vector<double>(4, 0.0), 0, n == 5 ? 0 : 4);
    if (n != 5) {
      s.nvlink_utilization.assign(4, 0.0);
      s.gpu_memory_used.assign(4, 0);
      s.gpu_memory_capacity = 80 * kGiB;
    }
    nodes.push_back(std::move(s));
  }
  std::vector<std::uint64_t> revisions(kNodes, 1);
  ClusterBalanceCollector balance[2];
  NvlinkVarianceCollector nvlink[2];
  LscsCollector lscs[2];
  const FragmentationOptions shapes{.task_shapes = {{.units = 1, .weight = 3},
                                                    {.units = 2, .weight = 1},
                                                    {.units = 4, .weight = 1}}};
  FragmentationCollector frag[2] = {FragmentationCollector(shapes), FragmentationCollector(shapes)};
  std::uint64_t state = 12345;
  auto next = [&state] {  // a small LCG: the same timeline at every run
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int>(state >> 33);
  };
  long t = 0;
  for (int i = 0; i < 300; ++i) {
    t += 1 + next() % 97;                   // uneven intervals
    for (int k = next() % 4; k > 0; --k) {  // zero to three nodes change
      const int n = next() % kNodes;
      if (n == 5) {
        continue;
      }
      NodeState& s = nodes[static_cast<std::size_t>(n)];
      const int c = next() % 4;
      s.gpu_utilization[static_cast<std::size_t>(c)] = (next() % 1000) / 999.0;
      s.nvlink_utilization[static_cast<std::size_t>(c)] = (next() % 1000) / 777.0;
      s.gpu_memory_used[static_cast<std::size_t>(c)] = (next() % 80) * kGiB / 3;
      s.gpus_allocated = next() % 5;
      ++revisions[static_cast<std::size_t>(n)];
    }
    ClusterSample full = sample(t, nodes, next() % 3);
    ClusterSample changed = full;
    // One sample in the middle has no revisions: every node counts as changed there.
    if (i != 150) {
      changed.node_revisions = revisions;
    }
    for (int k = 0; k < 2; ++k) {
      const ClusterSample& s = k == 0 ? full : changed;
      balance[k].on_sample(s);
      nvlink[k].on_sample(s);
      lscs[k].on_sample(s);
      frag[k].on_sample(s);
    }
  }
  MetricValues m[2];
  for (int k = 0; k < 2; ++k) {
    balance[k].finish(at_s(t + 30), m[k]);
    nvlink[k].finish(at_s(t + 30), m[k]);
    lscs[k].finish(at_s(t + 30), m[k]);
    frag[k].finish(at_s(t + 30), m[k]);
  }
  EXPECT_EQ(m[0].size(), 18U);  // 7 + 4 + 5 + 2: every metric is defined
  ASSERT_EQ(m[0].size(), m[1].size());
  for (const auto& [name, value] : m[0]) {
    EXPECT_EQ(value, m[1].at(name)) << name;
  }
  // finish() leaves the lazy averages as they are: a second call gives the same numbers.
  MetricValues again;
  balance[1].finish(at_s(t + 30), again);
  EXPECT_EQ(again.at("gpu_util_stddev_node_avg"), m[0].at("gpu_util_stddev_node_avg"));
}

int g_value_calls = 0;

std::optional<double> counted_utilization(const NodeState& n) {
  ++g_value_calls;
  return node_gpu_utilization(n);
}

TEST(PerNodeValues, RecomputesOnlyNodesWhoseRevisionMoved) {
  PerNodeValues values(counted_utilization);
  g_value_calls = 0;
  ClusterSample s = sample(0, {node("a", {1.0}), node("cpu", {}), node("b", {0.5})});
  s.node_revisions = {1, 1, 1};
  auto v = values.update(s);
  EXPECT_EQ(g_value_calls, 3);  // the first sample computes every node
  EXPECT_DOUBLE_EQ(*v[0], 1.0);
  EXPECT_FALSE(v[1].has_value());
  ASSERT_EQ(values.defined().size(), 2U);  // a and b, in node order
  // Node a moved (revision 2), node b's figures changed but its revision did not: only a is
  // recomputed, b keeps 0.5 (the Observer moves a revision whenever a node's state changes).
  s.nodes[0].gpu_utilization = {0.25};
  s.nodes[2].gpu_utilization = {0.0};
  s.node_revisions = {2, 1, 1};
  v = values.update(s);
  EXPECT_EQ(g_value_calls, 4);
  EXPECT_DOUBLE_EQ(*v[0], 0.25);
  EXPECT_DOUBLE_EQ(*v[2], 0.5);
  // Without revisions (a hand-built sample) every node is recomputed.
  s.node_revisions.clear();
  v = values.update(s);
  EXPECT_EQ(g_value_calls, 7);
  EXPECT_DOUBLE_EQ(*v[2], 0.0);
}

TEST(Collectors, NothingSeenMeansNothingReported) {
  StandardCollectors c;
  MetricValues m;
  c.finish(at_s(100), m);
  // Counts of an empty run are honest zeros; every ratio or mean is absent, never 0.
  for (const char* absent :
       {"gpu_util_stddev", "mean_wait_s", "nvlink_contention_rate", "lscs_mean", "jct_mean_s",
        "makespan_s", "gpu_allocation_rate", "gpu_frag_rate", "migration_rate",
        "nvlink_variance_mean", "fallback_activations", "throughput_jobs_per_hour"}) {
    EXPECT_EQ(m.count(absent), 0u) << absent;
  }
  EXPECT_DOUBLE_EQ(m.at("jobs_submitted"), 0.0);
  EXPECT_DOUBLE_EQ(m.at("oom_kills"), 0.0);
}

TEST(JobMetrics, WaitsCompletionTimesAndCounts) {
  JobMetricsCollector c;
  // a: submit 0, bound 100, succeeded 400. b: submit 0, bound 200, OOM at 250, restarted 260,
  // evicted 300 (migrated by the descheduler), succeeded 1000. c: submit 0, never bound.
  JobEvent migrated = job_event(300, JobEventKind::kEvicted, "b");
  migrated.cause = "migration";
  for (const auto& e :
       {job_event(0, JobEventKind::kSubmitted, "a"), job_event(0, JobEventKind::kSubmitted, "b"),
        job_event(0, JobEventKind::kSubmitted, "c"), job_event(100, JobEventKind::kBound, "a"),
        job_event(200, JobEventKind::kBound, "b"), job_event(250, JobEventKind::kOomKilled, "b"),
        job_event(260, JobEventKind::kRestarted, "b"), job_event(270, JobEventKind::kBound, "b"),
        migrated, job_event(400, JobEventKind::kSucceeded, "a"),
        job_event(1000, JobEventKind::kSucceeded, "b")}) {
    c.on_job(e);
  }
  MetricValues m;
  c.finish(at_s(3600), m);
  // Wait over bound jobs only: (100 + 200) / 2 = 150 (b's re-bind at 270 does not count).
  EXPECT_DOUBLE_EQ(m.at("mean_wait_s"), 150.0);
  // p95 of {100, 200}: 100 + 0.95 * 100.
  EXPECT_DOUBLE_EQ(m.at("wait_p95_s"), 195.0);
  EXPECT_DOUBLE_EQ(m.at("unscheduled_jobs"), 1.0);
  EXPECT_DOUBLE_EQ(m.at("oom_kills"), 1.0);
  EXPECT_DOUBLE_EQ(m.at("restarts"), 1.0);
  EXPECT_DOUBLE_EQ(m.at("evictions"), 1.0);
  // JCT {400, 1000}: mean 700, p50 700, p95 400 + 0.95 * 600 = 970, p99 400 + 0.99 * 600 = 994.
  EXPECT_DOUBLE_EQ(m.at("jct_mean_s"), 700.0);
  EXPECT_DOUBLE_EQ(m.at("jct_p50_s"), 700.0);
  EXPECT_DOUBLE_EQ(m.at("jct_p95_s"), 970.0);
  EXPECT_DOUBLE_EQ(m.at("jct_p99_s"), 994.0);
  // c never finished: no makespan; throughput over the run, 2 jobs in 1 h.
  EXPECT_EQ(m.count("makespan_s"), 0u);
  EXPECT_DOUBLE_EQ(m.at("throughput_jobs_per_hour"), 2.0);
  // Migration rate: 1 migrated attempt / 3 jobs, above 0.5%: the alert fires.
  EXPECT_DOUBLE_EQ(m.at("migration_rate"), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(m.at("migration_rate_alert"), 1.0);
  EXPECT_DOUBLE_EQ(m.at("jobs_submitted"), 3.0);
  EXPECT_DOUBLE_EQ(m.at("succeeded_jobs"), 2.0);
}

TEST(JobMetrics, MakespanWhenEveryJobEnded) {
  JobMetricsCollector c;
  // x: submit 10, success 1810. y: submit 20, failed 910. Makespan 1810 - 10 = 1800 s = 0.5 h:
  // throughput 1 succeeded / 0.5 h = 2 per hour. No eviction: migration rate 0, no alert.
  c.on_job(job_event(10, JobEventKind::kSubmitted, "x"));
  c.on_job(job_event(20, JobEventKind::kSubmitted, "y"));
  c.on_job(job_event(30, JobEventKind::kBound, "x"));
  c.on_job(job_event(40, JobEventKind::kBound, "y"));
  c.on_job(job_event(910, JobEventKind::kFailed, "y"));
  c.on_job(job_event(1810, JobEventKind::kSucceeded, "x"));
  MetricValues m;
  c.finish(at_s(5000), m);
  EXPECT_DOUBLE_EQ(m.at("makespan_s"), 1800.0);
  EXPECT_DOUBLE_EQ(m.at("throughput_jobs_per_hour"), 2.0);
  EXPECT_DOUBLE_EQ(m.at("failed_jobs"), 1.0);
  EXPECT_DOUBLE_EQ(m.at("jct_mean_s"), 1800.0);
  EXPECT_DOUBLE_EQ(m.at("migration_rate"), 0.0);
  EXPECT_DOUBLE_EQ(m.at("migration_rate_alert"), 0.0);
}

TEST(JobMetrics, WindowCountsOnlyItsJobs) {
  // run.job_window {first: 1, last: 2}: of four jobs submitted in the order w, x, y, z, only x
  // and y (the 2nd and 3rd submitted) count. x: JCT 500; y: JCT 1000; w and z end sooner and
  // would pull the mean down.
  JobMetricsOptions o;
  o.window = std::make_pair(1L, 2L);
  JobMetricsCollector c(o);
  c.on_job(job_event(0, JobEventKind::kSubmitted, "w"));
  c.on_job(job_event(0, JobEventKind::kSubmitted, "x"));
  c.on_job(job_event(100, JobEventKind::kSubmitted, "y"));
  c.on_job(job_event(200, JobEventKind::kSubmitted, "z"));
  for (const char* j : {"w", "x", "y", "z"}) {
    c.on_job(job_event(200, JobEventKind::kBound, j));
  }
  c.on_job(job_event(210, JobEventKind::kSucceeded, "w"));
  c.on_job(job_event(220, JobEventKind::kSucceeded, "z"));
  c.on_job(job_event(500, JobEventKind::kSucceeded, "x"));
  c.on_job(job_event(1100, JobEventKind::kSucceeded, "y"));
  MetricValues m;
  c.finish(at_s(2000), m);
  EXPECT_DOUBLE_EQ(m.at("jobs_submitted"), 2.0);
  EXPECT_DOUBLE_EQ(m.at("jct_mean_s"), 750.0);
  // x waited 200 s, y 100 s.
  EXPECT_DOUBLE_EQ(m.at("mean_wait_s"), 150.0);
  // From x's submission (0) to y's end (1100).
  EXPECT_DOUBLE_EQ(m.at("makespan_s"), 1100.0);
}

TEST(JobMetrics, SloViolationsCountJobsThatMissedTheirDeadline) {
  // Deadlines (seconds from submit): a 1,000 (succeeds at 900: met), b 1,000 (succeeds at 1,200:
  // missed), c 500 (fails at 100: missed, a failure cannot meet it), d 10,000 (unfinished at the
  // run's end: missed); e has none and is not counted. 3 of 4 missed.
  JobMetricsCollector c;
  const std::vector<std::pair<const char*, double>> deadlines = {
      {"a", 1000.0}, {"b", 1000.0}, {"c", 500.0}, {"d", 10000.0}, {"e", 0.0}};
  std::vector<JobFacts> facts(deadlines.size());
  for (std::size_t i = 0; i < deadlines.size(); ++i) {
    facts[i].deadline_s = deadlines[i].second;
    JobEvent e = job_event(0, JobEventKind::kSubmitted, deadlines[i].first);
    e.facts = &facts[i];
    c.on_job(e);
  }
  c.on_job(job_event(900, JobEventKind::kSucceeded, "a"));
  c.on_job(job_event(1200, JobEventKind::kSucceeded, "b"));
  c.on_job(job_event(100, JobEventKind::kFailed, "c"));
  c.on_job(job_event(50, JobEventKind::kSucceeded, "e"));
  MetricValues m;
  c.finish(at_s(2000), m);
  EXPECT_DOUBLE_EQ(m.at("slo_jobs"), 4.0);
  EXPECT_DOUBLE_EQ(m.at("slo_violations"), 3.0);
  EXPECT_DOUBLE_EQ(m.at("slo_violation_share"), 0.75);
  // Without a job with a deadline there is nothing to report.
  JobMetricsCollector none;
  none.on_job(job_event(0, JobEventKind::kSubmitted, "x"));
  MetricValues n;
  none.finish(at_s(10), n);
  EXPECT_FALSE(n.contains("slo_violations"));
}

JobRate rate(long t, std::string job, bool running, bool nvlink, double bw, double ideal) {
  JobRate r;
  r.at = at_s(t);
  r.job = std::move(job);
  r.running = running;
  r.nvlink_required = nvlink;
  r.collective_bandwidth = bw;
  r.ideal_collective_bandwidth = ideal;
  return r;
}

TEST(NvlinkContention, ShareOfNvlinkJobTimeBelowNinetyPercent) {
  NvlinkContentionCollector c;
  // j needs NVLink: full speed over [0, 10), 50% over [10, 30) (contended), 95% over [30, 40)
  // (not: 95 >= 90), stopped at 40. k needs NVLink and runs contended (10% and 80%) over
  // [0, 20) and again over [60, 80), the run's end.
  // n does not need NVLink: always ignored. s is single-GPU (ideal 0): ignored.
  c.on_rate(rate(0, "j", true, true, 100, 100));
  c.on_rate(rate(0, "k", true, true, 10, 100));
  c.on_rate(rate(0, "n", true, false, 1, 100));
  c.on_rate(rate(0, "s", true, true, 0, 0));
  c.on_rate(rate(10, "j", true, true, 50, 100));
  c.on_rate(rate(20, "k", false, true, 0, 100));
  c.on_rate(rate(30, "j", true, true, 95, 100));
  c.on_rate(rate(40, "j", false, true, 0, 100));
  c.on_rate(rate(60, "k", true, true, 80, 100));
  MetricValues m;
  c.finish(at_s(80), m);
  // counted: j 40 + k (20 + 20) = 80; contended: j 20 + k 40 = 60 -> 0.75.
  EXPECT_DOUBLE_EQ(m.at("nvlink_contention_rate"), 0.75);
  const auto totals = c.job_totals(at_s(80));
  EXPECT_DOUBLE_EQ(totals.at("j").counted_s, 40.0);
  EXPECT_DOUBLE_EQ(totals.at("j").contended_s, 20.0);
  EXPECT_DOUBLE_EQ(totals.at("s").counted_s, 0.0);
}

TEST(NvlinkContention, AbsentWithoutNvlinkJobs) {
  NvlinkContentionCollector c;
  c.on_rate(rate(0, "n", true, false, 1, 100));
  MetricValues m;
  c.finish(at_s(10), m);
  EXPECT_EQ(m.count("nvlink_contention_rate"), 0u);
}

TEST(Lscs, AlertAfterTenMinutesAboveFifteenPercent) {
  LscsCollector c;
  // One sample a minute, two 1-card nodes with 10 GiB cards. Minutes 0..14: 8 GiB and 4 GiB in
  // use (0.8 and 0.4: std-dev 0.2); minutes 15..29: 6 and 6 (std-dev 0). The run ends at 30 min.
  for (int minute = 0; minute < 30; ++minute) {
    const bool skewed = minute < 15;
    c.on_sample(sample(minute * 60, {memory_node("a", {skewed ? 8 * kGiB : 6 * kGiB}, 10 * kGiB),
                                     memory_node("b", {skewed ? 4 * kGiB : 6 * kGiB}, 10 * kGiB)}));
  }
  MetricValues m;
  c.finish(TimePoint{minutes(30)}, m);
  // Window (t - 5 min, t]: five samples. LSCS = 0.2 up to minute 14; minute 15 averages
  // minutes 11..15 = (4 * 0.2 + 0) / 5 = 0.16 (> 0.15); minute 16: 0.12; 17: 0.08; 18: 0.04;
  // 19..29: 0. Above 15% over [0, 16 min): longest 960 s, share 16 / 30.
  EXPECT_NEAR(m.at("lscs_longest_above_s"), 960.0, 1e-9);
  EXPECT_NEAR(m.at("lscs_time_above_share"), 16.0 / 30.0, 1e-12);
  EXPECT_DOUBLE_EQ(m.at("lscs_alert"), 1.0);
  EXPECT_NEAR(m.at("lscs_max"), 0.2, 1e-12);
  // Mean: (15 * 0.2 + 0.16 + 0.12 + 0.08 + 0.04) / 30 = 3.4 / 30 (each value holds 1 min).
  EXPECT_NEAR(m.at("lscs_mean"), 3.4 / 30.0, 1e-12);
  ASSERT_EQ(c.series().size(), 30u);
  EXPECT_NEAR(*c.series()[15].second, 0.16, 1e-12);
}

TEST(Lscs, NoAlertForAShortStretch) {
  LscsOptions options;
  LscsCollector c(options);
  // Skewed for 5 samples one minute apart (0..4 min), balanced after: LSCS above 15% for
  // minutes 0..5 at most (minute 5 averages 4 * 0.2 / 5 = 0.16), i.e. 6 min < 10 min.
  for (int minute = 0; minute < 20; ++minute) {
    const bool skewed = minute < 5;
    c.on_sample(sample(minute * 60, {memory_node("a", {skewed ? 8 * kGiB : 6 * kGiB}, 10 * kGiB),
                                     memory_node("b", {skewed ? 4 * kGiB : 6 * kGiB}, 10 * kGiB)}));
  }
  MetricValues m;
  c.finish(TimePoint{minutes(20)}, m);
  EXPECT_NEAR(m.at("lscs_longest_above_s"), 360.0, 1e-9);
  EXPECT_DOUBLE_EQ(m.at("lscs_alert"), 0.0);
}

// LSCS as it was computed before the window sum was kept incrementally: the window re-summed
// left to right at every sample.
std::vector<std::optional<double>> lscs_by_resumming(const std::vector<ClusterSample>& samples,
                                                     Duration window) {
  std::vector<std::pair<TimePoint, double>> kept;
  std::vector<std::optional<double>> out;
  for (const auto& smp : samples) {
    if (const auto sd = gpu_memory_utilization_stddev(smp)) {
      kept.emplace_back(smp.at, *sd);
    }
    double sum = 0.0;
    std::size_t n = 0;
    for (const auto& [t, v] : kept) {
      if (t > smp.at - window) {
        sum += v;
        ++n;
      }
    }
    out.push_back(n == 0 ? std::nullopt : std::optional<double>(sum / static_cast<double>(n)));
  }
  return out;
}

TEST(Lscs, IncrementalWindowGivesTheValuesOfResumming) {
  // Std-devs that are sums of powers of two (0.25, 0.125, 0.375 ...), whose window sums are exact
  // in doubles: the incremental sum must give the very same values as re-summing.
  std::vector<ClusterSample> samples;
  const std::int64_t used[] = {0, 2, 4, 6, 8, 1, 3, 7, 5, 8, 8, 0};
  for (int i = 0; i < 40; ++i) {
    samples.push_back(sample(i * 30, {memory_node("a", {used[i % 12] * kGiB}, 8 * kGiB),
                                      memory_node("b", {used[(i * 5) % 12] * kGiB}, 8 * kGiB)}));
  }
  LscsCollector c;
  for (const auto& smp : samples) {
    c.on_sample(smp);
  }
  const auto expected = lscs_by_resumming(samples, minutes(5));
  ASSERT_EQ(c.series().size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(c.series()[i].second, expected[i]) << "sample " << i;
  }
  // Std-devs with rounding (10 GiB cards, 3 nodes): re-summing rounds at every addition, the
  // incremental sum once, so they agree to the last bits of a double.
  samples.clear();
  for (int i = 0; i < 60; ++i) {
    samples.push_back(sample(i * 20, {memory_node("a", {(i % 7) * kGiB}, 10 * kGiB),
                                      memory_node("b", {(i % 3) * kGiB}, 10 * kGiB),
                                      memory_node("c", {(i % 11) * kGiB}, 10 * kGiB)}));
  }
  LscsCollector d;
  for (const auto& smp : samples) {
    d.on_sample(smp);
  }
  const auto resummed = lscs_by_resumming(samples, minutes(5));
  for (std::size_t i = 0; i < resummed.size(); ++i) {
    ASSERT_TRUE(d.series()[i].second && resummed[i]);
    EXPECT_DOUBLE_EQ(*d.series()[i].second, *resummed[i]) << "sample " << i;
  }
}

TEST(Lscs, OneMillisecondSamplesStayLinear) {
  // sample_interval: 1ms (the documented minimum) with the 5 min window: 300,000 samples in the
  // window. Re-summing it per sample never finished; ten minutes of samples now take well under
  // a second. Skewed (std-dev 0.2) for the first 5 min, balanced after.
  LscsCollector c;
  ClusterSample s;
  s.nodes = {memory_node("a", {8 * kGiB}, 10 * kGiB), memory_node("b", {4 * kGiB}, 10 * kGiB)};
  const long total = 600'000;
  for (long ms = 0; ms < total; ++ms) {
    if (ms == 300'000) {
      s.nodes[0].gpu_memory_used = {6 * kGiB};
      s.nodes[1].gpu_memory_used = {6 * kGiB};
    }
    s.at = TimePoint{std::chrono::milliseconds(ms)};
    c.on_sample(s);
  }
  ASSERT_EQ(c.series().size(), static_cast<std::size_t>(total));
  EXPECT_NEAR(*c.series()[299'999].second, 0.2, 1e-12);
  // At 450 s the window (150 s, 450 s] holds 300,000 samples, 149,999 of them skewed (150.001 s
  // to 299.999 s).
  EXPECT_NEAR(*c.series()[450'000].second, 0.2 * 149'999 / 300'000, 1e-12);
  EXPECT_EQ(*c.series().back().second, 0.0);
}

TEST(NvlinkVariance, PerNodeVarianceAcrossGpus) {
  NvlinkVarianceCollector c;
  NodeState a = node("a", {0, 0});
  a.nvlink_utilization = {0.8, 0.4};  // mean 0.6, variance (0.04 + 0.04) / 2 = 0.04 > 0.02
  NodeState b = node("b", {0, 0});
  b.nvlink_utilization = {0.5, 0.5};   // variance 0
  NodeState pcie = node("p", {0, 0});  // reports no NVLink utilisation: left out
  c.on_sample(sample(0, {a, b, pcie}));
  a.nvlink_utilization = {0.5, 0.5};
  c.on_sample(sample(10, {a, b, pcie}));
  MetricValues m;
  c.finish(at_s(20), m);
  // Per-sample mean over a and b: 0.02 over [0, 10), 0 over [10, 20) -> 0.01.
  EXPECT_NEAR(m.at("nvlink_variance_mean"), 0.01, 1e-12);
  EXPECT_NEAR(m.at("nvlink_variance_max"), 0.04, 1e-12);
  // Node-time above 0.02: half the nodes for half the time -> 0.25.
  EXPECT_NEAR(m.at("nvlink_variance_alert_share"), 0.25, 1e-12);
  EXPECT_DOUBLE_EQ(m.at("nvlink_variance_alert"), 1.0);
}

TEST(Fragmentation, ExplicitWorkloadOnTwoNodes) {
  FragmentationCollector c(
      FragmentationOptions{.task_shapes = {{.units = 1, .weight = 1}, {.units = 2, .weight = 1}}});
  // Two 4-GPU nodes: a has 3 allocated (1 free), b has 2 allocated (2 free).
  // F_a = 0.5 * 0 (a 1-GPU task fits) + 0.5 * 1 (a 2-GPU task does not) = 0.5; F_b = 0.
  // Idle 3 -> rate 0.5 / 3. At t=10 both nodes full: frag 0, idle 0 (no rate). End at t=20.
  c.on_sample(sample(0, {node("a", {}, 3, 4), node("b", {}, 2, 4)}));
  c.on_sample(sample(10, {node("a", {}, 4, 4), node("b", {}, 4, 4)}));
  MetricValues m;
  c.finish(at_s(20), m);
  EXPECT_DOUBLE_EQ(m.at("gpu_frag_gpus"), 0.25);  // (0.5 * 10 + 0 * 10) / 20
  EXPECT_DOUBLE_EQ(m.at("gpu_frag_rate"), 0.5 / 3.0);
}

TEST(Fragmentation, WorkloadDerivedFromJobsCountsPods) {
  FragmentationCollector c;
  // x asks 2 GPUs as two pods (1 GPU each); y asks 2 GPUs in one pod; z asks 4 (never bound: one
  // pod of 4). Pods: two of 1 unit, one of 2, one of 4 -> p = 0.5, 0.25, 0.25.
  c.on_job(job_event(0, JobEventKind::kSubmitted, "x", 2));
  c.on_job(job_event(0, JobEventKind::kSubmitted, "y", 2));
  c.on_job(job_event(0, JobEventKind::kSubmitted, "z", 4));
  c.on_job(job_event(1, JobEventKind::kBound, "x", 2, "x-0"));
  c.on_job(job_event(1, JobEventKind::kBound, "x", 2, "x-1"));
  c.on_job(job_event(1, JobEventKind::kBound, "y", 2, "y-0"));
  const auto shapes = c.task_shapes();
  ASSERT_EQ(shapes.size(), 3u);
  EXPECT_EQ(shapes[0].units, 1);
  EXPECT_DOUBLE_EQ(shapes[0].weight, 0.5);
  EXPECT_EQ(shapes[2].units, 4);
  EXPECT_DOUBLE_EQ(shapes[2].weight, 0.25);
  // One node with 3 free of 4: the 4-GPU task cannot use them: F = 0.25 * 3 = 0.75, rate 0.25.
  c.on_sample(sample(0, {node("a", {}, 1, 4)}));
  MetricValues m;
  c.finish(at_s(10), m);
  EXPECT_DOUBLE_EQ(m.at("gpu_frag_gpus"), 0.75);
  EXPECT_DOUBLE_EQ(m.at("gpu_frag_rate"), 0.25);
}

TEST(SchedulingMetrics, FallbackActivationsCountEntries) {
  SchedulingMetricsCollector c;
  // Stages 0, 1, 1, 0, 2 (the last without a node): 5 cycles, 3 in fallback, entered twice,
  // one at stage 2, one unschedulable.
  const int stages[] = {0, 1, 1, 0, 2};
  for (int i = 0; i < 5; ++i) {
    SchedulingEvent e;
    e.at = at_s(i);
    e.pod = "p";
    e.node = i == 4 ? "" : "n";
    e.fallback_stage = stages[i];
    c.on_scheduling(e);
  }
  MetricValues m;
  c.finish(at_s(10), m);
  EXPECT_DOUBLE_EQ(m.at("scheduling_cycles"), 5.0);
  EXPECT_DOUBLE_EQ(m.at("fallback_cycles"), 3.0);
  EXPECT_DOUBLE_EQ(m.at("fallback_activations"), 2.0);
  EXPECT_DOUBLE_EQ(m.at("fallback_stage2_cycles"), 1.0);
  EXPECT_DOUBLE_EQ(m.at("unschedulable_cycles"), 1.0);
}

TEST(StandardCollectors, AttachedToSignalsGivesTheSameNumbers) {
  RunSignals signals;
  StandardCollectors c;
  c.attach(signals);
  signals.job.emit(job_event(0, JobEventKind::kSubmitted, "a"));
  signals.job.emit(job_event(30, JobEventKind::kBound, "a"));
  signals.job.emit(job_event(90, JobEventKind::kSucceeded, "a"));
  signals.sample.emit(sample(0, {node("a", {1.0}, 1, 1), node("b", {0.0}, 0, 1)}));
  signals.rate.emit(rate(30, "a", true, true, 10, 100));
  MetricValues m;
  c.finish(at_s(90), m);
  EXPECT_DOUBLE_EQ(m.at("mean_wait_s"), 30.0);
  EXPECT_DOUBLE_EQ(m.at("gpu_util_stddev"), 0.5);
  EXPECT_DOUBLE_EQ(m.at("nvlink_contention_rate"), 1.0);
  EXPECT_DOUBLE_EQ(m.at("makespan_s"), 90.0);
}

TEST(Catalog, EveryProducedMetricIsCatalogued) {
  StandardCollectors c;
  JobFacts facts;
  facts.deadline_s = 100.0;  // the SLO metrics too
  JobEvent submit = job_event(0, JobEventKind::kSubmitted, "a");
  submit.facts = &facts;
  c.on_job(submit);
  c.on_job(job_event(1, JobEventKind::kBound, "a", 1, "a-0"));
  c.on_job(job_event(5, JobEventKind::kSucceeded, "a"));
  NodeState n = memory_node("a", {kGiB}, 2 * kGiB);
  n.nvlink_utilization = {0.1};
  n.gpus_allocatable = 1;
  c.on_sample(sample(0, {n}));
  c.on_rate(rate(1, "a", true, true, 1, 1));
  SchedulingEvent e;
  c.on_scheduling(e);
  MetricValues m;
  c.finish(at_s(10), m);
  for (const auto& [name, value] : m) {
    EXPECT_NE(find_metric(name), nullptr) << name;
  }
  for (const auto name : seed_metric_names()) {
    EXPECT_NE(find_metric(name), nullptr) << name;
  }
}

}  // namespace
}  // namespace tidesim::metrics
