#include "tidesim/sim/admission/gavel_policy.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "tidesim/sim/admission/gavel_batch.hpp"
#include "tidesim/sim/admission/gavel_lp_policies.hpp"
#include "tidesim/sim/admission/gavel_restart.hpp"
#include "tidesim/sim/admission/gavel_water_filling.hpp"
#include "tidesim/workloads/gavel_jobs.hpp"

namespace tidesim {
namespace {

double number(const std::string& key, const std::string& value, double lo) {
  double v = 0.0;
  try {
    std::size_t used = 0;
    v = std::stod(value, &used);
    if (used != value.size()) {
      throw std::invalid_argument(value);
    }
  } catch (const std::exception&) {
    throw std::invalid_argument("gavel: " + key + " must be a number, not '" + value + "'");
  }
  if (!std::isfinite(v) || v < lo || v > 1e9) {
    throw std::invalid_argument("gavel: " + key + " must be a number in [" + std::to_string(lo) +
                                ", 1e9], not '" + value + "'");
  }
  return v;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::size_t from = 0;
  while (from <= text.size()) {
    const std::size_t comma = std::min(text.find(',', from), text.size());
    if (comma > from) {
      out.push_back(text.substr(from, comma - from));
    }
    from = comma + 1;
  }
  return out;
}

// "MODEL:PRICE,MODEL:PRICE": a price per hour (> 0) for each GPU model; a model named twice is
// refused.
std::map<std::string, double> parse_prices(const std::string& text) {
  std::map<std::string, double> prices;
  for (const std::string& item : split(text)) {
    const std::size_t colon = item.rfind(':');
    if (colon == std::string::npos || colon == 0) {
      throw std::invalid_argument(
          "gavel: prices must be MODEL:PRICE pairs separated by commas, "
          "not '" +
          item + "'");
    }
    const std::string model = item.substr(0, colon);
    const double price = number("prices[" + model + "]", item.substr(colon + 1), 0.0);
    if (price <= 0.0) {
      throw std::invalid_argument("gavel: prices[" + model + "] must be above 0");
    }
    if (!prices.emplace(model, price).second) {
      throw std::invalid_argument("gavel: prices names GPU model '" + model + "' twice");
    }
  }
  if (prices.empty()) {
    throw std::invalid_argument("gavel: prices is empty");
  }
  return prices;
}

// "QUEUE:WEIGHT:RULE,...": the water-filling policies' entities, a job's entity being its local
// queue (the label kueue.x-k8s.io/queue-name); RULE fairness or fifo. A queue named twice is
// refused.
std::map<std::string, std::pair<double, gavel::WaterFillingEntities::Rule>> parse_entities(
    const std::string& text) {
  std::map<std::string, std::pair<double, gavel::WaterFillingEntities::Rule>> out;
  for (const std::string& item : split(text)) {
    const std::size_t last = item.rfind(':');
    const std::size_t first = last == std::string::npos ? last : item.rfind(':', last - 1);
    if (first == std::string::npos || first == 0) {
      throw std::invalid_argument(
          "gavel: entities must be QUEUE:WEIGHT:RULE items separated by commas, not '" + item +
          "'");
    }
    const std::string queue = item.substr(0, first);
    const double weight =
        number("entities[" + queue + "]", item.substr(first + 1, last - first - 1), 0.0);
    const std::string rule = item.substr(last + 1);
    if (weight <= 0.0 || (rule != "fairness" && rule != "fifo")) {
      throw std::invalid_argument("gavel: entities[" + queue +
                                  "] needs a weight above 0 and the rule fairness or fifo, not '" +
                                  item + "'");
    }
    const auto r = rule == "fifo" ? gavel::WaterFillingEntities::Rule::kFifo
                                  : gavel::WaterFillingEntities::Rule::kFairness;
    if (!out.emplace(queue, std::make_pair(weight, r)).second) {
      throw std::invalid_argument("gavel: entities names queue '" + queue + "' twice");
    }
  }
  if (out.empty()) {
    throw std::invalid_argument("gavel: entities is empty");
  }
  return out;
}

// Shockwave's gandiva_fair (policies/gandiva_fair_proportional.py): every job the same share of
// every type, GPUs of the type / jobs, rows divided by max(1, their sum); scale factors ignored.
gavel::Allocation gandiva_fair(const gavel::AllocationProblem& p) {
  gavel::check_problem(p, "gandiva_fair");
  gavel::Allocation x;
  const auto m = static_cast<double>(p.jobs.size());
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    std::vector<double> row;
    double sum = 0.0;
    for (const int n : p.cluster.gpus) {
      row.push_back(n / m);
      sum += n / m;
    }
    for (double& v : row) {
      v /= std::max(1.0, sum);
    }
    x.push_back(std::move(row));
  }
  return x;
}

// Whether `lp_method: central` (and `ecos`) applies: the policies that solve one linear program
// over X alone (not the packed ones, water filling's many, or finish-time fairness's conic
// program).
bool solves_one_lp(const std::string& policy) {
  return gavel_solves_lp(policy) && policy.rfind("finish_time_fairness", 0) != 0 &&
         policy.find("packed") == std::string::npos &&
         policy.find("water_filling") == std::string::npos;
}

// `lp_method`: simplex, interior, central, ecos or centre; interior only for a policy that solves
// a linear program, central and ecos only for one that solves one over X alone (solves_one_lp),
// centre (an interior point, then the centre of Gavel's conic program's optimal face) only for
// finish_time_fairness and finish_time_fairness_perf.
lp::Method parse_lp_method(const std::string& value, const std::string& policy) {
  if (value != "simplex" && value != "interior" && value != "centre" && value != "central" &&
      value != "ecos") {
    throw std::invalid_argument(
        "gavel: lp_method must be simplex, interior, central, ecos or centre, not '" + value + "'");
  }
  if (value == "interior" && !gavel_solves_lp(policy)) {
    throw std::invalid_argument(
        "gavel: lp_method: interior applies to the policies that solve a "
        "linear program (max_min_fairness*, finish_time_fairness*, "
        "min_total_duration*, max_sum_throughput*), not '" +
        policy + "'");
  }
  if ((value == "central" || value == "ecos") && !solves_one_lp(policy)) {
    throw std::invalid_argument("gavel: lp_method: " + value +
                                " applies to max_min_fairness(_perf), min_total_duration(_perf) "
                                "and max_sum_throughput*_perf*, not '" +
                                policy + "'");
  }
  if (value == "centre" && policy != "finish_time_fairness" &&
      policy != "finish_time_fairness_perf") {
    throw std::invalid_argument(
        "gavel: lp_method: centre applies to finish_time_fairness and "
        "finish_time_fairness_perf, not '" +
        policy + "'");
  }
  return value == "simplex"   ? lp::Method::simplex
         : value == "central" ? lp::Method::central
         : value == "ecos"    ? lp::Method::ecos
                              : lp::Method::interior;
}

// The jobs placed in a round, ascending (a map's keys).
std::vector<int> ids_of(const std::map<int, gavel::Placement>& placed) {
  std::vector<int> ids;
  for (const auto& [id, p] : placed) {
    ids.push_back(id);
  }
  return ids;
}

// Job `v`'s steps per second alone on GPU model `model` (0 where it has none).
double throughput_on(const JobView& v, const std::string& model) {
  double t = 0.0;
  for (const auto& [gpu, tput] : v.throughputs) {
    t = gpu == model ? tput : t;
  }
  return t;
}

}  // namespace

