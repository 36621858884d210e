#!/usr/bin/env bash
# Installs the Debian packages tidesim needs, only those missing. Sourced by demo.sh and test.sh.
# Without root it prints the exact apt-get line and exits 1.
set -euo pipefail

TIDESIM_PACKAGES=(
  cmake g++ make pkg-config
  libboost-dev libboost-graph-dev
  libyaml-cpp-dev libfmt-dev libcli11-dev nlohmann-json3-dev libssl-dev libeigen3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # Delaunay interpolation of unmeasured placements (Qhull, as scipy's) and the Pollux
  # throughput model's fit (NLopt): docs/pollux.md, docs/goodput-model.md.
  libqhull-dev libnlopt-cxx-dev
  # Gavel's allocation policies solve linear programs with CLP, Shockwave's plan a mixed integer
  # program with CBC (docs/gavel.md).
  coinor-libclp-dev coinor-libcbc-dev
  libxml2-utils
  # tools/check-structure.py (the structure.check test) measures functions with it.
  universal-ctags
  libtcmalloc-minimal4
  # The Python module (docs/python.md): pybind11 over Debian's python3, pandas for its tables,
  # pytest for its tests, matplotlib for the example they run (examples/python/).
  pybind11-dev python3-dev python3-pandas python3-numpy python3-pytest python3-matplotlib
)
# Optional: Open MPI, for `mpirun -n N tidesim sweep` and its ctest (docs/sweeps.md).
if [[ "${TIDESIM_WITH_MPI:-0}" == 1 ]]; then
  TIDESIM_PACKAGES+=(libopenmpi-dev openmpi-bin)
fi
if [[ "${TIDESIM_WITH_PROMTOOL:-1}" == 1 ]]; then
  TIDESIM_PACKAGES+=(prometheus)
fi
# Headless chromium (and a font for its text): `report -o x.pdf` and the report's browser tests
# (ctest report_browser and report_page, docs/outputs.md, "HTML report"): a test dependency, on by
# default; TIDESIM_WITH_CHROMIUM=0 leaves it out (tools/demo.sh, which needs no browser).
if [[ "${TIDESIM_WITH_CHROMIUM:-1}" == 1 ]]; then
  TIDESIM_PACKAGES+=(chromium fonts-dejavu-core)
fi

missing=()
for p in "${TIDESIM_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} > 0)); then
  cmd="apt-get install -y --no-install-recommends ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then
    echo "tidesim: missing Debian packages. As root, run:" >&2
    echo "  apt-get update && $cmd" >&2
    exit 1
  fi
  echo "tidesim: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  $cmd >/dev/null
fi
