#include "tidesim/sim/admission/pollux.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>

#include "tidesim/workloads/speedup.hpp"

namespace tidesim {

PolluxArgs decode_pollux_args(Fields& args) {
  // The bounds beyond the artifact's own (p at most 1, a delay not negative) are assumptions
  // that only keep the numbers finite.
  PolluxArgs a;
  a.p = args.number("p", a.p, -1e6, 1.0);
  a.restart_delay_s = args.number("restart_delay", a.restart_delay_s, 0.0, 1e9);
  a.max_replicas = static_cast<int>(args.integer("max_replicas", a.max_replicas, 1, 1'000'000));
  a.population = static_cast<int>(args.integer("population", a.population, 1, 1'000'000));
  a.generations = static_cast<int>(args.integer("generations", a.generations, 0, 1'000'000));
  a.rounds = args.boolean("rounds", a.rounds);
  return a;
}

PolluxPolicy::PolluxPolicy(const AdmissionConfig& config)
    : rounds_(config.interval, "pollux"), rng_(config.seed, "pollux-search") {
  const PolluxArgs args = job_args<PolluxArgs>(config);
  p_ = args.p;
  restart_delay_s_ = args.restart_delay_s;
  max_replicas_ = args.max_replicas;
  search_.population = args.population;
  search_.generations = args.generations;
  at_rounds_ = args.rounds;
}

std::optional<Duration> PolluxPolicy::interval() const {
  return at_rounds_ ? rounds_.to_next() : rounds_.interval();
}

const PolluxPolicy::Learned* PolluxPolicy::learned(int id) const {
  const auto it = learned_.find(id);
  return it == learned_.end() ? nullptr : &it->second;
}

void PolluxPolicy::learn(const JobView& job) {
  if (!job.report || job.placement.empty()) {
    return;
  }
  const workloads::StepReport& r = *job.report;
  Learned& l = learned_[job.id];
  const int nodes = static_cast<int>(job.placement.size());
  const std::vector<int> on = job.replica_placement();
  const int replicas = std::accumulate(on.begin(), on.end(), 0);
  l.grad = workloads::GradParams{r.grad_sqr, r.grad_var};
  l.most_replicas = std::max(l.most_replicas, replicas);
  if (!l.seen.insert({nodes, replicas, r.atomic_bsz}).second) {
    return;
  }
  // simulator.py Job.update_params: accumulation passes take step - sync, the step itself step.
  l.samples.push_back(workloads::PerfSample{nodes, replicas, static_cast<double>(r.atomic_bsz),
                                            r.step_time - r.sync_time, r.step_time});
  l.perf = workloads::fit_perf_params(l.samples);
}

std::vector<std::size_t> PolluxPolicy::service_order(const std::vector<JobView>& jobs) {
  // Jobs by attained service, then submission (pollux.py optimize; no job is pinned).
  std::vector<std::size_t> order(jobs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&jobs](std::size_t a, std::size_t b) {
    const JobView& x = jobs[a];
    const JobView& y = jobs[b];
    return std::tie(x.attained_gpu_s, x.submitted, x.order) <
           std::tie(y.attained_gpu_s, y.submitted, y.order);
  });
  return order;
}

void PolluxPolicy::forget_ended(const std::vector<JobView>& jobs) {
  std::set<int> active;
  for (const JobView& j : jobs) {
    active.insert(j.id);
  }
  for (auto it = alloc_.begin(); it != alloc_.end();) {
    it = active.contains(it->first) ? std::next(it) : alloc_.erase(it);
  }
  for (auto it = learned_.begin(); it != learned_.end();) {
    it = active.contains(it->first) ? std::next(it) : learned_.erase(it);
  }
}

PolluxState PolluxPolicy::current_allocation(const JobPolicyState& state, const Order& order,
                                             int node_count) const {
  // Where each job runs now (its bound pods when all are bound, else the last plan).
  std::map<std::string, int> node_index;
  for (std::size_t n = 0; n < state.cluster->nodes.size(); ++n) {
    node_index[state.cluster->nodes[n].node.name] = static_cast<int>(n);
  }
  PolluxState base(order.size() * static_cast<std::size_t>(node_count), 0);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const JobView& j = state.jobs[order[i]];
    int* row = &base[i * static_cast<std::size_t>(node_count)];
    if (j.admitted && j.pods > 0 && j.pods_bound == j.pods) {
      const std::vector<int> on = j.replica_placement();
      for (std::size_t k = 0; k < j.nodes.size() && k < on.size(); ++k) {
        row[node_index.at(j.nodes[k])] = on[k];
      }
    } else if (const auto a = alloc_.find(j.id); a != alloc_.end() && j.admitted) {
      for (const auto& [n, r] : a->second) {
        row[n] = r;
      }
    }
  }
  return base;
}

