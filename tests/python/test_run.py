"""tidesim.load_scenario and tidesim.run against `tidesim run` (docs/python.md): the same runs,
the same numbers, bit for bit."""

import json
import math
import threading
import time

import pandas as pd
import pytest

import tidesim
from conftest import SEED_BENCHMARK, assert_metrics_equal_cli, cli, cli_json

POLICIES = ["default-k8s", "load-aware"]


def test_import_and_version():
    assert tidesim.__version__ == cli("--version").stdout.split()[-1]


def test_load_scenario_reads_the_file():
    sc = tidesim.load_scenario(SEED_BENCHMARK)
    assert sc.name == "seed-benchmark"
    assert sc.path == SEED_BENCHMARK
    assert sc.policies == ["default-k8s", "load-aware"]
    assert sc.seeds == list(range(1, 11))
    assert sc.overrides == []


def test_metrics_equal_cli_json_bit_for_bit():
    sc = tidesim.load_scenario(SEED_BENCHMARK)
    res = tidesim.run(sc, policies=POLICIES, seeds=[1, 2, 3], threads=2)
    frame = res.metrics()
    assert isinstance(frame, pd.DataFrame)
    assert len(frame) == 6  # 2 policies x 3 seeds, policy order then seed order
    assert list(frame["policy"]) == ["default-k8s"] * 3 + ["load-aware"] * 3
    assert list(frame["seed"]) == [1, 2, 3, 1, 2, 3]
    doc = cli_json(SEED_BENCHMARK, "--policy", "default-k8s", "--policy", "load-aware",
                   "--seed", "1", "--seed", "2", "--seed", "3")
    assert_metrics_equal_cli(frame, doc)
    # The whole document too: same provenance (the command that reproduces it), same bytes.
    assert json.loads(res.to_json()) == doc


def test_set_equals_cli_set():
    sc = tidesim.load_scenario(SEED_BENCHMARK, set={"cluster.node_groups[0].count": 12})
    assert sc.overrides == ["cluster.node_groups[0].count=12"]
    res = tidesim.run(sc, seeds=[4], threads=1)
    doc = cli_json(SEED_BENCHMARK, "--seed", "4", "--set", "cluster.node_groups[0].count=12")
    assert_metrics_equal_cli(res.metrics(), doc)
    assert json.loads(res.to_json())["metadata"]["provenance"] == doc["metadata"]["provenance"]
    # The override took effect: 12 nodes run the jobs, not the file's 8.
    jobs = res.jobs()
    nodes = {n for cell in jobs["nodes"].dropna() for n in cell.split(";")}
    assert len(nodes) == 12
    plain = tidesim.run(SEED_BENCHMARK, seeds=[4], threads=1).jobs()
    assert len({n for cell in plain["nodes"].dropna() for n in cell.split(";")}) == 8


def test_set_values_are_yaml():
    # A number, a list and YAML text give the scenario the values --set would.
    sc = tidesim.load_scenario(SEED_BENCHMARK,
                               set={"seeds": [3, 5], "run.until": "2h",
                                    "cluster.node_groups[0].count": 2})
    assert sc.seeds == [3, 5]
    assert sc.overrides == ["seeds=[3, 5]", "run.until=2h", "cluster.node_groups[0].count=2"]
    same = tidesim.load_scenario(SEED_BENCHMARK, set=list(sc.overrides))
    assert same.seeds == [3, 5]


def test_policy_definitions_as_cli():
    specs = ["default-k8s", "mine=scenarios/schedulers/load-aware.yaml"]
    res = tidesim.run(SEED_BENCHMARK, policies=specs, seeds=[2], threads=2)
    assert res.policies == ["default-k8s", "mine"]
    doc = cli_json(SEED_BENCHMARK, "--policy", specs[0], "--policy", specs[1], "--seed", "2")
    assert_metrics_equal_cli(res.metrics(), doc)