bool gavel_solves_lp(const std::string& policy) {
  for (const char* prefix :
       {"max_min_fairness", "finish_time_fairness", "min_total_duration", "max_sum_throughput"}) {
    if (policy.rfind(prefix, 0) == 0) {
      return true;
    }
  }
  return false;
}

const std::vector<std::string>& gavel_policy_names() {
  static const std::vector<std::string> names = {
      "fifo",
      "fifo_perf",
      "fifo_packed",
      "max_min_fairness",
      "max_min_fairness_perf",
      "max_min_fairness_packed",
      "max_min_fairness_water_filling",
      "max_min_fairness_water_filling_perf",
      "max_min_fairness_water_filling_packed",
      "finish_time_fairness",
      "finish_time_fairness_perf",
      "finish_time_fairness_packed",
      "min_total_duration",
      "min_total_duration_perf",
      "min_total_duration_packed",
      "max_sum_throughput_perf",
      "max_sum_throughput_normalized_by_cost_perf",
      "max_sum_throughput_normalized_by_cost_perf_SLOs",
      "max_sum_throughput_normalized_by_cost_packed_SLOs",
      "allox",
      "gandiva",
      "gandiva_fair",
      "isolated",
      "shockwave"};
  return names;
}

GavelAllocator::GavelAllocator(const std::string& name, std::uint64_t seed, std::string reference,
                               double alpha, bool allox_multi_gpu, double packing_threshold)
    : name_(name), reference_(std::move(reference)) {
  const auto& names = gavel_policy_names();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string all;
    for (const std::string& n : names) {
      all += (all.empty() ? "" : ", ") + n;
    }
    throw std::invalid_argument("gavel: unknown policy '" + name + "' (" + all + ")");
  }
  if (name.rfind("finish_time_fairness", 0) == 0) {
    ftf_ = std::make_unique<gavel::FinishTimeFairness>(name == "finish_time_fairness", reference_,
                                                       name == "finish_time_fairness_packed");
  } else if (name == "fifo_packed") {
    fifo_ = std::make_unique<gavel::Fifo>(gavel::Fifo::packing(packing_threshold));
  } else if (fifo()) {
    fifo_ = std::make_unique<gavel::Fifo>(name == "fifo_perf", seed);
  } else if (name == "allox") {
    allox_ = std::make_unique<gavel::AlloX>(alpha, allox_multi_gpu);
  } else if (name == "gandiva") {
    gandiva_ = std::make_unique<gavel::Gandiva>(seed);
  }
}

