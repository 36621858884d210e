#include "tidesim/sim/admission/gavel_ftf.hpp"

#include <algorithm>
#include <optional>

#include "tidesim/sim/admission/gavel_conic_centre.hpp"

namespace tidesim::gavel {

namespace {

constexpr double kPrecision = 1e-9;
constexpr int kMaxBisections = 200;

struct Inputs {
  std::vector<double> isolated_throughput;
  std::vector<double> isolated_time;
  // Each job's throughput in the program is divided by it: its priority weight when packed
  // (PolicyWithPacking.flatten with priority_weights), 1 otherwise (Gavel's perf variant leaves
  // its weights unused).
  std::vector<double> weight;
  // The packed layout's pairs (none unless packed), and the programs' columns (each program_at
  // builds the same ones from an empty program).
  std::vector<PairColumns> pairs;
  AllocationColumns cols;
};

// The throughput job j needs for rho_j(X) <= rho, R_j / (rho iso_j - t_j): -1 when it has no
// steps left (no row), nullopt when no throughput reaches rho.
std::optional<double> needed_throughput(const AllocationJob& job, double isolated_time,
                                        double rho) {
  if (job.steps_remaining <= 0.0) {
    return -1.0;
  }
  const double time_left = rho * isolated_time - job.time_since_start_s;
  if (!(time_left > 0.0)) {
    return std::nullopt;
  }
  return job.steps_remaining / time_left;
}

// The program "every job with steps left has rho_j(X) <= rho" (nullopt when some job cannot
// reach rho even with infinite throughput); rows lowered by `slack` (relative); the tie-break's
// objective unless the problem is solved as an interior point (Gavel's one program: its optimal
// face is this program's feasible set at the least rho).
std::optional<lp::Program> program_at(const AllocationProblem& p, const Inputs& in, double rho,
                                      double slack) {
  const bool tie_break = p.lp_method == lp::Method::simplex;
  lp::Program prog;
  const AllocationColumns cols = add_base_constraints(prog, p, in.pairs);
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    const std::optional<double> needed = needed_throughput(p.jobs[j], in.isolated_time[j], rho);
    if (!needed) {
      return std::nullopt;
    }
    if (*needed < 0.0) {
      continue;
    }
    lp::Row row{.terms = {}, .lower = *needed * (1.0 - slack), .upper = lp::kInfinity};
    for (const ThroughputTerm& term : throughput_terms(p, cols, j)) {
      row.terms.emplace_back(term.column, term.throughput / in.weight[j]);
      if (tie_break) {
        prog.objective[static_cast<std::size_t>(term.column)] +=
            term.throughput / in.isolated_throughput[j];
      }
    }
    prog.rows.push_back(std::move(row));
  }
  return prog;
}

// The face's centre under Gavel's conic barrier (gavel_conic_centre.hpp), from the barrier's
// point `x`: the face taken at rho x (1 + kFaceSlack), so that the rows the least rho holds with
// equality (met by CLP within its tolerance) leave room, and the start pulled inside its bounds
// (x (1 - kStartShrink) + kStartFloor). `x` is kept where that start is not strictly inside.
constexpr double kFaceSlack = 1e-5;
constexpr double kStartShrink = 1e-6;
constexpr double kStartFloor = 1e-9;

void centre_on_face(const AllocationProblem& p, const Inputs& in, double rho,
                    std::vector<double>& x) {
  std::vector<std::size_t> types;
  for (std::size_t t = 0; t < p.cluster.gpus.size(); ++t) {
    if (p.cluster.gpus[t] > 0) {
      types.push_back(t);
    }
  }
  FtfFace face;
  std::vector<std::vector<double>> start;
  for (std::size_t t : types) {
    face.gpus.push_back(p.cluster.gpus[t]);
  }
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    const AllocationJob& job = p.jobs[j];
    const std::optional<double> needed =
        needed_throughput(job, in.isolated_time[j], rho * (1.0 + kFaceSlack));
    if (!needed) {
      return;  // not reached at the least rho's program either: keep the barrier's point
    }
    face.scale_factor.push_back(job.scale_factor);
    face.bound.push_back(*needed);
    face.throughput.emplace_back();
    start.emplace_back();
    for (std::size_t t : types) {
      face.throughput.back().push_back(job.throughput[t]);
      start.back().push_back(
          x[static_cast<std::size_t>(in.cols.column(j, t))] * (1.0 - kStartShrink) + kStartFloor);
    }
  }
  if (const auto centre = conic_centre(face, start)) {
    for (std::size_t j = 0; j < p.jobs.size(); ++j) {
      for (std::size_t k = 0; k < types.size(); ++k) {
        x[static_cast<std::size_t>(in.cols.column(j, types[k]))] = (*centre)[j][k];
      }
    }
  }
}

// The simplex's solution of the program at `rho` when it is feasible, nullopt when it is not.
std::optional<lp::Solution> feasible(const AllocationProblem& p, const Inputs& in, double rho,
                                     const std::string& policy) {
  const auto prog = program_at(p, in, rho, 0.0);
  if (!prog) {
    return std::nullopt;
  }
  lp::Solution s = lp::solve(*prog);
  if (s.status == lp::Status::optimal) {
    return s;
  }
  if (s.status == lp::Status::infeasible) {
    return std::nullopt;
  }
  throw AllocationError(policy + ": the linear program is " + lp::to_string(s.status) +
                        " (CLP); no allocation");
}

