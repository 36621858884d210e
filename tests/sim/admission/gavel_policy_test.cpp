// Gavel's policies behind the job-level interface (sim/admission/gavel_policy.hpp): the rounds'
// decisions worked by hand on three single-GPU jobs and two GPU types of one GPU each (node-a a
// V100, node-b a P100), throughputs (4, 1), (2, 1) and (3, 3) steps/s: the case of
// gavel_allocation_test.cpp, here as the decisions a run acts on.
#include "tidesim/sim/admission/gavel_policy.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "tidesim/sim/admission/job_policy_registry.hpp"
#include "tidesim/workloads/gavel_jobs.hpp"

namespace tidesim {
namespace {

using namespace std::chrono_literals;
using Names = std::vector<std::string>;

ClusterView cluster() {
  ClusterView c;
  for (const auto& [name, model] : {std::pair{"node-a", "V100-SXM2-16"}, {"node-b", "P100"}}) {
    NodeInfo n;
    n.node.name = name;
    n.node.labels["nvidia.com/gpu.product"] = model;
    n.node.allocatable.gpus = 1;
    c.nodes.push_back(n);
  }
  return c;
}

JobView job(int id, double a, double b, std::vector<std::string> on = {}) {
  JobView j;
  j.id = id;
  j.name = "job-" + std::to_string(id);
  j.order = id;
  j.gpus = 1;
  j.steps = 100'000;
  j.steps_left = 100'000;
  j.throughputs = {{"V100-SXM2-16", a}, {"P100", b}};
  j.admitted = !on.empty();
  j.nodes = std::move(on);
  return j;
}

JobPolicyState at(TimePoint now, std::vector<JobView> jobs, const ClusterView& c) {
  JobPolicyState s;
  s.now = now;
  s.jobs = std::move(jobs);
  s.capacity_gpus = 2;
  s.cluster = &c;
  return s;
}

AdmissionConfig gavel(const std::string& policy) {
  AdmissionConfig c;
  c.policy = "gavel";
  c.args = {{"policy", policy}};
  return c;
}

// The error GavelPolicy's constructor throws for `config`, "" when it accepts it.
std::string construction_error(const AdmissionConfig& config) {
  try {
    GavelPolicy p(config);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// max_min_fairness_perf: X = [[0.5, 0], [0.5, 0.2], [0, 0.8]] (gavel_allocation_test.cpp). Every
// job starts with 180 s on each type (half a 360 s round), so the priorities are 3X: on the V100
// jobs 0 and 1 tie at 1.5 (arrival order: job 0), on the P100 job 2 has 2.4.
// Round 2 (360 s): times on the V100 are 540, 180, 180 of 900, so job 1 has 0.5 / 0.2 = 2.5 and
// job 0 0.83; on the P100 job 2 has 0.8 / (540/900) = 1.33, more than job 1's 0.2 / 0.2: job 2
// keeps node-b (a lease extension, 1 of 2 opportunities) and job 0 is suspended.
TEST(GavelPolicy, MaxMinFairnessRoundsWithALeaseExtension) {
  const ClusterView c = cluster();
  GavelPolicy p(gavel("max_min_fairness_perf"));
  const JobDecision d0 = p.decide(at(TimePoint(0s), {job(0, 4, 1), job(1, 2, 1), job(2, 3, 3)}, c));
  // Jobs 0 and 1 tie on the V100 in exact arithmetic; CLP's last digits break the tie.
  ASSERT_EQ(d0.run.size(), 2U);
  EXPECT_EQ(d0.run.back(), 2);
  const int first = d0.run.front();
  EXPECT_EQ(d0.pod_nodes.at(first), (Names{"node-a"}));
  EXPECT_EQ(d0.pod_nodes.at(2), (Names{"node-b"}));
  EXPECT_TRUE(d0.move.empty());
  EXPECT_EQ(p.interval(), Duration(360s));
  std::vector<JobView> running = {job(0, 4, 1), job(1, 2, 1), job(2, 3, 3, {"node-b"})};
  running[static_cast<std::size_t>(first)] = job(first, first == 0 ? 4 : 2, 1, {"node-a"});
  // Between rounds (an arrival or an end) nothing changes.
  const JobDecision mid = p.decide(at(TimePoint(100s), running, c));
  EXPECT_EQ(mid.run, d0.run);
  EXPECT_EQ(p.interval(), Duration(260s));
  // Round 2: the other of jobs 0 and 1 takes the V100 (it received 180 s of 900 there); job 2
  // keeps node-b, a lease extension (1 of the 2 jobs placed in round 1).
  const JobDecision d1 = p.decide(at(TimePoint(360s), running, c));
  EXPECT_EQ(d1.run, (std::vector<int>{1 - first, 2}));
  EXPECT_TRUE(d1.move.empty());
  EXPECT_EQ(p.lease_extensions(), 1);
  EXPECT_EQ(p.lease_extension_opportunities(), 2);
}

// restart_overhead (Shockwave's simulator, gavel_restart.hpp) on the case above: the first round
// charges nobody; in round 2 the job back on the V100 (away in round 1) starts 20 s late, job 2
// (kept on the P100) does not; a decision within the round repeats no delay for the jobs now
// admitted.
TEST(GavelPolicy, RestartOverheadDelaysAJobBackFromARoundAway) {
  const ClusterView c = cluster();
  AdmissionConfig config = gavel("max_min_fairness_perf");
  config.args["restart_overhead"] = "20";
  GavelPolicy p(config);
  const JobDecision d0 = p.decide(at(TimePoint(0s), {job(0, 4, 1), job(1, 2, 1), job(2, 3, 3)}, c));
  ASSERT_EQ(d0.run.size(), 2U);
  EXPECT_TRUE(d0.start_delay.empty());
  const int first = d0.run.front();
  std::vector<JobView> running = {job(0, 4, 1), job(1, 2, 1), job(2, 3, 3, {"node-b"})};
  running[static_cast<std::size_t>(first)] = job(first, first == 0 ? 4 : 2, 1, {"node-a"});
  const JobDecision d1 = p.decide(at(TimePoint(360s), running, c));
  EXPECT_EQ(d1.run, (std::vector<int>{1 - first, 2}));
  EXPECT_EQ(d1.start_delay, (std::map<int, Duration>{{1 - first, Duration(20s)}}));
  std::vector<JobView> now = running;
  now[static_cast<std::size_t>(first)] = job(first, first == 0 ? 4 : 2, 1);
  now[static_cast<std::size_t>(1 - first)] = job(1 - first, first == 0 ? 2 : 4, 1, {"node-a"});
  EXPECT_TRUE(p.decide(at(TimePoint(400s), now, c)).start_delay.empty());
  config.args["restart_overhead"] = "-1";
  EXPECT_THROW(GavelPolicy bad(config), std::invalid_argument);
}

// Three rounds of 360 s of gandiva_fair on one V100 (node-a) for job 0 (4 steps/s) and job 1
// (`slow` steps/s), X = 1/2 each: job 0 runs in the first, job 1 in the second; the decisions of
// the second and the third.
std::pair<JobDecision, JobDecision> two_jobs_three_rounds(const AdmissionConfig& config,
                                                          double slow) {
  ClusterView c = cluster();
  c.nodes.pop_back();
  GavelPolicy p(config);
  EXPECT_EQ(p.decide(at(TimePoint(0s), {job(0, 4, 1), job(1, slow, 1)}, c)).run,
            (std::vector<int>{0}));
  JobDecision second =
      p.decide(at(TimePoint(360s), {job(0, 4, 1, {"node-a"}), job(1, slow, 1)}, c));
  EXPECT_EQ(second.run, (std::vector<int>{1}));
  return {second, p.decide(at(TimePoint(720s), {job(0, 4, 1), job(1, slow, 1, {"node-a"})}, c))};
}

// The restart overhead is not time received (Shockwave's simulator, scheduler.py `simulate`:
// `execution_time -= preemption_overhead`), on two_jobs_three_rounds with job 1 at 2 steps/s,
// each job starting from 180 s received. Round 1 (no overhead in the first round): job 0 (a tie,
// arrival order). Round 2: job 0 has received 540 s, job 1 180 s, of 360 s worked, so job 1
// runs, back from a round away: it starts 20 s late and is credited 340 s. Round 3: job 0 540 of
// 700 s (fraction 0.771), job 1 520 (0.743): job 1 keeps the V100. Without the overhead both
// have 540 of 720 and job 0 takes it back (arrival order).
TEST(GavelPolicy, RestartOverheadIsNotCreditedAsTimeReceived) {
  AdmissionConfig config = gavel("gandiva_fair");
  config.args["restart_overhead"] = "20";
  const auto [second, third] = two_jobs_three_rounds(config, 2.0);
  EXPECT_EQ(second.start_delay, (std::map<int, Duration>{{1, Duration(20s)}}));
  EXPECT_EQ(third.run, (std::vector<int>{1}));
  config.args["restart_overhead"] = "0";
  const auto [second_free, third_free] = two_jobs_three_rounds(config, 2.0);
  EXPECT_TRUE(second_free.start_delay.empty());
  EXPECT_EQ(third_free.run, (std::vector<int>{0}));
}

// credit: steps credits a round as the artifacts' simulators do, the micro-task's whole steps at
// the job's throughput: two_jobs_three_rounds with job 0 at 4 steps/s (floor(4 x 360) = 1,440
// steps, 360 s) and job 1 at 1.001 (floor(360.36) = 360 steps, 359.64 s). Round 1: job 0 (a
// tie, arrival order), credited 360 s; round 2: job 1 (180 s against 540), credited 359.64 s;
// round 3: job 1 has 539.64 s, job 0 540, so job 1 keeps the V100. Crediting the round, both
// have 540 s and job 0 takes it back. A bad value is an error naming the argument.
TEST(GavelPolicy, CreditStepsCreditsTheMicroTask) {
  AdmissionConfig config = gavel("gandiva_fair");
  config.args["credit"] = "steps";
  EXPECT_EQ(two_jobs_three_rounds(config, 1.001).second.run, (std::vector<int>{1}));
  config.args["credit"] = "round";
  EXPECT_EQ(two_jobs_three_rounds(config, 1.001).second.run, (std::vector<int>{0}));
  config.args["credit"] = "time";
  EXPECT_NE(construction_error(config).find("credit"), std::string::npos);
}

// The first round of other policies on the same jobs, from their hand-worked X
// (gavel_allocation_test.cpp, gavel_allox_gandiva_test.cpp):
// - max_sum_throughput_perf: the V100 to job 0, the P100 to job 2;
// - fifo_perf: job 0 on its fastest type (the V100), job 1 on the type left (the P100);
// - allox: the V100 runs job 0 first, the P100 job 2;
// - gandiva_fair: an equal share of 1/3 of each type for every job, so equal priorities and the
//   first two jobs by arrival run (on types in a shuffled order).
TEST(GavelPolicy, FirstRoundOfEachPolicy) {
  const ClusterView c = cluster();
  const std::vector<std::pair<std::string, std::vector<int>>> cases = {
      {"finish_time_fairness_perf", {0, 2}},
      {"max_sum_throughput_perf", {0, 2}},
      {"fifo_perf", {0, 1}},
      {"allox", {0, 2}},
      {"gandiva_fair", {0, 1}}};
  for (const auto& [name, run] : cases) {
    GavelPolicy p(gavel(name));
    const JobDecision d =
        p.decide(at(TimePoint(0s), {job(0, 4, 1), job(1, 2, 1), job(2, 3, 3)}, c));
    EXPECT_EQ(d.run, run) << name;
  }
}

// max_sum_throughput_normalized_by_cost_perf (Gavel's ThroughputNormalizedByCostSumWithPerf):
// job 0 of throughputs (4, 3) and job 1 of (3, 1) on the V100 and the P100, one GPU each. The
// optimum is an assignment (the polytope's vertices are matchings; one job alone gives at most
// 4). By throughput: job 1 on the V100 and job 0 on the P100 (3 + 3 = 6 against 4 + 1 = 5). At
// prices 1 and 10 per hour: job 0 on the V100 and job 1 on the P100 (4 + 0.1 = 4.1 against
// 3 + 0.3 = 3.3). Each job's priority is 0 on the type X gives it none of, so the walk places it
// on its X's type. (One job alone would take the V100 whatever X says: Gavel's walk places a job
// of priority 0 on an idle GPU, FIFO excepted.)
TEST(GavelPolicy, PricesChooseTheCheaperType) {
  const ClusterView c = cluster();
  GavelPolicy plain(gavel("max_sum_throughput_perf"));
  const JobDecision fast = plain.decide(at(TimePoint(0s), {job(0, 4, 3), job(1, 3, 1)}, c));
  EXPECT_EQ(fast.run, (std::vector<int>{0, 1}));
  EXPECT_EQ(fast.pod_nodes.at(0), (Names{"node-b"}));
  EXPECT_EQ(fast.pod_nodes.at(1), (Names{"node-a"}));
  AdmissionConfig by_cost = gavel("max_sum_throughput_normalized_by_cost_perf");
  by_cost.args["prices"] = "V100-SXM2-16:1,P100:10";
  GavelPolicy cheap(by_cost);
  const JobDecision d = cheap.decide(at(TimePoint(0s), {job(0, 4, 3), job(1, 3, 1)}, c));
  EXPECT_EQ(d.run, (std::vector<int>{0, 1}));
  EXPECT_EQ(d.pod_nodes.at(0), (Names{"node-a"}));
  EXPECT_EQ(d.pod_nodes.at(1), (Names{"node-b"}));
}

// max_sum_throughput_normalized_by_cost_perf_SLOs, prices 1 and 1: the jobs of
// PricesChooseTheCheaperType, throughputs (4, 3) and (3, 1), 100,000 steps left each. Without an
// SLO job 1 takes the V100 (3 + 3 > 4 + 1). Job 0 with SLO 250.63 x its 100 s alone: 25,063 s to
// its deadline, so it needs 100,000 / 25,063 = 3.99 steps/s, which only 0.99 of the V100 gives
// (4 x 0.99 + 3 x 0.01); job 1 then has 0.99 of the P100, and job 0 runs on the V100.
TEST(GavelPolicy, AnSloMovesAJobToTheFasterType) {
  const ClusterView c = cluster();
  workloads::JobSpec spec;
  spec.measured = std::make_shared<const workloads::GavelSpeed>(
      std::map<std::string, std::vector<workloads::SpeedSegment>>{
          {"V100-SXM2-16", {{.end = 1e5, .seconds = 0.25, .steps_per_unit = 1.0}}}},
      "V100-SXM2-16", 100.0, 1e5, workloads::EpochProfile{}, nullptr, workloads::JobTypeKey{}, 1.0,
      250.63);
  AdmissionConfig config = gavel("max_sum_throughput_normalized_by_cost_perf_SLOs");
  config.args["prices"] = "V100-SXM2-16:1,P100:1";
  JobView with_slo = job(0, 4, 3);
  with_slo.spec = &spec;
  const JobDecision d = GavelPolicy(config).decide(at(TimePoint(0s), {with_slo, job(1, 3, 1)}, c));
  EXPECT_EQ(d.pod_nodes.at(0), (Names{"node-a"}));
  EXPECT_EQ(d.pod_nodes.at(1), (Names{"node-b"}));
  const JobDecision none =
      GavelPolicy(config).decide(at(TimePoint(0s), {job(0, 4, 3), job(1, 3, 1)}, c));
  EXPECT_EQ(none.pod_nodes.at(0), (Names{"node-b"}));
  EXPECT_EQ(none.pod_nodes.at(1), (Names{"node-a"}));
  EXPECT_NE(construction_error(gavel("max_sum_throughput_normalized_by_cost_perf_SLOs"))
                .find("needs prices"),
            std::string::npos);
}

TEST(GavelPolicy, BadPricesAreErrors) {
  const ClusterView c = cluster();
  AdmissionConfig config = gavel("max_sum_throughput_normalized_by_cost_perf");
  EXPECT_NE(construction_error(config).find("needs prices"), std::string::npos);
  config.args["prices"] = "V100-SXM2-16";
  EXPECT_NE(construction_error(config).find("MODEL:PRICE"), std::string::npos);
  config.args["prices"] = "V100-SXM2-16:0";
  EXPECT_NE(construction_error(config).find("above 0"), std::string::npos);
  config.args["prices"] = "P100:1,P100:2";
  EXPECT_NE(construction_error(config).find("twice"), std::string::npos);
  config.args["prices"] = "P100:cheap";
  EXPECT_NE(construction_error(config).find("prices[P100] must be a number"), std::string::npos);
  // A model of the cluster without a price: an error at the first decision.
  config.args["prices"] = "V100-SXM2-16:3";
  GavelPolicy p(config);
  try {
    (void)p.decide(at(TimePoint(0s), {job(0, 4, 1)}, c));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "gavel: prices has no price for GPU model 'P100'");
  }
}

TEST(GavelPolicy, RegisteredAndItsArgumentsChecked) {
  EXPECT_NE(make_job_policy(gavel("max_min_fairness")), nullptr);
  EXPECT_THROW(GavelPolicy(gavel("lottery")), std::invalid_argument);
  AdmissionConfig bad = gavel("fifo");
  bad.args["round"] = "-1";
  EXPECT_THROW((GavelPolicy(bad)), std::invalid_argument);
  bad.args.erase("round");
  bad.args["speed"] = "1";
  EXPECT_THROW((GavelPolicy(bad)), std::invalid_argument);
}

// packing_threshold: fifo_packed's only, a number >= 0; every packing variant is a policy, and the
// cost-aware one needs prices.
TEST(GavelPolicy, PackingVariantsAndTheirArgumentsChecked) {
  for (const char* name :
       {"fifo_packed", "finish_time_fairness_packed", "min_total_duration_packed",
        "max_min_fairness_water_filling_packed", "max_min_fairness_packed"}) {
    EXPECT_EQ(construction_error(gavel(name)), "") << name;
  }
  AdmissionConfig fifo = gavel("fifo_packed");
  fifo.args["packing_threshold"] = "1.2";
  EXPECT_EQ(construction_error(fifo), "");
  fifo.args["packing_threshold"] = "high";
  EXPECT_NE(construction_error(fifo).find("gavel: packing_threshold must be a number"),
            std::string::npos);
  fifo.args["packing_threshold"] = "-1";
  EXPECT_NE(construction_error(fifo).find("packing_threshold"), std::string::npos);
  AdmissionConfig other = gavel("max_min_fairness_packed");
  other.args["packing_threshold"] = "1.2";
  EXPECT_EQ(construction_error(other),
            "gavel: packing_threshold applies to fifo_packed only, not 'max_min_fairness_packed'");
  AdmissionConfig slos = gavel("max_sum_throughput_normalized_by_cost_packed_SLOs");
  EXPECT_NE(construction_error(slos).find("needs prices"), std::string::npos);
  slos.args["prices"] = "V100-SXM2-16:2.48,P100:1.46";
  EXPECT_EQ(construction_error(slos), "");
}

// lp_method: simplex, interior or centre; interior only for a policy that solves a linear
// program, centre only for finish_time_fairness and its _perf form; an error names the argument.
// max_min_fairness_perf solved as an interior point on this cluster has the unique X of
// gavel_allocation_test.cpp, so the first round is the simplex's: job 0 or 1 on the V100 (tied at
// priority 1.5 in exact arithmetic), job 2 on the P100.
TEST(GavelPolicy, LpMethodChecked) {
  AdmissionConfig config = gavel("max_min_fairness_perf");
  config.args["lp_method"] = "barrier";
  EXPECT_EQ(construction_error(config),
            "gavel: lp_method must be simplex, interior, central, ecos or centre, not 'barrier'");
  config.args["lp_method"] = "centre";
  EXPECT_EQ(construction_error(config),
            "gavel: lp_method: centre applies to finish_time_fairness and "
            "finish_time_fairness_perf, not 'max_min_fairness_perf'");
  for (const char* ftf : {"finish_time_fairness", "finish_time_fairness_perf"}) {
    AdmissionConfig centred = gavel(ftf);
    centred.args["lp_method"] = "centre";
    EXPECT_EQ(construction_error(centred), "") << ftf;
  }
  for (const char* one_lp : {"max_min_fairness", "max_min_fairness_perf", "min_total_duration",
                             "min_total_duration_perf", "max_sum_throughput_perf",
                             "max_sum_throughput_normalized_by_cost_perf_SLOs"}) {
    for (const char* method : {"central", "ecos"}) {
      AdmissionConfig central = gavel(one_lp);
      central.args["lp_method"] = method;
      central.args["prices"] = "V100-SXM2-16:2.48";
      EXPECT_EQ(construction_error(central), "") << one_lp << " " << method;
    }
  }
  for (const char* not_one_lp :
       {"finish_time_fairness", "max_min_fairness_packed", "max_min_fairness_water_filling",
        "max_sum_throughput_normalized_by_cost_packed_SLOs", "fifo", "shockwave"}) {
    AdmissionConfig central = gavel(not_one_lp);
    central.args["lp_method"] = "central";
    central.args["prices"] = "V100-SXM2-16:2.48";
    EXPECT_EQ(construction_error(central),
              std::string("gavel: lp_method: central applies to max_min_fairness(_perf), "
                          "min_total_duration(_perf) and max_sum_throughput*_perf*, not '") +
                  not_one_lp + "'");
    central.args["lp_method"] = "ecos";
    EXPECT_EQ(construction_error(central),
              std::string("gavel: lp_method: ecos applies to max_min_fairness(_perf), "
                          "min_total_duration(_perf) and max_sum_throughput*_perf*, not '") +
                  not_one_lp + "'");
  }
  config.args["lp_method"] = "interior";
  EXPECT_EQ(construction_error(config), "");
  for (const char* other : {"allox", "gandiva_fair", "fifo_perf", "isolated"}) {
    AdmissionConfig no_lp = gavel(other);
    no_lp.args["lp_method"] = "interior";
    EXPECT_NE(construction_error(no_lp).find("lp_method: interior applies to"), std::string::npos)
        << other;
    no_lp.args["lp_method"] = "simplex";
    EXPECT_EQ(construction_error(no_lp), "") << other;
  }
  EXPECT_TRUE(gavel_solves_lp("max_sum_throughput_normalized_by_cost_perf"));
  EXPECT_FALSE(gavel_solves_lp("shockwave"));
  const ClusterView c = cluster();
  GavelPolicy p(config);
  const JobDecision d = p.decide(at(TimePoint(0s), {job(0, 4, 1), job(1, 2, 1), job(2, 3, 3)}, c));
  ASSERT_EQ(d.run.size(), 2U);
  EXPECT_LE(d.run.front(), 1);
  EXPECT_EQ(d.run.back(), 2);
  EXPECT_EQ(d.pod_nodes.at(d.run.front()), (Names{"node-a"}));
  EXPECT_EQ(d.pod_nodes.at(2), (Names{"node-b"}));
}

// Water filling with entities by local queue: three jobs of throughput 1 on both GPUs, jobs 0
// and 1 in queue "a" (FIFO), job 2 in queue "b", weights 1 and 1. Round 1 of the loop gives jobs
// 0 and 2 a GPU's worth each (job 1 has weight 0 while job 0 runs), and job 1 none
// (gavel_water_filling_test.cpp, AFifoEntityRunsItsFirstJobFirst): jobs 0 and 2 run. Without
// entities every job has 2/3 of a GPU, and two of them run.
TEST(GavelPolicy, WaterFillingEntitiesByLocalQueue) {
  const ClusterView c = cluster();
  std::vector<workloads::JobSpec> specs(3);
  for (std::size_t i = 0; i < specs.size(); ++i) {
    specs[i].pod_template.labels[workloads::kQueueNameLabel] = i < 2 ? "a" : "b";
  }
  const auto jobs = [&] {
    std::vector<JobView> v = {job(0, 1, 1), job(1, 1, 1), job(2, 1, 1)};
    for (std::size_t i = 0; i < v.size(); ++i) {
      v[i].spec = &specs[i];
    }
    return v;
  };
  AdmissionConfig config = gavel("max_min_fairness_water_filling_perf");
  EXPECT_EQ(GavelPolicy(config).decide(at(TimePoint(0s), jobs(), c)).run.size(), 2U);
  config.args["entities"] = "a:1:fifo,b:1:fairness";
  EXPECT_EQ(GavelPolicy(config).decide(at(TimePoint(0s), jobs(), c)).run, (std::vector<int>{0, 2}));
  specs[2].pod_template.labels[workloads::kQueueNameLabel] = "c";
  GavelPolicy unknown(config);
  EXPECT_THROW((void)unknown.decide(at(TimePoint(0s), jobs(), c)), std::invalid_argument);
  for (const char* bad : {"a:1", "a:0:fifo", "a:1:lottery", "a:1:fifo,a:2:fifo"}) {
    config.args["entities"] = bad;
    EXPECT_NE(construction_error(config).find("gavel: entities"), std::string::npos) << bad;
  }
  AdmissionConfig plain = gavel("max_min_fairness_perf");
  plain.args["entities"] = "a:1:fifo";
  EXPECT_NE(construction_error(plain).find("entities apply to max_min_fairness_water_filling"),
            std::string::npos);
}

// A job without throughputs (not from Gavel's table) can run nowhere: an error, not a silent
// allocation.
TEST(GavelPolicy, AJobWithoutThroughputsIsAnError) {
  const ClusterView c = cluster();
  GavelPolicy p(gavel("max_min_fairness_perf"));
  JobView j = job(0, 0, 0);
  j.throughputs.clear();
  EXPECT_THROW((void)p.decide(at(TimePoint(0s), {j}, c)), gavel::AllocationError);
}

}  // namespace
}  // namespace tidesim
