#include "tidesim/sim/admission/tiresias_artifact.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace tidesim {

TiresiasArtifactPolicy::TiresiasArtifactPolicy(const AdmissionConfig& config)
    : queues_([&config] {
        AdmissionConfig c = config;
        c.backfill = true;  // the artifact walks past a job that does not fit
        return c;
      }()),
      rounds_(config.interval, "tiresias-artifact") {
  const ArtifactArgs args = job_args<ArtifactArgs>(config);
  at_rounds_ = args.rounds;
  place_ = args.artifact_placement;
}

bool TiresiasArtifactPolicy::at_round(TimePoint t) const {
  return rounds_.at_round(t);
}

std::optional<Duration> TiresiasArtifactPolicy::interval() const {
  return at_rounds_ ? rounds_.to_next() : rounds_.interval();
}

JobDecision TiresiasArtifactPolicy::decide(const JobPolicyState& state) {
  JobDecision decision;
  if (rounds_.hold(state, at_rounds_, decision)) {
    return decision;
  }
  // simulator/tiresias.py: account and move between queues, then walk queue 0 and queue 1 in
  // order, choosing each job that fits the GPUs left (by count, wherever they are).
  queues_.prepare(state);
  std::vector<const JobView*> chosen;
  std::int64_t free = state.capacity_gpus;
  for (const std::size_t i : queues_.order(state)) {
    const JobView& j = state.jobs[i];
    if (j.gpus <= free) {
      chosen.push_back(&j);
      free -= j.gpus;
    }
  }
  for (const JobView* j : chosen) {
    decision.run.push_back(j->id);
  }
  std::sort(decision.run.begin(), decision.run.end());
  std::vector<const JobView*> kept;
  std::vector<std::pair<const JobView*, int>> fresh;
  for (const JobView* j : chosen) {
    if (j->admitted) {
      kept.push_back(j);
    } else if (place_) {
      fresh.emplace_back(j, j->gpus);
    }
  }
  placement_.place(state, kept, fresh, decision);
  return decision;
}

}  // namespace tidesim
