#pragma once
/// InterPodAffinity (pkg/scheduler/framework/plugins/interpodaffinity/): required affinity and
/// anti-affinity (filter, including existing pods' required anti-affinity) and preferred terms
/// (score, weight 2 by default), for any topology key the nodes carry as a label.
#include <memory>

#include "tidesim/policies/registry.hpp"

namespace tidesim::policies {

/// True when `term` selects `pod`: the pod's namespace is in term.namespaces (empty: `owner_ns`,
/// the namespace of the pod that owns the term) and its labels match the selector
/// (framework.AffinityTerm.Matches).
bool affinity_term_matches(const PodAffinityTerm& term, const std::string& owner_ns,
                           const PodSpec& pod);

/// Factory (args: hardPodAffinityWeight 0-100, default 1; ignorePreferredTermsOfExistingPods).
std::unique_ptr<Plugin> make_inter_pod_affinity(const PluginArgs& args);

}  // namespace tidesim::policies
