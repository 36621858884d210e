"""Bad input raises tidesim.InputError with the command line's message: file:line:column, field
(docs/python.md)."""

import pytest

import tidesim
from conftest import SEED_BENCHMARK, cli, cli_error, four_nodes_scenario

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


# Issue 46, item 8: run()'s arguments are checked as the command line checks its options, with
# the same words (the option's name written as the argument's): seeds='12' ran seeds 1 and 2,
# seeds=[1.7] ran seed 1, threads 0, -1 and 2.5 were accepted, policies='default-k8s' failed as
# "unknown policy 'd'", and several bad arguments raised pybind11's "incompatible function
# arguments".
def test_python_arguments_are_checked_as_the_cli_checks_them(tmp_path):
    path = tmp_path / "four-nodes.yaml"
    path.write_text(four_nodes_scenario("[default-k8s, first-fit]"))
    scenario = str(path)
    one = tidesim.run(scenario, policies="default-k8s", seeds="12", threads=1)
    assert one.seeds == [12] and one.policies == ["default-k8s"]
    assert tidesim.run(scenario, policies=["default-k8s"], seeds=12).seeds == [12]
    for seeds, text in [([1.7], "1.7"), ([-1], "-1"), (["x"], "x"), ([True], "True")]:
        with pytest.raises(tidesim.InputError) as raised:
            tidesim.run(scenario, seeds=seeds)
        cli_words = cli("run", scenario, "--seed", text, check=False).stderr.splitlines()[0]
        assert cli_words == f"--seed: '{text}' is not a non-negative integer below 2^64"
        assert str(raised.value) == cli_words.replace("--seed", "seeds")
    for threads in [0, -1, 2.5, 1025]:
        with pytest.raises(tidesim.InputError) as raised:
            tidesim.run(scenario, seeds=[1], threads=threads)
        cli_words = cli("run", scenario, "--threads", str(threads), check=False).stderr
        assert str(raised.value) == cli_words.splitlines()[0].replace("--threads", "threads")
    for argument, option, value in [("max_events", "--max-events", 0),
                                    ("max_events", "--max-events", 1.5),
                                    ("max_memory", "--max-memory", "12X"),
                                    ("timeout", "--timeout", 5)]:
        with pytest.raises(tidesim.InputError) as raised:
            tidesim.run(scenario, seeds=[1], **{argument: value})
        expected = cli_error("run", scenario, "--seed", "1", option, str(value))
        assert str(raised.value) == expected.replace(option, argument)
    with pytest.raises(TypeError, match="force: expected True or False"):
        tidesim.run(scenario, seeds=[1], force="yes")