bool GavelAllocator::shuffles_types() const {
  // Gavel's names: AlloX_Perf, Gandiva_Packing, ThroughputSumWithPerf, ..._Perf, ..._Packing.
  return name_.find("perf") == std::string::npos && name_.find("packed") == std::string::npos &&
         name_ != "allox" && name_ != "gandiva";
}

gavel::PackedAllocation GavelAllocator::allocate(const gavel::AllocationProblem& p,
                                                 const gavel::WaterFillingEntities* entities) {
  if (gandiva_) {
    return gandiva_->allocate(p);
  }
  if (water_filling()) {
    gavel::WaterFilling w = name_ == "max_min_fairness_water_filling"
                                ? gavel::max_min_fairness_water_filling(p, entities)
                            : name_ == "max_min_fairness_water_filling_packed"
                                ? gavel::max_min_fairness_water_filling_packed(p, entities)
                                : gavel::max_min_fairness_water_filling_perf(p, entities);
    return {.single = std::move(w.x), .pairs = std::move(w.pairs)};
  }
  if (ftf_) {
    return ftf_->allocate_packed(p);
  }
  if (fifo_) {
    return fifo_->allocate_packed(p);
  }
  if (name_ == "max_min_fairness_packed") {
    return gavel::max_min_fairness_packed(p);
  }
  if (name_ == "min_total_duration_packed") {
    return gavel::min_total_duration_packed(p);
  }
  if (name_ == "max_sum_throughput_normalized_by_cost_packed_SLOs") {
    gavel::SumThroughputResult r = gavel::max_sum_throughput_packed(p, true, true);
    return {.single = std::move(r.x), .pairs = std::move(r.pairs)};
  }
  return {.single = allocate_single(p), .pairs = {}};
}