// The bisection on rho from [lo, hi] (hi: the isolated X's rho), then the program at the least
// rho found; `hi` is left at that rho.
PackedAllocation least_rho(const AllocationProblem& p, const Inputs& in, const std::string& policy,
                           double lo, double& hi) {
  // The last program the bisection accepted (none: hi is still the isolated X's own rho).
  std::optional<lp::Solution> accepted;
  for (int i = 0; i < kMaxBisections && hi - lo > kPrecision * hi; ++i) {
    const double mid = (lo + hi) / 2.0;
    if (auto s = feasible(p, in, mid, policy)) {
      hi = mid;
      accepted = std::move(s);
    } else {
      lo = mid;
    }
  }
  const auto prog = program_at(p, in, hi, kPrecision);
  if (!prog) {
    throw AllocationError(policy + ": no allocation reaches the isolated one's fairness");
  }
  lp::Solution s = lp::solve(*prog, p.lp_method);
  if (s.status == lp::Status::optimal) {
    if (p.conic_centre && s.interior && in.pairs.empty()) {
      centre_on_face(p, in, hi, s.x);
    }
    return read_packed_allocation(s, in.cols, p);
  }
  if (s.status == lp::Status::infeasible) {
    // CLP accepts a row violated within its tolerance (1e-7), so the bisection can end at a rho
    // whose program, solved again, is refused: the accepted solve's X then, or the isolated X,
    // which reaches hi by construction (docs/gavel.md, "Solving them").
    return accepted ? read_packed_allocation(*accepted, in.cols, p)
                    : PackedAllocation{.single = isolated(p), .pairs = {}};
  }
  throw AllocationError(policy + ": the linear program is " + lp::to_string(s.status) +
                        " (CLP); no allocation");
}

}  // namespace

double FinishTimeFairness::cumulative_isolated_time(int id) const {
  const auto it = memory_.find(id);
  return it == memory_.end() ? 0.0 : it->second.cumulative_isolated_s;
}

Allocation FinishTimeFairness::allocate(const AllocationProblem& p) {
  return allocate_packed(p).single;
}

PackedAllocation FinishTimeFairness::allocate_packed(const AllocationProblem& given) {
  const std::string policy = packed_     ? "finish_time_fairness_packed"
                             : agnostic_ ? "finish_time_fairness"
                                         : "finish_time_fairness_perf";
  check_problem(given, policy);
  const AllocationProblem p =
      agnostic_ ? with_reference_throughputs(given, type_index(given.cluster, reference_, policy))
                : given;
  check_problem(p, policy);
  const Allocation iso = isolated(p);
  Inputs in;
  in.isolated_throughput = effective_throughputs(p, iso);
  if (packed_) {
    in.pairs = packed_pairs(p);
  }
  lp::Program scratch;
  in.cols = add_base_constraints(scratch, p, in.pairs);
  std::map<int, Memory> next;
  double lo = 0.0;
  double hi = 0.0;
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    const AllocationJob& job = p.jobs[j];
    const double tput = in.isolated_throughput[j];
    if (!(tput > 0.0)) {
      throw AllocationError(policy + ": job " + std::to_string(job.id) +
                            " can run only on GPU types the cluster has none of");
    }
    Memory m;
    const auto it = memory_.find(job.id);
    if (it != memory_.end()) {
      m.cumulative_isolated_s = it->second.cumulative_isolated_s;
      if (it->second.isolated_throughput > 0.0) {  // it was in the previous allocation
        m.cumulative_isolated_s +=
            (it->second.steps_remaining - job.steps_remaining) / it->second.isolated_throughput;
      }
    }
    m.isolated_throughput = tput;
    m.steps_remaining = job.steps_remaining;
    next[job.id] = m;
    in.weight.push_back(packed_ ? job.priority_weight : 1.0);
    in.isolated_time.push_back(m.cumulative_isolated_s + job.steps_remaining / tput);
    if (job.steps_remaining > 0.0) {
      lo = std::max(lo, job.time_since_start_s / in.isolated_time[j]);
      hi = std::max(hi, (job.time_since_start_s + job.steps_remaining * in.weight[j] / tput) /
                            in.isolated_time[j]);
    }
  }
  PackedAllocation x{.single = iso, .pairs = {}};
  if (std::any_of(in.isolated_time.begin(), in.isolated_time.end(),
                  [](double t) { return !(t > 0.0); })) {
    // Gavel's program divides each job's time by its time isolated; one at or below 0 (the steps
    // left of a job grew, a Shockwave job back at its initial batch) makes it not convex: cvxpy
    // refuses it (DCPError) and the policy returns the isolated allocation, keeping the
    // cumulative times it added but not the steps left and throughputs it compares with next.
    for (const auto& [id, m] : next) {
      memory_[id].cumulative_isolated_s = m.cumulative_isolated_s;
    }
    last_rho_ = hi;
    return x;
  }
  if (hi > 0.0) {
    x = least_rho(p, in, policy, lo, hi);
  }
  // Jobs absent from this call are no longer "in the previous allocation" (Gavel resets its
  // previous-iteration maps each call) but keep their cumulative time.
  for (auto& [id, m] : memory_) {
    m.isolated_throughput = 0.0;
  }
  for (const auto& [id, m] : next) {
    memory_[id] = m;
  }
  last_rho_ = hi;
  return x;
}

}  // namespace tidesim::gavel
