"""Shared helpers of the Python module's tests: the `tidesim` CLI of the same build (TIDESIM_CLI,
set by ctest; build/bin/tidesim otherwise), run from the repository root."""

import json
import math
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("TIDESIM_CLI", os.path.join(ROOT, "build", "bin", "tidesim"))
SEED_BENCHMARK = "scenarios/seed-benchmark.yaml"

# 4 nodes of 4 exclusive A10s; 4 one-GPU jobs of an hour submitted at once.
FOUR_NODES = """\
name: four-nodes
cluster:
  node_groups:
    - name: gpu
      count: 4
      gpu: A10
      topology: a10x4-pcie
workload:
  arrivals: {{process: burst, count: 4}}
  jobs:
    - name: job
      pod: {{gpus: 1}}
      model: resnet50
      batch_size: 64
      duration: 1h
policies: {policies}
seeds: [1]
"""


def four_nodes_scenario(policies):
    """FOUR_NODES under `policies` (the YAML text of the scenario's policies list)."""
    return FOUR_NODES.format(policies=policies)


def cli(*args, check=True):
    """Runs the CLI from the repository root; returns the finished process."""
    done = subprocess.run([CLI, *args], cwd=ROOT, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError(f"tidesim {' '.join(args)} exited {done.returncode}: {done.stderr}")
    return done


def cli_json(*args):
    """The JSON document `tidesim run ... --format json` prints."""
    return json.loads(cli("run", *args, "--format", "json", "-q").stdout)


def cli_error(*args):
    """The message after "tidesim: error: " of a command that fails on bad input (exit 2)."""
    done = cli(*args, check=False)
    assert done.returncode == 2, done.stderr
    prefix = "tidesim: error: "
    lines = [line for line in done.stderr.splitlines() if line.startswith(prefix)]
    assert len(lines) == 1, done.stderr
    return lines[0][len(prefix):]


def same_bits(a, b):
    """Whether two metric values are the same double (NaN equal to NaN)."""
    if a is None or b is None:
        return a is None and b is None
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a.hex() == b.hex()


def assert_metrics_equal_cli(frame, doc):
    """`frame` (Result.metrics()) holds exactly the runs and metric values of the CLI's JSON
    document `doc`, in its order, each value the same double."""
    runs = doc["runs"]
    assert list(frame["policy"]) == [r["policy"] for r in runs]
    assert [int(s) for s in frame["seed"]] == [r["seed"] for r in runs]
    names = set()
    for r in runs:
        names.update(r["metrics"].keys())
    assert set(frame.columns) - {"policy", "seed"} == names
    for i, r in enumerate(runs):
        for name in names:
            expected = r["metrics"].get(name)
            got = frame[name].iloc[i]
            if expected is None:
                assert math.isnan(got), (r["policy"], r["seed"], name, got)
            else:
                assert same_bits(got, expected), (r["policy"], r["seed"], name, got, expected)


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(autouse=True)
def in_root(monkeypatch):
    """Every test runs from the repository root, as the CLI's do (scenario paths are relative)."""
    monkeypatch.chdir(ROOT)