gavel::Allocation GavelAllocator::allocate_single(const gavel::AllocationProblem& p) {
  if (allox_) {
    return allox_->allocate(p);
  }
  if (name_ == "max_min_fairness") {
    return gavel::max_min_fairness(p);
  }
  if (name_ == "max_min_fairness_perf") {
    return gavel::max_min_fairness_perf(p);
  }
  if (name_ == "min_total_duration") {
    return gavel::min_total_duration(p, reference_);
  }
  if (name_ == "min_total_duration_perf") {
    return gavel::min_total_duration_perf(p);
  }
  if (name_ == "max_sum_throughput_perf") {
    return gavel::max_sum_throughput_perf(p).x;
  }
  if (name_ == "max_sum_throughput_normalized_by_cost_perf") {
    return gavel::max_sum_throughput_perf(p, true).x;
  }
  if (name_ == "max_sum_throughput_normalized_by_cost_perf_SLOs") {
    return gavel::max_sum_throughput_perf(p, true, true).x;
  }
  if (name_ == "gandiva_fair") {
    return gandiva_fair(p);
  }
  if (name_ == "shockwave") {  // its plan chooses the jobs (GavelPolicy::start)
    throw std::logic_error("gavel: shockwave computes no allocation");
  }
  return gavel::isolated(p);
}

GavelPolicy::GavelPolicy(const AdmissionConfig& config) {
  std::string policy = "max_min_fairness_perf";
  double alpha = 1.0;
  reference_ = "V100-SXM2-16";
  order_ = {"V100-SXM2-16", "P100"};
  std::map<std::string, std::string> shockwave_args;
  bool allox_multi_gpu = false;
  std::optional<double> packing_threshold;
  std::string lp_method = "simplex";
  for (const auto& [key, value] : config.args) {
    if (key == "policy") {
      policy = value;
    } else if (key == "round") {
      rounds_config_.round_s = number(key, value, 1e-3);
    } else if (key == "min_reset_interval") {
      rounds_config_.min_reset_interval_s = number(key, value, 0.0);
    } else if (key == "reference_gpu") {
      reference_ = value;
    } else if (key == "allox_alpha") {
      alpha = number(key, value, 0.0);
    } else if (key == "allox_multi_gpu") {
      if (value != "true" && value != "false") {
        throw std::invalid_argument("gavel: allox_multi_gpu must be true or false, not '" + value +
                                    "'");
      }
      allox_multi_gpu = value == "true";
    } else if (key == "gpu_order") {
      order_ = split(value);
    } else if (key == "prices") {
      prices_ = parse_prices(value);
    } else if (key == "restart_overhead") {
      restart_overhead_s_ = number(key, value, 0.0);
    } else if (key == "credit") {
      if (value != "round" && value != "steps") {
        throw std::invalid_argument("gavel: credit must be round or steps, not '" + value + "'");
      }
      credit_steps_ = value == "steps";
    } else if (key == "batch_changes") {
      if (value != "epoch" && value != "round") {
        throw std::invalid_argument("gavel: batch_changes must be epoch or round, not '" + value +
                                    "'");
      }
      batch_changes_ = value == "round" ? std::make_unique<gavel::BatchChanges>() : nullptr;
    } else if (key == "packing_threshold") {
      packing_threshold = number(key, value, 0.0);
    } else if (key == "lp_method") {
      lp_method = value;
    } else if (key == "entities") {
      entities_ = parse_entities(value);
    } else if (shockwave::is_arg(key)) {
      shockwave_args[key] = value;
    } else {
      throw std::invalid_argument(
          "gavel: unknown argument '" + key +
          "' (policy, round, min_reset_interval, reference_gpu, allox_alpha, allox_multi_gpu, "
          "gpu_order, prices, restart_overhead, credit, batch_changes, packing_threshold, "
          "lp_method, entities, "
          "and shockwave's: future_rounds, k, lambda, rhomax, "
          "log_approximation_bases, gpu_ram, solver_rel_gap, solver_num_threads, solver_timeout, "
          "solver_max_nodes, reopt_rounds, momentum, log_origin, priority_m, max_priority)");
    }
  }
  if (policy.rfind("max_sum_throughput_normalized_by_cost", 0) == 0 && prices_.empty()) {
    throw std::invalid_argument(
        "gavel: policy " + policy +
        " needs prices (GPU model:price "
        "per hour, comma-separated, e.g. 'V100-SXM2-16:2.48,P100:1.46,K80:0.45')");
  }
  lp_method_ = parse_lp_method(lp_method, policy);
  conic_centre_ = lp_method == "centre";
  if (!entities_.empty() && policy.rfind("max_min_fairness_water_filling", 0) != 0) {
    throw std::invalid_argument(
        "gavel: entities apply to max_min_fairness_water_filling and its _perf and _packed forms, "
        "not '" +
        policy + "'");
  }
  if (packing_threshold && policy != "fifo_packed") {
    throw std::invalid_argument("gavel: packing_threshold applies to fifo_packed only, not '" +
                                policy + "'");
  }
  allocator_ = std::make_unique<GavelAllocator>(policy, config.seed, reference_, alpha,
                                                allox_multi_gpu, packing_threshold.value_or(1.5));
  if (policy == "shockwave") {
    shockwave_ = std::make_unique<shockwave::Scheduler>(
        shockwave::parse_config(shockwave_args, rounds_config_.round_s));
  } else if (!shockwave_args.empty()) {
    throw std::invalid_argument("gavel: '" + shockwave_args.begin()->first +
                                "' is an argument of policy shockwave only");
  }
  rounds_config_.shuffle_types = allocator_->shuffles_types();
  rounds_config_.fifo = allocator_->fifo();
  rounds_config_.seed = config.seed;
}

