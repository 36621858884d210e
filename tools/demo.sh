#!/usr/bin/env bash
# Installs what is missing, builds in Release, and runs the main job: the seed benchmark,
# default-k8s vs load-aware, printed side by side.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
TIDESIM_WITH_PROMTOOL=0 tools/deps.sh
log="$(mktemp)"
echo "tidesim: building (Release)..." >&2
if ! tools/build.sh --target tidesim >"$log" 2>&1; then
  cat "$log" >&2
  rm -f "$log"
  exit 1
fi
rm -f "$log"
exec "${TIDESIM_BUILD_DIR:-build}/bin/tidesim" run "$@"
