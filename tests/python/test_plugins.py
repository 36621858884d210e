"""Score and Filter plugins written in Python (docs/python.md, "Plugins in Python")."""

import pytest

import tidesim
from conftest import four_nodes_scenario

# 4 nodes of 4 exclusive A10s; 4 one-GPU jobs of an hour submitted at once.
SCENARIO = four_nodes_scenario("[default-k8s]")


def profile(plugin, filter_plugin=None):
    """A profile whose only score plugin is `plugin` (the default filters stay), with
    `filter_plugin` added at Filter when given (named after it then)."""
    name = (filter_plugin or plugin).lower()
    filters = (f"""\
      filter:
        enabled: [{{name: {filter_plugin}}}]
""" if filter_plugin else "")
    return f"""\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: {name}
    plugins:
{filters}      score:
        disabled: [{{name: "*"}}]
        enabled: [{{name: {plugin}, weight: 1}}]
"""


@tidesim.register_plugin
class MostPods(tidesim.ScorePlugin):
    name = "MostPods"

    def score(self, state, pod, node) -> int:
        return min(100, 10 * node.pod_count)


@tidesim.register_plugin
class FewestPods(tidesim.ScorePlugin):
    name = "FewestPods"

    def score(self, state, pod, node) -> int:
        return max(0, 100 - 10 * node.pod_count)


class Calls(tidesim.ScorePlugin):
    """Counts its calls per instance and checks what it is given."""
    name = "PyCalls"
    seen = []

    def __init__(self):
        self.calls = 0

    def score(self, state, pod, node) -> int:
        self.calls += 1
        assert 0 <= node.index < state.node_count == 4
        assert state.node(node.index).name == node.name
        assert pod.gpus == 1 and pod.requests["gpus"] == 1
        assert node.allocatable["gpus"] == 4
        Calls.seen.append((state.cycle, pod.name, node.name, node.pod_count))
        return 0


tidesim.register_plugin(Calls)


class Fails(tidesim.ScorePlugin):
    name = "PyFails"

    def score(self, state, pod, node) -> int:
        return helper_that_fails(node)


def helper_that_fails(node):
    raise KeyError(f"no such node {node.name}")


tidesim.register_plugin(Fails)


@pytest.fixture
def files(tmp_path):
    scenario = tmp_path / "four-nodes.yaml"
    scenario.write_text(SCENARIO)
    for name in ["MostPods", "FewestPods", "PyCalls", "PyFails"]:
        (tmp_path / f"{name}.yaml").write_text(profile(name))
    return tmp_path


def nodes_used(result):
    jobs = result.jobs()
    return {n for cell in jobs["nodes"] for n in cell.split(";")}


def test_plugins_place_pods(files):
    sc = tidesim.load_scenario(str(files / "four-nodes.yaml"))
    packed = tidesim.run(sc, policies=[f"pack={files / 'MostPods.yaml'}"])
    spread = tidesim.run(sc, policies=[f"spread={files / 'FewestPods.yaml'}"])
    # MostPods puts every pod where pods already are: one node; FewestPods one per node.
    assert len(nodes_used(packed)) == 1
    assert len(nodes_used(spread)) == 4


def test_plugin_sees_the_cycle(files):
    Calls.seen.clear()
    tidesim.run(str(files / "four-nodes.yaml"), policies=[f"calls={files / 'PyCalls.yaml'}"])
    cycles = [c for c, *_ in Calls.seen]
    # Each of the 4 pods is scored on every node that fits: 4 nodes each.
    assert len(Calls.seen) == 16
    assert all(cycles.count(c) == 4 for c in set(cycles))
    assert len({pod for _, pod, _, _ in Calls.seen}) == 4


def test_python_plugins_are_deterministic(files):
    scenario = str(files / "four-nodes.yaml")
    specs = [f"pack={files / 'MostPods.yaml'}", f"spread={files / 'FewestPods.yaml'}",
             "default-k8s"]
    one = tidesim.run(scenario, policies=specs, seeds=[1, 2, 3], threads=1)
    two = tidesim.run(scenario, policies=specs, seeds=[1, 2, 3], threads=3)
    again = tidesim.run(scenario, policies=specs, seeds=[1, 2, 3], threads=3)
    assert one.to_json() == two.to_json() == again.to_json()


def test_an_exception_stops_the_run_with_its_traceback(files):
    with pytest.raises(tidesim.PluginError) as raised:
        tidesim.run(str(files / "four-nodes.yaml"), policies=[f"f={files / 'PyFails.yaml'}"],
                    threads=2)
    message = str(raised.value)
    assert "PyFails" in message
    assert "Traceback (most recent call last)" in message
    assert "helper_that_fails" in message
    assert "KeyError: 'no such node gpu" in message


def test_a_score_out_of_range_is_refused(files):
    class TooHigh(tidesim.ScorePlugin):
        name = "PyTooHigh"

        def score(self, state, pod, node):
            return 101

    tidesim.register_plugin(TooHigh)
    (files / "high.yaml").write_text(profile("PyTooHigh"))
    with pytest.raises(tidesim.PluginError, match=r"PyTooHigh: score\(\) returned 101"):
        tidesim.run(str(files / "four-nodes.yaml"), policies=[f"h={files / 'high.yaml'}"])