GavelPolicy::~GavelPolicy() = default;

std::optional<Duration> GavelPolicy::interval() const {
  const double left = started_ ? round_end_ - last_now_ : rounds_config_.round_s;
  return from_seconds(std::max(left, 1e-6));
}

std::int64_t GavelPolicy::lease_extensions() const {
  return rounds_ ? rounds_->lease_extensions() : 0;
}

void GavelPolicy::add_metrics(std::map<std::string, double>& out) const {
  out["lease_extensions"] = static_cast<double>(lease_extensions());
  if (const std::int64_t n = lease_extension_opportunities(); n > 0) {
    out["lease_extension_share"] = static_cast<double>(lease_extensions()) / static_cast<double>(n);
  }
}

std::int64_t GavelPolicy::lease_extension_opportunities() const {
  return rounds_ ? rounds_->lease_extension_opportunities() : 0;
}

gavel::RoundAllocation GavelPolicy::allocate(const JobPolicyState& state) {
  gavel::AllocationProblem p;
  std::vector<const workloads::MeasuredSpeed*> speeds;  // per row of p.jobs
  std::vector<const JobView*> views;                    // per row of p.jobs
  p.cluster.gpu_types = types_.types;
  p.cluster.gpus = types_.gpus;
  p.lp_method = lp_method_;
  p.conic_centre = conic_centre_;
  if (!prices_.empty()) {
    for (const std::string& type : types_.types) {
      const auto price = prices_.find(type);
      if (price == prices_.end()) {
        throw std::invalid_argument("gavel: prices has no price for GPU model '" + type + "'");
      }
      p.cluster.prices.push_back(price->second);
    }
  }
  const double now = to_seconds(state.now);
  for (const JobView& v : state.jobs) {
    if (!std::binary_search(known_.begin(), known_.end(), v.id)) {
      continue;
    }
    gavel::AllocationJob j;
    j.id = v.id;
    for (const std::string& type : types_.types) {
      j.throughput.push_back(throughput_on(v, type));
    }
    j.scale_factor = v.gpus;
    j.time_since_start_s = std::max(0.0, now - to_seconds(v.submitted));
    j.steps_remaining = v.steps_left;
    if (v.spec != nullptr && v.spec->measured) {
      j.priority_weight = workloads::gavel_priority_weight(*v.spec->measured);
      // Gavel's SLOs[job] = deadline - now (_get_state); at or past it, none.
      if (const auto slo = workloads::gavel_slo_seconds(*v.spec->measured)) {
        j.slo_s = std::max(0.0, to_seconds(v.submitted) + *slo - now);
      }
    }
    p.jobs.push_back(std::move(j));
    speeds.push_back(v.spec != nullptr ? v.spec->measured.get() : nullptr);
    views.push_back(&v);
  }
  // Space sharing: the throughput table's pair entries, as the jobs' speeds read them.
  p.colocated = [&](std::size_t a, std::size_t b,
                    std::size_t t) -> std::optional<gavel::Colocated> {
    if (speeds[a] == nullptr || speeds[b] == nullptr) {
      return std::nullopt;
    }
    const auto c = workloads::gavel_colocated(*speeds[a], *speeds[b], types_.types[t]);
    return c ? std::optional<gavel::Colocated>({c->first, c->second}) : std::nullopt;
  };
  gavel::RoundAllocation out;
  if (p.jobs.empty()) {
    return out;
  }
  const std::optional<gavel::WaterFillingEntities> entities =
      entities_.empty() ? std::nullopt : std::optional(entities_of(views));
  gavel::PackedAllocation x = allocator_->allocate(p, entities ? &*entities : nullptr);
  for (std::size_t i = 0; i < p.jobs.size(); ++i) {
    out.single[p.jobs[i].id] = x.single[i];
  }
  for (gavel::PairShare& pair : x.pairs) {
    out.pairs.push_back({.a = p.jobs[pair.a].id,
                         .b = p.jobs[pair.b].id,
                         .share = std::move(pair.share),
                         .throughput = pair_throughput(p.jobs[pair.a].id, p.jobs[pair.b].id)});
  }
  return out;
}