def test_threads_change_nothing():
    one = tidesim.run(SEED_BENCHMARK, seeds=[1, 2], threads=1).metrics()
    two = tidesim.run(SEED_BENCHMARK, seeds=[1, 2], threads=2).metrics()
    pd.testing.assert_frame_equal(one, two, check_exact=True)


def test_summary_is_the_cli_table():
    res = tidesim.run(SEED_BENCHMARK, seeds=[1, 2, 3], threads=2)
    summary = res.summary()
    cli_csv = cli("run", SEED_BENCHMARK, "--seed", "1", "--seed", "2", "--seed", "3",
                  "--format", "csv", "-q").stdout
    import io
    expected = pd.read_csv(io.StringIO(cli_csv), float_precision="round_trip")
    pd.testing.assert_frame_equal(summary, expected, check_exact=True)
    # Its numbers, from the metrics by hand: the mean over 3 seeds, the CI half-width
    # t(0.975, 2) sd / sqrt(3), and the paired difference's mean.
    frame = res.metrics()
    wait = summary[summary["metric"] == "mean_wait_s"].set_index("policy")
    a = frame[frame["policy"] == "default-k8s"]["mean_wait_s"].to_numpy()
    b = frame[frame["policy"] == "load-aware"]["mean_wait_s"].to_numpy()
    assert wait.loc["default-k8s", "n"] == 3
    assert wait.loc["default-k8s", "mean"] == pytest.approx(a.mean(), rel=1e-12)
    t = 4.302652729911275
    assert wait.loc["load-aware", "ci95_half"] == pytest.approx(
        t * b.std(ddof=1) / math.sqrt(3), rel=1e-9)
    assert wait.loc["load-aware", "difference_vs_first"] == pytest.approx(
        (b - a).mean(), rel=1e-12, abs=1e-9)


def test_jobs_attempts_and_nodes_are_the_output_csvs(tmp_path):
    res = tidesim.run(SEED_BENCHMARK, seeds=[1], threads=2, series="full")
    cli("run", SEED_BENCHMARK, "--seed", "1", "--output", str(tmp_path), "-q")
    for name, frame in [("jobs", res.jobs()), ("attempts", res.attempts()),
                        ("nodes", res.nodes()), ("cards", res.cards())]:
        expected = pd.read_csv(tmp_path / f"{name}.csv", float_precision="round_trip")
        pd.testing.assert_frame_equal(frame, expected, check_exact=True)
    # 100 jobs per run, two runs; 8 nodes of 4 cards.
    assert len(res.jobs()) == 200
    assert res.nodes()["node"].nunique() == 8
    assert res.cards().groupby("node")["gpu_id"].nunique().eq(4).all()


def test_no_series_by_default():
    res = tidesim.run(SEED_BENCHMARK, seeds=[1], policies=["default-k8s"])
    assert len(res.nodes()) == 0
    assert len(res.jobs()) == 100


def test_save_and_load_result(tmp_path):
    res = tidesim.run(SEED_BENCHMARK, seeds=[1, 2], threads=2)
    res.save(str(tmp_path / "result.json"))
    back = tidesim.load_result(str(tmp_path / "result.json"))
    pd.testing.assert_frame_equal(back.metrics(), res.metrics(), check_exact=True)
    assert back.table() == res.table()
    assert "mean task wait" in back.table()


def test_gil_is_released_while_runs_go_on():
    # While one thread runs 20 simulations, the main thread keeps running Python: it could not
    # if the run held the GIL.
    done = []
    worker = threading.Thread(
        target=lambda: done.append(tidesim.run(SEED_BENCHMARK, threads=1)))
    ticks = 0
    start = time.monotonic()
    worker.start()
    while worker.is_alive():
        ticks += 1
        time.sleep(0.002)
    elapsed = time.monotonic() - start
    assert done and len(done[0].metrics()) == 20
    if elapsed > 0.3:  # long enough to tell
        assert ticks >= 0.3 * elapsed / 0.002 / 4
