#include "tidesim/tools/lib/result_summary.hpp"

#include <set>
#include <string>
#include <vector>

#include "tidesim/tools/lib/stats.hpp"

namespace tidesim::app {

using nlohmann::json;

json summary_json(const RunResult& result) {
  json summary = json::object();
  const auto policies = result.policy_names();
  for (const auto& policy : policies) {
    const auto runs = result.runs_of(policy);
    std::set<std::string> names;
    for (const auto* run : runs) {
      for (const auto& [name, v] : run->metrics) {
        names.insert(name);
      }
    }
    json per_metric = json::object();
    for (const auto& name : names) {
      const auto values = metric_values(runs, name);
      const auto s = summarize(values);
      per_metric[name] = {{"n", s->n},
                          {"mean", s->mean},
                          {"sd", optional_number(s->sd)},
                          {"ci95_half", optional_number(s->ci95_half)}};
    }
    summary["policies"][policy] = per_metric;
  }
  // Paired differences of every later policy against the first, over the seeds
  // both ran.
  json diffs = json::array();
  if (policies.size() >= 2) {
    const auto base_runs = result.runs_of(policies[0]);
    for (std::size_t k = 1; k < policies.size(); ++k) {
      const auto other_runs = result.runs_of(policies[k]);
      json per_metric = json::object();
      std::set<std::string> names;
      for (const auto* run : other_runs) {
        for (const auto& [name, v] : run->metrics) {
          names.insert(name);
        }
      }
      for (const auto& name : names) {
        std::vector<double> a;
        std::vector<double> b;
        for (const auto* ra : base_runs) {
          for (const auto* rb : other_runs) {
            if (ra->seed != rb->seed) {
              continue;
            }
            const auto ia = ra->metrics.find(name);
            const auto ib = rb->metrics.find(name);
            if (ia != ra->metrics.end() && ib != rb->metrics.end()) {
              a.push_back(ia->second);
              b.push_back(ib->second);
            }
          }
        }
        if (const auto d = paired_difference(a, b)) {
          per_metric[name] = {{"n", d->n},
                              {"mean_difference", d->mean},
                              {"ci95_half", optional_number(d->ci95_half)},
                              {"relative_change", optional_number(d->relative)}};
        }
      }
      diffs.push_back(
          {{"baseline", policies[0]}, {"policy", policies[k]}, {"metrics", per_metric}});
    }
  }
  summary["paired_differences"] = diffs;
  return summary;
}
}  // namespace tidesim::app