gavel::WaterFillingEntities GavelPolicy::entities_of(
    const std::vector<const JobView*>& jobs) const {
  gavel::WaterFillingEntities e;
  std::map<std::string, std::size_t> index;
  for (const auto& [queue, weight_rule] : entities_) {
    index[queue] = e.weight.size();
    e.weight.push_back(weight_rule.first);
    e.rule.push_back(weight_rule.second);
  }
  for (const JobView* v : jobs) {
    const std::string* queue = nullptr;
    if (v->spec != nullptr) {
      const auto label = v->spec->pod_template.labels.find(workloads::kQueueNameLabel);
      queue = label == v->spec->pod_template.labels.end() ? nullptr : &label->second;
    }
    const auto it = queue == nullptr ? index.end() : index.find(*queue);
    if (it == index.end()) {
      throw std::invalid_argument(
          "gavel: job '" + v->name + "' is in no queue of entities (" +
          (queue == nullptr ? std::string("it has no label ") + workloads::kQueueNameLabel
                            : "queue '" + *queue + "'") +
          ")");
    }
    e.entity_of_job.push_back(it->second);
  }
  return e;
}

void GavelPolicy::leave(const JobPolicyState& state, double now) {
  std::vector<int> still;
  for (const int id : known_) {
    const bool active = std::any_of(state.jobs.begin(), state.jobs.end(),
                                    [id](const JobView& v) { return v.id == id; });
    if (active) {
      still.push_back(id);
      continue;
    }
    if (const auto it = placed_.find(id); it != placed_.end()) {
      // A pair's time is its entry's, credited once: when its last job leaves or at the round's
      // end (Gavel credits a pair the longer of its jobs' times).
      if (it->second.partner < 0 || placed_.count(it->second.partner) == 0) {
        rounds_->record(it->second.entry, it->second.type, ran_s(it->second, now));
      }
      placed_.erase(it);
    }
    rounds_->remove_job(id);
  }
  known_ = std::move(still);
}

