"""The Python module's entry points under random arguments (issue 46): tidesim.run() and
tidesim.load_scenario() given values of every kind answer with a result, tidesim.InputError (the
command line's words) or TypeError naming the argument; never pybind11's "incompatible function
arguments", never another exception. Deterministic: a fixed seed draws the calls."""

import random

import numpy
import pytest

import tidesim
from conftest import four_nodes_scenario

VALUES = [None, 0, 1, 2, -1, 2.5, 1.7, float("nan"), 2**70, True, "12", "1", "x", "", "0", "2h",
          "default-k8s", "first-fit", [1], [1, 2], [1.7], [True], ["default-k8s"], (1,), {},
          {"a": 1}, b"1", object(), numpy.int64(2), numpy.float64(2.0), [numpy.int64(1)]]

ARGUMENTS = ["policies", "seeds", "threads", "series", "series_step", "series_seeds", "timeout",
             "max_events", "max_memory", "force", "progress"]


def test_run_answers_random_arguments_with_its_own_errors(tmp_path):
    path = tmp_path / "four-nodes.yaml"
    path.write_text(four_nodes_scenario("[default-k8s, first-fit]"))
    scenario = tidesim.load_scenario(str(path))
    rng = random.Random(46)
    answered = {"result": 0, "InputError": 0, "TypeError": 0}
    for _ in range(300):
        kwargs = {name: rng.choice(VALUES) for name in rng.sample(ARGUMENTS, rng.randint(1, 4))}
        try:
            tidesim.run(scenario, **kwargs)
            answered["result"] += 1
        except tidesim.InputError:
            answered["InputError"] += 1
        except TypeError as e:
            assert "incompatible function arguments" not in str(e), kwargs
            assert str(e).split(":")[0] in ARGUMENTS, (str(e), kwargs)
            answered["TypeError"] += 1
    # Every kind of answer happens (the draw is fixed).
    assert all(count > 0 for count in answered.values()), answered


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_load_scenario_answers_random_set_values(tmp_path, value):
    path = tmp_path / "four-nodes.yaml"
    path.write_text(four_nodes_scenario("[default-k8s]"))
    try:
        tidesim.load_scenario(str(path), set={"run.until": value})
    except (tidesim.InputError, TypeError) as e:
        assert "incompatible function arguments" not in str(e)
