#!/usr/bin/env bash
# Downloads the real data sets that some scenarios and tests read (docs/data.md) from their public
# origins into a data folder: DIR if given, else $TIDESIM_DATA, else ../shared/data beside the
# repository. Needs git and network access; never run by the tests.
#
#   tools/fetch-data.sh [DIR] [SET...]     SET: traces fgd pollux gavel shockwave llm (default: all)
#
# Each set comes from the repository, commit and path docs/data.md names; files already present
# are kept. topo/ (nvidia-smi outputs of real machines) has no public origin to fetch from.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${1:-${TIDESIM_DATA:-$root/../shared/data}}"
shift || true
sets=("$@")
[[ ${#sets[@]} -eq 0 ]] && sets=(traces fgd pollux gavel shockwave llm)
mkdir -p "$dest"
dest="$(cd "$dest" && pwd)"
cache="$(mktemp -d)"
trap 'rm -rf "$cache"' EXIT

# checkout NAME URL REV PATH...: the paths of repository URL at revision REV (a branch or a commit),
# fetched without the rest of the history, under $cache/NAME.
checkout() {
  local name="$1" url="$2" rev="$3"
  shift 3
  local dir="$cache/$name"
  if [[ ! -d "$dir" ]]; then
    git clone --quiet --filter=blob:none --no-checkout "$url" "$dir"
  fi
  # A branch is the remote's (origin/BRANCH); a commit is itself.
  if git -C "$dir" rev-parse --verify --quiet "origin/$rev^{commit}" >/dev/null; then
    rev="origin/$rev"
  fi
  git -C "$dir" checkout --quiet "$rev" -- "$@"
}

# put SRC DST: copies SRC to $dest/DST unless DST is there already.
put() {
  if [[ -e "$dest/$2" ]]; then
    echo "kept    $2"
  else
    mkdir -p "$(dirname "$dest/$2")"
    cp -r "$1" "$dest/$2"
    echo "fetched $2"
  fi
}

for set in "${sets[@]}"; do
  case "$set" in
    traces)
      # Alibaba openb (2023) trace: alibaba/clusterdata, cluster-trace-gpu-v2023/csv/.
      checkout clusterdata https://github.com/alibaba/clusterdata.git master \
        cluster-trace-gpu-v2023/csv cluster-trace-gpu-v2020/data/pai_machine_spec.header
      for f in openb_node_list_all_node openb_node_list_gpu_node openb_pod_list_default \
               openb_pod_list_gpushare100 openb_pod_list_multigpu50; do
        put "$cache/clusterdata/cluster-trace-gpu-v2023/csv/$f.csv" "traces/$f.csv"
      done
      # Pollux (OSDI'21) artifact: petuum/adaptdl branch osdi21-artifact, simulator/.
      checkout adaptdl https://github.com/petuum/adaptdl.git osdi21-artifact \
        simulator/traces/philly.csv simulator/workloads/workload-6.csv \
        simulator/traces/imagenet/placements.csv
      if [[ ! -e "$dest/traces/pollux_philly.csv" ]]; then
        # The trailing blank line removed.
        sed -e '${/^$/d;}' "$cache/adaptdl/simulator/traces/philly.csv" > "$cache/pollux_philly.csv"
      fi
      put "$cache/pollux_philly.csv" traces/pollux_philly.csv
      put "$cache/adaptdl/simulator/workloads/workload-6.csv" traces/pollux_workload-6.csv
      put "$cache/adaptdl/simulator/traces/imagenet/placements.csv" \
        traces/pollux_imagenet_placements.csv
      # Alibaba PAI (2020) machines: the header line, then pai_machine_spec.csv of
      # pai_machine_spec.tar.gz in the GitHub mirror alibaba/clusterdata names.
      if [[ ! -e "$dest/traces/pai2020_machine_spec.csv" ]]; then
        checkout pai2020 https://github.com/qzweng/clusterdata-cluster-trace-gpu-v2020-data.git \
          e60d925 pai_machine_spec.tar.gz
        tar -xzf "$cache/pai2020/pai_machine_spec.tar.gz" -C "$cache/pai2020"
        cat "$cache/clusterdata/cluster-trace-gpu-v2020/data/pai_machine_spec.header" \
          "$(find "$cache/pai2020" -name pai_machine_spec.csv | head -1)" \
          > "$cache/pai2020_machine_spec.csv"
      fi
      put "$cache/pai2020_machine_spec.csv" traces/pai2020_machine_spec.csv
      ;;
    fgd)
      # The FGD simulator's expected allocation curves, the openb_pod_list_default rows.
      checkout fgd https://github.com/hkust-adsl/kubernetes-scheduler-simulator.git 8f3d641 \
        experiments/analysis/expected_results/analysis_allo_discrete.csv
      if [[ ! -e "$dest/fgd/expected_allocation_default.csv" ]]; then
        awk -F, 'NR == 1 || $1 == "openb_pod_list_default"' \
          "$cache/fgd/experiments/analysis/expected_results/analysis_allo_discrete.csv" \
          > "$cache/expected_allocation_default.csv"
      fi
      put "$cache/expected_allocation_default.csv" fgd/expected_allocation_default.csv
      ;;
    pollux)
      # Per-application measurements: petuum/adaptdl branch osdi21-artifact, simulator/traces/<app>/.
      checkout adaptdl https://github.com/petuum/adaptdl.git osdi21-artifact simulator/traces
      for app in bert cifar10 deepspeech2 imagenet ncf yolov3; do
        put "$cache/adaptdl/simulator/traces/$app" "pollux/$app"
      done
      ;;
    gavel)
      # Gavel (OSDI'20): stanford-futuredata/gavel, scheduler/.
      checkout gavel https://github.com/stanford-futuredata/gavel.git \
        c4fa40097339e9608ab71fd64c8bdea96a5e4a4c scheduler/simulation_throughputs.json \
        scheduler/traces/msr scheduler/traces/physical_cluster
      put "$cache/gavel/scheduler/simulation_throughputs.json" gavel/simulation_throughputs.json
      for n in 0 1 2 3 4; do
        # Not the whole-cluster philly.trace (4 MiB or more per seed).
        find "$cache/gavel/scheduler/traces/msr/seed=$n" -name philly.trace -delete
        put "$cache/gavel/scheduler/traces/msr/seed=$n" "gavel/msr/seed=$n"
      done
      for f in cluster_specs.json cluster_specs_heterogeneous.json; do
        put "$cache/gavel/scheduler/traces/msr/$f" "gavel/msr/$f"
      done
      for f in artifact_evaluation max_min_fairness minimize_makespan; do
        put "$cache/gavel/scheduler/traces/physical_cluster/$f.trace" \
          "gavel/physical_cluster/$f.trace"
      done
      ;;
    shockwave)
      # Shockwave (NSDI'23): uw-mad-dash/shockwave, scheduler/.
      trace="120_0.2_5_100_40_25_0,0.5,0.5_0.6,0.3,0.09,0.01_multigpu_dynamic.trace"
      checkout shockwave https://github.com/uw-mad-dash/shockwave.git \
        8a44f4a27a45760520386809b695d51b665b3679 "scheduler/traces/reproduce/$trace" \
        scheduler/tacc_throughputs.json scheduler/configurations/tacc_32gpus.json
      put "$cache/shockwave/scheduler/traces/reproduce/$trace" "shockwave/$trace"
      put "$cache/shockwave/scheduler/tacc_throughputs.json" shockwave/tacc_throughputs.json
      put "$cache/shockwave/scheduler/configurations/tacc_32gpus.json" shockwave/tacc_32gpus.json
      ;;
    llm)
      # Calculon's inputs for Korthikanti et al. 2022: calculon-ai/calculon (paths kept).
      checkout calculon https://github.com/calculon-ai/calculon.git \
        caa4b11f8fe1fee3ba57adaacb7590d7deabd053 models systems validation/seqsel \
        examples/3072_t4_p64_d12_mbs4_full.json
      for p in models systems validation/seqsel/tab5 validation/seqsel/fig1 \
               validation/seqsel/fig7 examples/3072_t4_p64_d12_mbs4_full.json; do
        put "$cache/calculon/$p" "llm/$p"
      done
      ;;
    *)
      echo "tools/fetch-data.sh: unknown set '$set' (traces fgd pollux gavel shockwave llm)" >&2
      exit 2
      ;;
  esac
done
echo "data folder: $dest (scenarios read it as \$TIDESIM_DATA; docs/data.md)"