void GavelPolicy::start(const JobPolicyState& state) {
  const double now = to_seconds(state.now);
  std::set<int> recorded;
  for (const auto& [id, p] : placed_) {
    if (recorded.insert(p.entry).second) {
      rounds_->record(p.entry, p.type, ran_s(p, now));
    }
  }
  speeds_.clear();
  for (const JobView& v : state.jobs) {
    speeds_[v.id] = v.spec != nullptr ? v.spec->measured.get() : nullptr;
  }
  for (const JobView& v : state.jobs) {
    if (std::binary_search(known_.begin(), known_.end(), v.id)) {
      continue;
    }
    gavel::RoundJob j;
    j.id = v.id;
    j.scale_factor = v.gpus;
    for (const std::string& type : types_.types) {
      j.throughput.push_back(throughput_on(v, type));
    }
    rounds_->add_job(j);
    known_.insert(std::upper_bound(known_.begin(), known_.end(), v.id), v.id);
  }
  const std::vector<int> last_round = ids_of(placed_);
  placed_.clear();
  std::vector<gavel::Placement> placements;
  if (shockwave_) {  // its plan's round goes straight to the placement (scheduler.py)
    placements = rounds_->schedule_chosen(
        {shockwave_->round(shockwave::jobs_of(state, known_), types_.gpus[0], now)});
  } else {
    placements = rounds_->schedule(now, [this, &state] { return allocate(state); });
  }
  for (gavel::Placement& p : placements) {
    placed_[p.job] = std::move(p);
  }
  plan_delays(state, last_round);
  plan_credits(state);
  round_start_ = now;
  round_end_ = now + rounds_config_.round_s;
  started_ = true;
  ++rounds_started_;
}

void GavelPolicy::plan_delays(const JobPolicyState& state, const std::vector<int>& last_round) {
  delay_.clear();
  if (restart_overhead_s_ <= 0.0) {
    return;
  }
  for (const JobView& v : state.jobs) {
    const auto it = placed_.find(v.id);
    if (it == placed_.end()) {
      continue;
    }
    gavel::RestartCase c;
    c.ran_last_round = std::binary_search(last_round.begin(), last_round.end(), v.id);
    c.first_round = rounds_started_ == 0;
    c.steps_left = v.steps_left;
    c.throughput = throughput_on(v, types_.types[it->second.type]);
    const double d = gavel::restart_delay(c, rounds_config_.round_s, restart_overhead_s_);
    if (d > 0.0) {
      delay_[v.id] = d;
    }
  }
}

// credit: steps. Each placed job's micro-task this round: its whole steps at its throughput on
// the type it runs on, alone or (in a pair) co-located with its partner.
void GavelPolicy::plan_credits(const JobPolicyState& state) {
  micro_task_.clear();
  if (!credit_steps_) {
    return;
  }
  for (const JobView& v : state.jobs) {
    const auto it = placed_.find(v.id);
    if (it == placed_.end()) {
      continue;
    }
    const std::string& type = types_.types[it->second.type];
    double throughput = 0.0;
    if (it->second.partner < 0) {
      throughput = throughput_on(v, type);
    } else {
      const auto self = speeds_.find(v.id);
      const auto other = speeds_.find(it->second.partner);
      if (self != speeds_.end() && other != speeds_.end() && self->second != nullptr &&
          other->second != nullptr) {
        const auto c = workloads::gavel_colocated(*self->second, *other->second, type);
        throughput = c ? c->first : 0.0;
      }
    }
    if (throughput > 0.0) {
      micro_task_[v.id] = gavel::micro_task_s(throughput, v.steps_left, rounds_config_.round_s);
    }
  }
}

