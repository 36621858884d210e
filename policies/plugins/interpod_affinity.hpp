#pragma once
/// InterPodAffinity (pkg/scheduler/framework/plugins/interpodaffinity/): required affinity and
/// anti-affinity (filter, including existing pods' required anti-affinity) and preferred terms
/// (score, weight 2 by default), for any topology key the nodes carry as a label.
#include <cstdint>
#include <memory>

#include "tidesim/policies/framework.hpp"
#include "tidesim/policies/plugin_args.hpp"

namespace tidesim::policies {

/// True when `term` selects `pod`: the pod's namespace is in term.namespaces (empty: `owner_ns`,
/// the namespace of the pod that owns the term) and its labels match the selector
/// (framework.AffinityTerm.Matches).
bool affinity_term_matches(const PodAffinityTerm& term, const std::string& owner_ns,
                           const PodSpec& pod);

/// InterPodAffinityArgs.
struct InterPodAffinityArgs {
  /// hardPodAffinityWeight, 0-100.
  std::int64_t hard_pod_affinity_weight = 1;
  /// ignorePreferredTermsOfExistingPods.
  bool ignore_preferred_terms_of_existing_pods = false;
};
InterPodAffinityArgs parse_inter_pod_affinity_args(const PluginArgs& args);
std::unique_ptr<Plugin> make_inter_pod_affinity(const InterPodAffinityArgs& args);

}  // namespace tidesim::policies
