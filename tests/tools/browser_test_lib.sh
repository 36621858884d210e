# What the report's browser tests (report_browser_test.sh, report_page_test.sh) share; sourced by
# them once `tidesim`, `chromium`, `work` and `root` are set.

# Exits 77 (ctest: skipped) with a message when chromium is missing, or fails under CI=true, where
# tools/deps.sh installs it.
require_chromium() {
  if ! command -v "$chromium" >/dev/null 2>&1; then
    if [[ "${CI:-}" == "true" ]]; then
      echo "FAIL: chromium is not installed (tools/deps.sh installs it under CI=true)" >&2
      exit 1
    fi
    echo "skipped: chromium is not on PATH (Debian: apt-get install chromium fonts-dejavu-core;" \
      "tools/deps.sh installs them)"
    exit 77
  fi
}

run() {  # LOG COMMAND...: runs tidesim, shows its log when it fails
  local log=$1
  shift
  if ! "$tidesim" "$@" >"$work/$log" 2>&1; then
    echo "FAIL: tidesim $*" >&2
    cat "$work/$log" >&2
    exit 1
  fi
}

# A small sweep of the seed benchmark (two cluster sizes, two policies, two seeds) into
# $work/sweep.yaml.
write_sweep() {
  cat >"$work/sweep.yaml" <<YAML
scenario: $root/scenarios/seed-benchmark.yaml
grid:
  cluster.node_groups[0].count: [6, 8]
policies: [default-k8s, load-aware]
seeds: 2
YAML
}

# The verdict's text as chromium's --dump-dom escapes it, unescaped.
unescape() { sed -e 's/&quot;/"/g' -e "s/&#39;/'/g" -e 's/&lt;/</g' -e 's/&gt;/>/g' -e 's/&amp;/\&/g'; }