PolluxPolicy::FairShare PolluxPolicy::fair_share(int jobs, int nodes, int gpus) {
  // Speedups are relative to the fair share (pollux.py Problem.__init__).
  jobs = std::max(1, jobs);
  FairShare fair;
  fair.replicas = std::max(1, (gpus + jobs - 1) / jobs);
  fair.nodes =
      std::max(1, static_cast<int>(std::ceil(static_cast<double>(nodes) / std::max(1, gpus))));
  return fair;
}

int PolluxPolicy::replica_cap(const JobView& j) const {
  const Learned* l = learned(j.id);
  int most = j.max_replicas;
  if (j.elastic) {
    most = std::min({most, max_replicas_, std::max(2 * (l ? l->most_replicas : 0), 1),
                     j.max_batch / std::max(1, j.min_atomic_batch)});
  }
  return std::max(most, 0);
}

double PolluxPolicy::restart_factor(const JobView& j, TimePoint now) const {
  const double age = std::max(0.0, std::chrono::duration<double>(now - j.submitted).count());
  return std::max(age - j.restarts * restart_delay_s_, 0.0) / (age + restart_delay_s_);
}

workloads::SpeedupFunction* PolluxPolicy::speedup_function(const JobView& j, FairShare fair) {
  const Learned* l = learned(j.id);
  if (!j.elastic || !l || !l->perf || !l->grad || j.min_batch <= 0) {
    return nullptr;
  }
  workloads::BatchSearch search;
  search.max_batch_size = j.max_batch;
  search.min_atomic_bsz = std::max(1, j.min_atomic_batch);
  search.max_atomic_bsz = j.max_atomic_batch;
  search.accumulation = true;
  Learned& mine = learned_[j.id];
  const bool same = mine.speedup && mine.speedup_perf == workloads::to_vector(*l->perf) &&
                    mine.speedup_grad == std::make_pair(l->grad->sqr, l->grad->var);
  if (!same) {  // a new model (its goodputs are kept while the model holds, across rounds)
    mine.speedup.reset();
    try {
      mine.speedup = std::make_shared<workloads::SpeedupFunction>(
          workloads::GoodputFunction(*l->perf, *l->grad, j.min_batch), search);
      mine.speedup_perf = workloads::to_vector(*l->perf);
      mine.speedup_grad = {l->grad->sqr, l->grad->var};
    } catch (const std::exception&) {
      // No positive goodput on one GPU: not measurable yet, as a job without a model.
    }
  }
  if (!mine.speedup) {
    return nullptr;
  }
  try {
    mine.speedup->set_base(std::min(fair.nodes, fair.replicas), fair.replicas);
  } catch (const std::exception&) {
    // No valid batch on the fair share (fewer GPUs than the batch splits into): the base is
    // one GPU.
    mine.speedup->set_base(1, 1);
  }
  return mine.speedup.get();
}

PolluxPolicy::SpeedupTable::SpeedupTable(const JobPolicyState& state, const Order& order,
                                         const PolluxProblem& problem,
                                         std::vector<workloads::SpeedupFunction*> speedup,
                                         int fair_replicas)
    : state_(state),
      order_(order),
      max_replicas_(problem.max_replicas),
      speedup_(std::move(speedup)),
      fair_replicas_(fair_replicas),
      most_nodes_(std::min(problem.nodes, problem.max_job_nodes)),
      table_(order.size()) {
  for (std::size_t i = 0; i < order.size(); ++i) {
    table_[i].assign(static_cast<std::size_t>((most_nodes_ + 1) * (max_replicas_[i] + 1)), -1.0);
  }
}

double PolluxPolicy::SpeedupTable::compute(int j, int n, int r) const {
  const JobView& v = state_.jobs[order_[static_cast<std::size_t>(j)]];
  // Without a model: its GPUs (r replicas of its pods' GPUs) over the fair share's GPUs.
  const double gpus = static_cast<double>(r) * std::max(1, v.gpus_per_replica);
  if (!v.elastic) {
    return r == v.replicas ? gpus / fair_replicas_ : 0.0;
  }
  if (workloads::SpeedupFunction* f = speedup_[static_cast<std::size_t>(j)]) {
    return (*f)(n, r);
  }
  return gpus / fair_replicas_;
}

double PolluxPolicy::SpeedupTable::operator()(int j, int n, int r) {
  if (r <= 0) {
    return 0.0;
  }
  const auto i = static_cast<std::size_t>(j);
  if (n > most_nodes_ || r > max_replicas_[i]) {
    return compute(j, n, r);
  }
  double& memo = table_[i][static_cast<std::size_t>(n * (max_replicas_[i] + 1) + r)];
  if (memo < 0) {
    memo = compute(j, n, r);
  }
  return memo;
}

