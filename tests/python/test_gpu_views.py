"""The GPU views of a Python plugin's Node and the job view of a Python job policy
(docs/python.md, "GPU views of a node" and "Job-level policies in Python")."""

import pytest

import tidesim

# Two nodes of 4 exclusive cards: `a10` with A10s (23,028 MiB visible each: 92,112 MiB free) and
# `a100` with 80 GB A100s on NVLink (81,920 MiB each: 327,680 MiB free), both with the default 32
# CPUs and 192 GiB. Four one-GPU jobs of an hour (8 CPUs, 48 GiB each), submitted at once.
SCENARIO = """\
name: two-memories
cluster:
  node_groups:
    - {name: a10, gpu: A10, topology: a10x4-pcie}
    - {name: a100, gpu: A100-SXM4-80, topology: hgx-a100x4}
workload:
  arrivals: {process: burst, count: 4}
  jobs:
    - name: job
      pod: {gpus: 1, cpu: 8, memory: 48Gi}
      model: resnet50
      batch_size: 64
      duration: 1h
policies: [default-k8s]
seeds: [1]
"""

MIB = 1024 * 1024


def profile(plugin):
    """A profile whose only score plugin is `plugin` (the default filters stay)."""
    return f"""\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: {plugin.lower()}
    plugins:
      score:
        disabled: [{{name: "*"}}]
        enabled: [{{name: {plugin}, weight: 1}}]
"""


