"""Bad input raises tidesim.InputError with the command line's message: file:line:column, field
(docs/python.md)."""

import pytest

import tidesim
from conftest import SEED_BENCHMARK, cli, cli_error

# A scenario with a misspelt key on line 6, column 7 (`cuont` under the first node group).
BAD_KEY = """\
name: bad-key
cluster:
  node_groups:
    - name: gpu
      gpu: A10
      cuont: 1
      topology: a10x4-pcie
workload:
  arrivals: {process: burst, count: 2}
  jobs:
    - name: job
      pod: {gpus: 1}
      model: resnet50
      batch_size: 64
      duration: 100s
policies: [default-k8s]
"""


def test_bad_key_names_its_place(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(BAD_KEY)
    with pytest.raises(tidesim.InputError) as raised:
        tidesim.load_scenario(str(path))
    error = raised.value
    assert isinstance(error, ValueError)
    assert str(error).startswith(f"{path}:6:7: ")
    assert "cuont" in str(error)
    assert (error.file, error.line, error.column) == (str(path), 6, 7)
    assert str(error) == cli_error("validate", str(path))


def test_bad_set_key_is_the_cli_message():
    with pytest.raises(tidesim.InputError) as raised:
        tidesim.load_scenario(SEED_BENCHMARK, set={"cluster.node_groups[0].cuont": 3})
    message = str(raised.value)
    assert "cuont" in message
    cli_message = cli_error("run", SEED_BENCHMARK, "--set", "cluster.node_groups[0].cuont=3")
    # The same error; only the option's name differs (`set` here, `--set` there).
    assert message == cli_message.replace("--set", "set")


def test_unknown_policy_is_the_cli_message():
    with pytest.raises(tidesim.InputError) as raised:
        tidesim.run(SEED_BENCHMARK, policies=["load-awre"], seeds=[1])
    assert "did you mean 'load-aware'" in str(raised.value)
    assert str(raised.value) == cli_error("run", SEED_BENCHMARK, "--policy", "load-awre",
                                          "--seed", "1")


def test_seed_twice_is_the_cli_message():
    with pytest.raises(tidesim.InputError) as raised:
        tidesim.run(SEED_BENCHMARK, seeds=[1, 1])
    assert str(raised.value) == cli_error("run", SEED_BENCHMARK, "--seed", "1", "--seed", "1")


def test_missing_file():
    with pytest.raises(tidesim.InputError) as raised:
        tidesim.load_scenario("scenarios/no-such-file.yaml")
    assert str(raised.value).startswith("scenarios/no-such-file.yaml")


def test_series_options_need_series():
    with pytest.raises(tidesim.InputError, match="series_step"):
        tidesim.run(SEED_BENCHMARK, seeds=[1], series_step="1h")


def test_a_result_without_its_records_refuses_their_frames(tmp_path):
    """A result written with `tidesim run --records none` has no per-job records or attempt log:
    Result.jobs() and Result.attempts() raise InputError naming the flag instead of returning
    empty frames; the metrics are all there."""
    out = tmp_path / "out"
    cli("run", "tests/tools/data/one_card.yaml", "--output", str(out), "--records", "none", "-q")
    result = tidesim.load_result(str(out / "result.json"))
    with pytest.raises(tidesim.InputError) as raised:
        result.jobs()
    assert str(raised.value) == (
        "written with `tidesim run --records none`: the per-job records are not in it, and "
        "jobs.csv needs them; rerun without --records (or with a --records list that keeps jobs)"
    )
    with pytest.raises(tidesim.InputError, match="the attempt log is not in it"):
        result.attempts()
    assert len(result.metrics()) == len(result.seeds) * len(result.policies)