def test_register_plugin_checks_the_class():
    class NoName(tidesim.ScorePlugin):
        def score(self, state, pod, node):
            return 0

    with pytest.raises(ValueError):
        tidesim.register_plugin(NoName)
    with pytest.raises(TypeError):
        tidesim.register_plugin(object)

    class Builtin(tidesim.ScorePlugin):
        name = "NodeResourcesFit"

        def score(self, state, pod, node):
            return 0

    with pytest.raises(ValueError, match="already registered"):
        tidesim.register_plugin(Builtin)


def test_a_pod_kept_after_its_call_cannot_be_read(files):
    kept = []

    class Keeps(tidesim.ScorePlugin):
        name = "PyKeeps"

        def score(self, state, pod, node):
            kept.append(pod)
            return 0

    tidesim.register_plugin(Keeps)
    (files / "keeps.yaml").write_text(profile("PyKeeps"))
    tidesim.run(str(files / "four-nodes.yaml"), policies=[f"k={files / 'keeps.yaml'}"])
    assert kept
    with pytest.raises(RuntimeError, match="valid only during the call"):
        kept[0].name


@tidesim.register_plugin
class AtMostOnePod(tidesim.FilterPlugin):
    """Rejects a node that already has a pod, with its reason."""
    name = "AtMostOnePod"

    def filter(self, state, pod, node):
        return node.pod_count < 1 or f"node {node.name} has {node.pod_count} pod"


def test_a_filter_plugin_rejects_nodes(files):
    # MostPods alone packs the 4 pods on one node (test_plugins_place_pods); with AtMostOnePod at
    # Filter each pod must take an empty node: one pod per node.
    (files / "one.yaml").write_text(profile("MostPods", filter_plugin="AtMostOnePod"))
    res = tidesim.run(str(files / "four-nodes.yaml"), policies=[f"one={files / 'one.yaml'}"],
                      seeds=[1, 2])
    jobs = res.jobs()
    for seed in (1, 2):
        assert len(set(jobs[jobs["seed"] == seed]["nodes"])) == 4
    # Deterministic over threads, like a Score plugin.
    again = tidesim.run(str(files / "four-nodes.yaml"), policies=[f"one={files / 'one.yaml'}"],
                        seeds=[1, 2], threads=2)
    assert res.to_json() == again.to_json()


def test_a_filter_plugin_that_returns_nonsense_stops_the_run(files):
    class Nonsense(tidesim.FilterPlugin):
        name = "PyNonsense"

        def filter(self, state, pod, node):
            return 3

    tidesim.register_plugin(Nonsense)
    (files / "nonsense.yaml").write_text(profile("MostPods", filter_plugin="PyNonsense"))
    with pytest.raises(tidesim.PluginError, match=r"PyNonsense: filter\(\) returned 3"):
        tidesim.run(str(files / "four-nodes.yaml"), policies=[f"n={files / 'nonsense.yaml'}"])

    class NoFilter(tidesim.FilterPlugin):
        name = "PyNoFilter"

    with pytest.raises(TypeError, match="does not define filter"):
        tidesim.register_plugin(NoFilter)


# Issue 46, item 8: a score of numpy.int64(50) is a score (it was refused as "not an int"); 2**70
# is a PluginError (it was a cast error); Ctrl-C in a plugin (KeyboardInterrupt raised in its
# call) reaches Python as KeyboardInterrupt, not as the plugin's PluginError.
def test_python_plugin_scores_and_interrupts(files):
    numpy = pytest.importorskip("numpy")

    class NumpyScore(tidesim.ScorePlugin):
        name = "PyNumpyScore"

        def score(self, state, pod, node):
            return numpy.int64(50)

    class HugeScore(tidesim.ScorePlugin):
        name = "PyHugeScore"

        def score(self, state, pod, node):
            return 2**70

    class Interrupted(tidesim.ScorePlugin):
        name = "PyInterrupted"

        def score(self, state, pod, node):
            raise KeyboardInterrupt

    for plugin in (NumpyScore, HugeScore, Interrupted):
        tidesim.register_plugin(plugin)
        (files / f"{plugin.name}.yaml").write_text(profile(plugin.name))
    scenario = str(files / "four-nodes.yaml")
    ran = tidesim.run(scenario, policies=[f"n={files / 'PyNumpyScore.yaml'}"], seeds=[1])
    assert ran.metrics()["policy"].tolist() == ["n"]
    with pytest.raises(tidesim.PluginError, match=r"PyHugeScore: score\(\) returned 1180591620717411303424, not an int"):
        tidesim.run(scenario, policies=[f"h={files / 'PyHugeScore.yaml'}"], seeds=[1])
    with pytest.raises(KeyboardInterrupt):
        tidesim.run(scenario, policies=[f"i={files / 'PyInterrupted.yaml'}"], seeds=[1])