std::vector<PolluxState> PolluxPolicy::carried_population(const JobPolicyState& state,
                                                          const Order& order,
                                                          const PolluxProblem& problem) const {
  // The last population, its rows moved to this round's jobs (new jobs: none).
  std::vector<PolluxState> initial;
  if (population_nodes_ != problem.nodes) {
    return initial;
  }
  std::map<int, std::size_t> was;
  for (std::size_t k = 0; k < population_jobs_.size(); ++k) {
    was[population_jobs_[k]] = k;
  }
  for (const PolluxState& old : population_) {
    PolluxState x(problem.base.size(), 0);
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (const auto w = was.find(state.jobs[order[i]].id); w != was.end()) {
        std::copy_n(old.begin() + static_cast<std::ptrdiff_t>(w->second * problem.nodes),
                    problem.nodes, x.begin() + static_cast<std::ptrdiff_t>(i * problem.nodes));
      }
    }
    initial.push_back(std::move(x));
  }
  return initial;
}

std::uint64_t PolluxPolicy::take_work() {
  const auto events = static_cast<std::uint64_t>(work_);
  work_ -= static_cast<double>(events);
  return events;
}

PolluxSearchConfig PolluxPolicy::search_config(const AdmissionConfig& config) {
  return PolluxPolicy(config).search_;
}

void PolluxPolicy::run_search(const JobPolicyState& state, const Order& order,
                              const PolluxProblem& problem) {
  work_ += pollux_search_events(search_, problem.jobs, problem.nodes);
  population_ = pollux_search(problem, carried_population(state, order, problem), search_, rng_);
  population_jobs_.clear();
  for (const std::size_t i : order) {
    population_jobs_.push_back(state.jobs[i].id);
  }
  population_nodes_ = problem.nodes;
}

void PolluxPolicy::give(const JobView& j, const int* row, const int* now,
                        const std::vector<NodeInfo>& nodes, JobDecision& decision) {
  // Its GPUs, their count, its node per pod; a placed job whose nodes change is moved.
  const int node_count = static_cast<int>(nodes.size());
  std::map<int, int> plan;
  std::vector<std::string> pods;
  int replicas = 0;
  for (int n = 0; n < node_count; ++n) {
    if (row[n] > 0) {
      plan[n] = row[n];
      replicas += row[n];
      for (int k = 0; k < row[n]; ++k) {
        pods.push_back(nodes[static_cast<std::size_t>(n)].node.name);
      }
    }
  }
  if (replicas == 0 || (!j.elastic && replicas != j.replicas)) {
    // None, or a job of a fixed size given another (its speedup there is 0): it waits.
    alloc_.erase(j.id);
    return;
  }
  decision.run.push_back(j.id);
  if (j.elastic) {
    decision.replicas[j.id] = replicas;
    decision.batch_size[j.id] = workloads::kAdaptiveBatch;  // AdaptDL chooses its batch
  }
  const bool same = std::equal(row, row + node_count, now);
  if (!same || !j.admitted) {
    decision.pod_nodes[j.id] = std::move(pods);
    if (j.admitted && !same && replicas == j.replicas && j.elastic) {
      decision.move.push_back(j.id);
    }
  }
  alloc_[j.id] = std::move(plan);
}

JobDecision PolluxPolicy::decide(const JobPolicyState& state) {
  JobDecision decision;
  if (rounds_.hold(state, at_rounds_, decision)) {
    return decision;
  }
  if (state.cluster == nullptr) {
    throw std::logic_error("pollux needs the cluster view");
  }
  for (const JobView& j : state.jobs) {
    learn(j);
  }
  const Order order = service_order(state.jobs);
  const std::vector<NodeInfo>& nodes = state.cluster->nodes;
  PolluxProblem problem;
  problem.jobs = static_cast<int>(order.size());
  problem.nodes = static_cast<int>(nodes.size());
  problem.p = p_;
  for (const NodeInfo& n : nodes) {
    problem.node_gpus.push_back(static_cast<int>(n.node.allocatable.gpus));
  }
  forget_ended(state.jobs);
  problem.base = current_allocation(state, order, problem.nodes);
  const FairShare fair =
      fair_share(problem.jobs, problem.nodes,
                 std::accumulate(problem.node_gpus.begin(), problem.node_gpus.end(), 0));
  std::vector<workloads::SpeedupFunction*> speedup(order.size(), nullptr);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const JobView& j = state.jobs[order[i]];
    problem.max_replicas.push_back(replica_cap(j));
    problem.replica_gpus.push_back(std::max(1, j.gpus_per_replica));
    problem.restart_factor.push_back(restart_factor(j, state.now));
    speedup[i] = speedup_function(j, fair);
  }
  // Each job's speedups of this round, by (nodes, replicas) within its caps (the search asks
  // for the same ones many times).
  SpeedupTable table(state, order, problem, std::move(speedup), fair.replicas);
  problem.speedup = [&table](int j, int n, int r) { return table(j, n, r); };
  run_search(state, order, problem);
  const PolluxState& best = population_.front();
  for (std::size_t i = 0; i < order.size(); ++i) {
    const std::size_t row = i * static_cast<std::size_t>(problem.nodes);
    give(state.jobs[order[i]], &best[row], &problem.base[row], nodes, decision);
  }
  std::sort(decision.run.begin(), decision.run.end());
  return decision;
}

}  // namespace tidesim