// The seconds a placement ran this round until `now`, as the rounds credit them: with `credit:
// steps` no more than its micro-task, less the restart overhead its job paid; a pair the longer
// of its jobs' (as the artifacts credit a pair the longer of its jobs' times).
double GavelPolicy::ran_s(const gavel::Placement& p, double now) const {
  const auto one = [this, now](int id) {
    double t = now - round_start_;
    if (const auto m = micro_task_.find(id); m != micro_task_.end()) {
      t = std::min(t, m->second);
    }
    const auto d = delay_.find(id);
    return std::max(0.0, t - (d == delay_.end() ? 0.0 : d->second));
  };
  return p.partner >= 0 ? std::max(one(p.job), one(p.partner)) : one(p.job);
}

JobDecision GavelPolicy::current(const JobPolicyState& state) const {
  JobDecision d;
  for (const JobView& v : state.jobs) {
    const auto it = placed_.find(v.id);
    if (it == placed_.end()) {
      continue;
    }
    d.run.push_back(v.id);
    std::vector<std::string> nodes;
    for (const int gpu : it->second.gpus) {
      nodes.push_back(types_.node_of_gpu[static_cast<std::size_t>(gpu)]);
    }
    if (v.admitted && v.nodes != nodes && !it->second.extended) {
      d.move.push_back(v.id);
    }
    d.pod_nodes[v.id] = std::move(nodes);
    if (const auto delay = delay_.find(v.id); delay != delay_.end() && !v.admitted) {
      d.start_delay[v.id] = from_seconds(delay->second);
    }
  }
  std::sort(d.run.begin(), d.run.end());
  return d;
}

std::vector<double> GavelPolicy::pair_throughput(int a, int b) const {
  std::vector<double> out(types_.types.size(), 0.0);
  const auto x = speeds_.find(a);
  const auto y = speeds_.find(b);
  if (x == speeds_.end() || y == speeds_.end() || x->second == nullptr || y->second == nullptr) {
    return out;
  }
  for (std::size_t t = 0; t < out.size(); ++t) {
    const auto c = workloads::gavel_colocated(*x->second, *y->second, types_.types[t]);
    out[t] = c ? std::min(c->first, c->second) : 0.0;
  }
  return out;
}

JobDecision GavelPolicy::decide(const JobPolicyState& state) {
  const double now = to_seconds(state.now);
  if (!rounds_) {
    if (state.cluster == nullptr) {
      throw std::logic_error("gavel: the policy needs the cluster's nodes");
    }
    types_ = gavel::gpu_types_of(*state.cluster, {}, order_);
    rounds_ = std::make_unique<gavel::Rounds>(types_.types, types_.servers, rounds_config_);
    if (allocator_->packs()) {
      rounds_->set_pair_throughput([this](int a, int b) { return pair_throughput(a, b); });
    }
    if (shockwave_ && types_.types.size() != 1) {
      throw std::invalid_argument(
          "gavel: shockwave plans a cluster of one GPU type (the artifact's runs on v100 only)");
    }
  }
  leave(state, now);
  // A round ends at its time, or when nothing dispatched in it is still running (Gavel's
  // simulator: the round's end is the latest finish of its jobs; with none, the next arrival).
  std::map<int, SpeedChange> changes;
  if (!started_ || now >= round_end_ - 1e-9 || placed_.empty()) {
    if (batch_changes_) {
      // The round that ended changes the batches; this round is scheduled at the new ones.
      JobPolicyState changed = state;
      changes = batch_changes_->round(changed.jobs, ids_of(placed_));
      start(changed);
    } else {
      start(state);
    }
  }
  last_now_ = now;
  if (state.jobs.empty()) {
    started_ = false;
  }
  JobDecision d = current(state);
  d.speed_change = std::move(changes);
  return d;
}

}  // namespace tidesim
