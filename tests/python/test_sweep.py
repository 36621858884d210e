"""tidesim.sweep: a sweep file's tidy table, a column per swept key (docs/python.md)."""

import io
import os

import pandas as pd

import tidesim
from conftest import ROOT, SEED_BENCHMARK, cli, same_bits


def write_sweep(tmp_path):
    path = tmp_path / "nodes.yaml"
    path.write_text(
        f"scenario: {os.path.join(ROOT, SEED_BENCHMARK)}\n"
        "grid:\n"
        "  cluster.node_groups[0].count: [6, 8]\n"
        "policies: [default-k8s, load-aware]\n"
        "seeds: 2\n")
    return path


def test_sweep_is_tidy_and_each_row_is_a_run(tmp_path):
    path = write_sweep(tmp_path)
    frame = tidesim.sweep(str(path), threads=2, output=str(tmp_path / "out"))
    # 2 sizes x 2 policies x 2 seeds, in cell order: variant, then policy, then seed.
    assert len(frame) == 8
    assert list(frame.columns[:3]) == ["policy", "seed", "cluster.node_groups[0].count"]
    assert list(frame["cluster.node_groups[0].count"]) == [6] * 4 + [8] * 4
    assert list(frame["policy"]) == ["default-k8s", "default-k8s", "load-aware", "load-aware"] * 2
    assert list(frame["seed"]) == [1, 2] * 4
    # A row is the run of that policy and seed with that value set.
    row = frame.iloc[6]  # count 8, load-aware, seed 1
    alone = tidesim.run(tidesim.load_scenario(SEED_BENCHMARK,
                                              set={"cluster.node_groups[0].count": 8}),
                        policies=["load-aware"], seeds=[1]).metrics().iloc[0]
    for name in alone.index.drop(["policy", "seed"]):
        assert same_bits(row[name], alone[name]), name
    # The folder holds what `tidesim sweep` writes: the merged result and metrics.csv.
    assert (tmp_path / "out" / "result.json").exists()
    csv = pd.read_csv(tmp_path / "out" / "metrics.csv", float_precision="round_trip")
    pd.testing.assert_frame_equal(frame, csv, check_exact=True, check_dtype=False)


def test_sweep_equals_the_cli(tmp_path):
    path = write_sweep(tmp_path)
    frame = tidesim.sweep(str(path), threads=2, output=str(tmp_path / "py"))
    cli("sweep", str(path), "--threads", "2", "--output", str(tmp_path / "cli"), "-q")
    expected = pd.read_csv(tmp_path / "cli" / "metrics.csv", float_precision="round_trip")
    pd.testing.assert_frame_equal(frame, expected, check_exact=True, check_dtype=False)
    # The merged results are the same bytes.
    assert (tmp_path / "py" / "result.json").read_bytes() == (
        tmp_path / "cli" / "result.json").read_bytes()
    # And the summary compares the policies within each variant, as `tidesim sweep --format csv`.
    merged = tidesim.load_result(str(tmp_path / "py" / "result.json"))
    summary = merged.summary()
    assert list(summary.columns[:2]) == ["cluster.node_groups[0].count", "metric"]
    table = cli("sweep", str(path), "--output", str(tmp_path / "cli"), "--merge", "--format",
                "csv", "-q").stdout
    expected = pd.read_csv(io.StringIO(table), float_precision="round_trip")
    pd.testing.assert_frame_equal(summary, expected, check_exact=True)
