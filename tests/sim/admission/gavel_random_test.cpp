// Every Gavel policy on random problems (sim/admission/gavel_*.hpp): each answer meets Gavel's
// base constraints (the agnostic FIFO: one whole type per job or none), or is an
// AllocationError; nothing else escapes.
#include <gtest/gtest.h>

#include <functional>

#include "tidesim/sim/admission/gavel_allox.hpp"
#include "tidesim/sim/admission/gavel_fifo.hpp"
#include "tidesim/sim/admission/gavel_ftf.hpp"
#include "tidesim/sim/admission/gavel_gandiva.hpp"
#include "tidesim/sim/admission/gavel_lp_policies.hpp"
#include "tidesim/sim/admission/gavel_water_filling.hpp"
#include "tidesim/sim/engine/random.hpp"

namespace tidesim::gavel {
namespace {

constexpr double kTol = 1e-6;

AllocationProblem random_problem(RandomStream& rng, bool single_gpu) {
  AllocationProblem p;
  const std::size_t types = 1 + rng.uniform_int(3);
  const char* names[] = {"v100", "p100", "k80"};
  for (std::size_t t = 0; t < types; ++t) {
    p.cluster.gpu_types.push_back(names[t]);
    p.cluster.gpus.push_back(static_cast<int>(rng.uniform_int(6)));
  }
  const int jobs = static_cast<int>(rng.uniform_int(9));
  for (int j = 0; j < jobs; ++j) {
    AllocationJob job;
    job.id = j;
    for (std::size_t t = 0; t < types; ++t) {
      job.throughput.push_back(rng.uniform01() < 0.2 ? 0.0 : rng.uniform(0.01, 100.0));
    }
    job.throughput[rng.uniform_int(types)] = rng.uniform(0.01, 100.0);  // runs somewhere
    job.scale_factor = single_gpu ? 1 : 1 << rng.uniform_int(3);
    job.priority_weight = rng.uniform01() < 0.2 ? 5.0 : 1.0;
    job.time_since_start_s = rng.uniform(0.0, 1e5);
    job.steps_remaining = rng.uniform01() < 0.1 ? 0.0 : rng.uniform(1.0, 1e7);
    job.slo_s = rng.uniform01() < 0.3 ? rng.uniform(10.0, 1e6) : 0.0;
    p.jobs.push_back(job);
  }
  p.colocated = [&p](std::size_t a, std::size_t b, std::size_t t) -> std::optional<Colocated> {
    const double f = 0.3 + 0.1 * static_cast<double>((a + 2 * b + t) % 5);
    return Colocated{f * p.jobs[a].throughput[t], f * p.jobs[b].throughput[t]};
  };
  return p;
}

void expect_feasible(const AllocationProblem& p, const Allocation& x,
                     const std::vector<PairShare>& pairs, const std::string& what) {
  ASSERT_EQ(x.size(), p.jobs.size()) << what;
  std::vector<double> used(p.cluster.gpus.size(), 0.0);
  std::vector<double> share(p.jobs.size(), 0.0);
  for (std::size_t j = 0; j < x.size(); ++j) {
    for (std::size_t t = 0; t < used.size(); ++t) {
      ASSERT_GE(x[j][t], 0.0) << what;
      used[t] += x[j][t] * p.jobs[j].scale_factor;
      share[j] += x[j][t];
    }
  }
  for (const PairShare& pair : pairs) {
    for (std::size_t t = 0; t < used.size(); ++t) {
      used[t] += pair.share[t] * p.jobs[pair.a].scale_factor;
      share[pair.a] += pair.share[t];
      share[pair.b] += pair.share[t];
    }
  }
  for (std::size_t t = 0; t < used.size(); ++t) {
    EXPECT_LE(used[t], p.cluster.gpus[t] + kTol) << what << " type " << t;
  }
  for (const double s : share) {
    EXPECT_LE(s, 1.0 + kTol) << what;
  }
}

// Runs `f`, a policy's answer and its checks: true when it answers, false when the policy refuses
// with an AllocationError; any other exception fails the test, named by `what`.
bool answers(const std::string& what, const std::function<void()>& f) {
  try {
    f();
    return true;
  } catch (const AllocationError& e) {
    (void)e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": " << e.what();
  }
  return false;
}

// The packing variants but max_min_fairness_packed, each through `run` (a name and the check).
void run_packed(const AllocationProblem& p, const std::string& what,
                const std::function<void(const std::string&, const std::function<void()>&)>& run) {
  const auto fits = [&](const std::string& name, const PackedAllocation& x) {
    expect_feasible(p, x.single, x.pairs, what + " " + name);
  };
  run("ftf packed", [&] {
    FinishTimeFairness ftf(false, "v100", true);
    fits("ftf packed", ftf.allocate_packed(p));
    fits("ftf packed again", ftf.allocate_packed(p));
  });
  run("mtd packed", [&] { fits("mtd packed", min_total_duration_packed(p)); });
  run("mst packed", [&] {
    const SumThroughputResult r = max_sum_throughput_packed(p, false, true);
    fits("mst packed", {.single = r.x, .pairs = r.pairs});
  });
  run("water filling packed", [&] {
    const WaterFilling w = max_min_fairness_water_filling_packed(p);
    fits("water filling packed", {.single = w.x, .pairs = w.pairs});
  });
  run("fifo packed", [&] {
    Fifo fifo = Fifo::packing();
    fits("fifo packed", fifo.allocate_packed(p));
  });
}

TEST(GavelRandomProblems, EveryAnswerFitsOrIsAnError) {
  RandomStream rng(11, "gavel-random-test");
  int answered = 0;
  for (int i = 0; i < 300; ++i) {
    const bool single = i % 3 == 0;
    const AllocationProblem p = random_problem(rng, single);
    const std::string what = "problem " + std::to_string(i);
    const auto run = [&](const std::string& name, const std::function<void()>& f) {
      answered += answers(what + " " + name, f);
    };
    run("mmf", [&] { expect_feasible(p, max_min_fairness_perf(p), {}, what + " mmf"); });
    run("mmf agnostic", [&] { expect_feasible(p, max_min_fairness(p), {}, what + " mmf-a"); });
    run("mst",
        [&] { expect_feasible(p, max_sum_throughput_perf(p, false, true).x, {}, what + " mst"); });
    run("mtd", [&] { expect_feasible(p, min_total_duration_perf(p), {}, what + " mtd"); });
    run("ftf", [&] {
      FinishTimeFairness ftf;
      expect_feasible(p, ftf.allocate(p), {}, what + " ftf");
      expect_feasible(p, ftf.allocate(p), {}, what + " ftf again");
    });
    run("packed", [&] {
      const PackedAllocation x = max_min_fairness_packed(p);
      expect_feasible(p, x.single, x.pairs, what + " packed");
    });
    run_packed(p, what, run);
    run("gandiva", [&] {
      Gandiva g(static_cast<std::uint64_t>(i));
      const PackedAllocation x = g.allocate(p);
      expect_feasible(p, x.single, x.pairs, what + " gandiva");
    });
    run("fifo_perf", [&] {
      Fifo fifo(true, static_cast<std::uint64_t>(i));
      expect_feasible(p, fifo.allocate(p), {}, what + " fifo_perf");
    });
    run("fifo", [&] {
      // Gavel's agnostic FIFO can give a type more jobs than GPUs (docs/gavel.md, "FIFO's
      // agnostic mode"): each job gets one whole type or nothing.
      Fifo fifo(false, static_cast<std::uint64_t>(i));
      for (const std::vector<double>& row : fifo.allocate(p)) {
        double sum = 0.0;
        for (const double v : row) {
          EXPECT_TRUE(v == 0.0 || v == 1.0) << what << " fifo";
          sum += v;
        }
        EXPECT_LE(sum, 1.0) << what << " fifo";
      }
    });
    if (single) {
      run("allox", [&] {
        AlloX allox;
        expect_feasible(p, allox.allocate(p), {}, what + " allox");
      });
    }
  }
  EXPECT_GT(answered, 2500);
}

// The linear-programming policies solved as an interior point (lp_method interior) on the same
// kind of problems: each answer fits, or is an AllocationError; max_sum_throughput_perf's total
// throughput is the simplex's (both are optima of one program); min total duration's X lets
// every job finish within Gavel's T.
TEST(GavelRandomProblems, InteriorAnswersFitAndAreOptimal) {
  RandomStream rng(12, "gavel-random-interior-test");
  int answered = 0;
  for (int i = 0; i < 200; ++i) {
    AllocationProblem p = random_problem(rng, i % 3 == 0);
    p.lp_method = lp::Method::interior;
    const std::string what = "problem " + std::to_string(i);
    const auto run = [&](const std::function<void()>& f) { answered += answers(what, f); };
    run([&] { expect_feasible(p, max_min_fairness_perf(p), {}, what + " mmf"); });
    run([&] { expect_feasible(p, max_min_fairness(p), {}, what + " mmf-a"); });
    run([&] {
      const Allocation x = max_sum_throughput_perf(p).x;
      expect_feasible(p, x, {}, what + " mst");
      AllocationProblem vertex = p;
      vertex.lp_method = lp::Method::simplex;
      double inside = 0.0;
      double best = 0.0;
      for (const double v : effective_throughputs(p, x)) {
        inside += v;
      }
      for (const double v : effective_throughputs(p, max_sum_throughput_perf(vertex).x)) {
        best += v;
      }
      EXPECT_NEAR(inside, best, 1e-5 * std::max(1.0, best)) << what << " mst";
    });
    run([&] {
      const Allocation x = min_total_duration_perf(p);
      expect_feasible(p, x, {}, what + " mtd");
      const double t = gavel_search_duration(least_total_duration(p));
      const auto tput = effective_throughputs(p, x);
      for (std::size_t j = 0; j < p.jobs.size(); ++j) {
        EXPECT_GE(tput[j] * t, p.jobs[j].steps_remaining * (1.0 - 1e-5)) << what << " mtd " << j;
      }
    });
    run([&] {
      FinishTimeFairness ftf;
      expect_feasible(p, ftf.allocate(p), {}, what + " ftf");
      expect_feasible(p, ftf.allocate(p), {}, what + " ftf again");
    });
    run([&] {
      // lp_method: centre: the centre of the same face, so the same least rho and a feasible X.
      AllocationProblem centred = p;
      centred.conic_centre = true;
      FinishTimeFairness ftf;
      FinishTimeFairness plain;
      expect_feasible(p, ftf.allocate(centred), {}, what + " ftf centre");
      (void)plain.allocate(p);
      EXPECT_NEAR(ftf.last_rho(), plain.last_rho(), 1e-6 * std::max(1.0, plain.last_rho()))
          << what << " ftf centre";
    });
    run([&] {
      const PackedAllocation x = max_min_fairness_packed(p);
      expect_feasible(p, x.single, x.pairs, what + " packed");
    });
    run_packed(p, what, [&](const std::string&, const std::function<void()>& f) { run(f); });
  }
  EXPECT_GT(answered, 1000);
}

}  // namespace
}  // namespace tidesim::gavel