@tidesim.register_plugin
class MostFreeGpuMemory(tidesim.ScorePlugin):
    """Prefers the node with the most GPU memory nobody requested: one point per 4 GiB free."""
    name = "MostFreeGpuMemory"
    seen = []

    def score(self, state, pod, node) -> int:
        free = sum(card["memory_free_bytes"] for card in node.cards)
        MostFreeGpuMemory.seen.append((node.name, node.gpu_model, node.sharing,
                                       node.nvlink_groups, node.cards, node.pods,
                                       node.telemetry))
        return min(100, free // (4096 * MIB))


@tidesim.register_plugin
class ReadsTelemetry(tidesim.ScorePlugin):
    """Reads the telemetry the scheduler sees (and so makes the run scrape it)."""
    name = "ReadsTelemetry"
    reads_metrics = True
    seen = []

    def score(self, state, pod, node) -> int:
        ReadsTelemetry.seen.append((state.now_s, node.name, node.telemetry, node.cards))
        return 0


def write(tmp_path):
    (tmp_path / "two.yaml").write_text(SCENARIO)
    for plugin in ["MostFreeGpuMemory", "ReadsTelemetry"]:
        (tmp_path / f"{plugin}.yaml").write_text(profile(plugin))
    return str(tmp_path / "two.yaml")


def placed(result):
    """Job name -> its node."""
    jobs = result.jobs()
    return dict(zip(jobs["job"], jobs["nodes"]))


def test_most_free_gpu_memory_changes_placements(tmp_path):
    scenario = write(tmp_path)
    MostFreeGpuMemory.seen.clear()
    default = placed(tidesim.run(scenario))
    memory = placed(tidesim.run(
        scenario, policies=[f"memory={tmp_path / 'MostFreeGpuMemory.yaml'}"]))
    # By hand: free memory in 4 GiB points, a10 92,112 MiB -> 22, a100 327,680 MiB -> 80, then 60,
    # 40, 20 as its cards are taken: the first three pods go to a100, the fourth (20 < 22) to a10.
    assert sorted(memory.values()) == ["a10-01", "a100-01", "a100-01", "a100-01"]
    # default-k8s scores the nodes' equal CPU and host memory (NodeResourcesFit, LeastAllocated):
    # each pod goes to the node with fewer pods (a tie drawn when equal), two and two.
    assert sorted(default.values()) == ["a10-01", "a10-01", "a100-01", "a100-01"]
    assert memory != default


def test_the_node_view_has_cards_topology_and_pods(tmp_path):
    scenario = write(tmp_path)
    MostFreeGpuMemory.seen.clear()
    tidesim.run(scenario, policies=[f"memory={tmp_path / 'MostFreeGpuMemory.yaml'}"])
    by_node = {}
    for name, model, sharing, groups, cards, pods, telemetry in MostFreeGpuMemory.seen:
        by_node.setdefault(name, []).append((model, sharing, groups, cards, pods, telemetry))
    model, sharing, groups, cards, pods, telemetry = by_node["a100-01"][0]
    assert (model, sharing) == ("A100-SXM4-80", "exclusive")
    assert groups == [[0, 1, 2, 3]]  # hgx-a100x4: every card on NVLink
    assert len(cards) == 4 and pods == [] and telemetry is None
    assert cards[0] == {"index": 0, "allocated_milli": 0, "memory_total_bytes": 81920 * MIB,
                        "memory_requested_bytes": 0, "memory_free_bytes": 81920 * MIB,
                        "memory_used_bytes": None, "utilization": None}
    assert by_node["a10-01"][0][:3] == ("A10", "exclusive", [])  # PCIe: no NVLink group
    # The last scoring of a100 (for the fourth pod): three cards held, three pods of three jobs.
    model, sharing, groups, cards, pods, telemetry = by_node["a100-01"][-1]
    assert sum(c["allocated_milli"] for c in cards) == 3000
    assert sum(c["memory_requested_bytes"] for c in cards) == 3 * 81920 * MIB
    assert [(p["kind"], p["model"], p["gpus"]) for p in pods] == [("catalogue", "resnet50", 1)] * 3
    assert len({p["job"] for p in pods}) == 3
    assert all(p["name"].startswith(p["job"] + "-") for p in pods)


# The run warns that no job declares an NVLink need (a profile that reads metrics reads NVLink
# load too); beside the point here.
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_telemetry_has_its_staleness(tmp_path):
    scenario = write(tmp_path)
    ReadsTelemetry.seen.clear()
    tidesim.run(scenario, policies=[f"t={tmp_path / 'ReadsTelemetry.yaml'}"])
    assert ReadsTelemetry.seen
    for now, node, telemetry, cards in ReadsTelemetry.seen:
        if telemetry is None:  # no scrape yet: the query finds nothing
            assert all(c["memory_used_bytes"] is None for c in cards)
            continue
        assert len(telemetry["gpu_memory_utilization"]) == 4
        assert telemetry["staleness_s"] == now - telemetry["sampled_at_s"] >= 0
        assert all(c["memory_used_bytes"] is not None for c in cards)


@tidesim.register_job_policy
class AttainedView(tidesim.JobPolicy):
    """FIFO without backfill that records the job view every 10 minutes."""
    name = "py-attained-view"
    interval_s = 600
    seen = []

    def decide(self, state):
        chosen, free = [], state.capacity_gpus
        for job in sorted(state.jobs, key=lambda j: (j.submitted_s, j.order)):
            AttainedView.seen.append((state.now_s, job.gpus, job.replicas, job.gpus_per_replica,
                                      job.attained_gpu_s, job.admitted_s, job.progress,
                                      job.nodes, job.placement,
                                      state.throughput(job.id, [job.gpus]),
                                      state.step_seconds(job.id, [job.gpus])))
            if job.gpus <= free:
                chosen.append(job.id)
                free -= job.gpus
        return chosen


def test_the_job_view_has_demand_service_progress_and_throughput(tmp_path):
    path = tmp_path / "admitted.yaml"
    path.write_text(SCENARIO.replace(
        "policies: [default-k8s]",
        "policies:\n  - {name: py, scheduler: default-k8s, admission: {policy: py-attained-view}}"))
    AttainedView.seen.clear()
    tidesim.run(str(path))
    assert AttainedView.seen
    later = [s for s in AttainedView.seen if s[0] > 0 and s[7]]
    assert later  # decisions while jobs run
    for now, gpus, replicas, per, attained, admitted_s, progress, nodes, placement, rate, step \
            in AttainedView.seen:
        assert (gpus, replicas, per) == (1, 1, 1)
        # A one-GPU job admitted for admitted_s seconds attained that many GPU-seconds.
        assert attained == pytest.approx(admitted_s * gpus)
        assert 0 <= progress <= 1
        assert len(nodes) == len(placement) and sum(placement) in (0, 1)
        assert rate == 1 / step
    # Running jobs progress: at 10 minutes each placed job has done part of its hour of work.
    ten = [s for s in later if s[0] == 600]
    assert ten and all(0 < s[6] < 1 for s in ten)
