"""Plugin registries as values (docs/python.md, "Plugins in Python"): a Python plugin lives in a
Registry its caller owns, so two different plugins of one name run in one process."""

import pytest

import tidesim
from conftest import four_nodes_scenario

# 4 nodes of 4 exclusive A10s; 4 one-GPU jobs of an hour submitted at once. The scenario's
# policy is a file whose only Score plugin is "Placer": each registry says which Placer it is.
SCENARIO = four_nodes_scenario("[{name: placer, scheduler: placer.yaml}]")

PROFILE = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: placer
    plugins:
      score:
        disabled: [{name: "*"}]
        enabled: [{name: Placer, weight: 1}]
"""


class Packs(tidesim.ScorePlugin):
    """Placer that packs: the fuller a node, the higher its score."""
    name = "Placer"

    def score(self, state, pod, node):
        return min(100, 25 * node.pod_count)


class Spreads(tidesim.ScorePlugin):
    """Placer that spreads: the emptier a node, the higher its score."""
    name = "Placer"

    def score(self, state, pod, node):
        return max(0, 100 - 25 * node.pod_count)


@pytest.fixture
def scenario(tmp_path):
    (tmp_path / "placer.yaml").write_text(PROFILE)
    path = tmp_path / "four-nodes.yaml"
    path.write_text(SCENARIO)
    return str(path)


def nodes_used(result):
    """The most nodes one seed's run placed its 4 pods on (1: packed, 4: spread)."""
    jobs = result.jobs()
    return max(len(set(jobs[jobs["seed"] == seed]["nodes"])) for seed in set(jobs["seed"]))


def test_two_plugins_of_one_name_run_in_one_process(scenario):
    packing = tidesim.Registry([Packs])
    spreading = tidesim.Registry()
    spreading.register(Spreads)
    packed = tidesim.load_scenario(scenario, registry=packing)
    spread = tidesim.load_scenario(scenario, registry=spreading)
    # Both scenarios loaded before either runs: each keeps its own Placer.
    assert nodes_used(tidesim.run(packed)) == 1
    assert nodes_used(tidesim.run(spread)) == 4
    # The same, the plugins given per call, and again in the other order.
    assert nodes_used(tidesim.run(scenario, plugins=[Spreads])) == 4
    assert nodes_used(tidesim.run(scenario, plugins=[Packs])) == 1
    # Neither went into the default registry: there no plugin is named Placer.
    assert "Placer" not in tidesim.default_registry.plugins
    with pytest.raises(tidesim.InputError, match="Placer"):
        tidesim.load_scenario(scenario)


def test_runs_of_two_registries_side_by_side_in_threads(scenario):
    import threading

    results = {}

    def go(key, cls):
        results[key] = nodes_used(tidesim.run(scenario, plugins=[cls], seeds=[1, 2], threads=2))

    threads = [threading.Thread(target=go, args=("packs", Packs)),
               threading.Thread(target=go, args=("spreads", Spreads))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {"packs": 1, "spreads": 4}


def test_a_registry_refuses_what_register_plugin_refuses():
    class Builtin(tidesim.ScorePlugin):
        name = "NodeResourcesFit"

        def score(self, state, pod, node):
            return 0

    with pytest.raises(ValueError, match="already registered"):
        tidesim.Registry([Builtin])
    with pytest.raises(TypeError):
        tidesim.Registry([object])
    with pytest.raises(TypeError, match="not both"):
        tidesim.load_scenario(plugins=[Packs], registry=tidesim.Registry())


def test_a_loaded_scenario_keeps_its_registry(scenario):
    r = tidesim.Registry([Packs])
    packed = tidesim.load_scenario(scenario, registry=r)
    r.register(Spreads)  # replaces Placer in r: scenarios loaded from now on spread
    assert nodes_used(tidesim.run(packed)) == 1
    assert nodes_used(tidesim.run(scenario, registry=r)) == 4
    with pytest.raises(TypeError, match="keeps the plugins"):
        tidesim.run(packed, registry=r)
