"""Job-level policies written in Python (docs/python.md, "A job-level policy in Python")."""

import os

import pytest

import tidesim
from conftest import ROOT, same_bits

# 2 nodes of 4 exclusive A10s; 12 jobs of 1, 2 or 4 GPUs arriving about every 5 minutes, each
# 20 to 40 minutes long, checkpointing every 10 minutes.
SCENARIO = """\
name: two-nodes
cluster:
  node_groups:
    - name: gpu
      count: 2
      gpu: A10
      topology: a10x4-pcie
workload:
  arrivals: {{process: poisson, count: 12, mean_interarrival: 5m}}
  jobs:
    - {{name: one, pod: {{gpus: 1}}, model: resnet50, batch_size: 64, duration: 40m,
       checkpoint_interval: 10m}}
    - {{name: two, pod: {{gpus: 2}}, model: resnet50, batch_size: 64, duration: 30m,
       checkpoint_interval: 10m}}
    - {{name: four, pod: {{gpus: 4}}, model: resnet50, batch_size: 64, duration: 20m,
       checkpoint_interval: 10m}}
policies:
{policies}
seeds: [1, 2]
"""


def scenario(tmp_path, *admissions):
    """A scenario file whose policies are default-k8s under each `admission:` given."""
    lines = "\n".join(f"  - {{name: {name}, scheduler: default-k8s, admission: {adm}}}"
                      for name, adm in admissions)
    path = tmp_path / "two-nodes.yaml"
    path.write_text(SCENARIO.format(policies=lines))
    return str(path)


@tidesim.register_job_policy
class PyFifo(tidesim.JobPolicy):
    """FIFO as the built-in does it: admitted jobs kept, then by submission, with backfill."""
    name = "py-fifo"

    def decide(self, state):
        chosen = [j.id for j in state.jobs if j.admitted]
        free = state.capacity_gpus - sum(j.gpus for j in state.jobs if j.admitted)
        for job in sorted((j for j in state.jobs if not j.admitted),
                          key=lambda j: (j.submitted_s, j.order)):
            if job.gpus <= free:
                chosen.append(job.id)
                free -= job.gpus
        return chosen


@tidesim.register_job_policy
class MostGpusFirst(tidesim.JobPolicy):
    """Preemptive: every minute, the jobs asking for the most GPUs run."""
    name = "py-most-gpus-first"
    interval_s = 60

    def decide(self, state):
        chosen, free = [], state.capacity_gpus
        for job in sorted(state.jobs, key=lambda j: (-j.gpus, j.order)):
            if job.gpus <= free:
                chosen.append(job.id)
                free -= job.gpus
        return chosen


def test_a_python_fifo_equals_the_built_in_bit_for_bit(tmp_path):
    path = scenario(tmp_path, ("fifo", "{policy: fifo}"), ("py-fifo", "{policy: py-fifo}"))
    metrics = tidesim.run(path).metrics().set_index(["policy", "seed"])
    for seed in (1, 2):
        builtin, python = metrics.loc[("fifo", seed)], metrics.loc[("py-fifo", seed)]
        assert all(same_bits(builtin[m], python[m]) for m in metrics.columns)


def test_a_python_policy_decides_and_is_deterministic(tmp_path):
    path = scenario(tmp_path, ("fifo", "{policy: fifo}"),
                    ("most", "{policy: py-most-gpus-first}"))
    one = tidesim.run(path, threads=1)
    two = tidesim.run(path, threads=2)
    assert one.to_json() == two.to_json()
    metrics = one.metrics().set_index(["policy", "seed"])
    # Preempting for larger jobs suspends smaller ones: suspensions FIFO never makes.
    assert metrics["interruptions_suspension"].loc["fifo"].sum() == 0
    assert metrics["interruptions_suspension"].loc["most"].sum() > 0


# Job-level policies live in registry values (tidesim.Registry), as plugins do: scenarios loaded
# with two registries holding different classes named "py-pick" run in one process, each with the
# class of its own registry, whatever ran between them.
def test_two_registries_hold_different_policies_of_one_name(tmp_path):
    class Fifo(PyFifo):
        name = "py-pick"

    class Preempting(MostGpusFirst):
        name = "py-pick"

    path = scenario(tmp_path, ("fifo", "{policy: fifo}"), ("pick", "{policy: py-pick}"))
    fifo_like = tidesim.load_scenario(path, registry=tidesim.Registry([Fifo]))
    preempting = tidesim.load_scenario(path, registry=tidesim.Registry([Preempting]))
    first = tidesim.run(fifo_like, threads=2)
    second = tidesim.run(preempting, threads=2)
    again = tidesim.run(fifo_like, threads=2)
    assert again.to_json() == first.to_json()
    metrics = first.metrics().set_index(["policy", "seed"])
    for seed in (1, 2):  # the FIFO class: the built-in's numbers, bit for bit
        builtin, python = metrics.loc[("fifo", seed)], metrics.loc[("pick", seed)]
        assert all(same_bits(builtin[m], python[m]) for m in metrics.columns)
    suspensions = second.metrics().set_index("policy")["interruptions_suspension"]
    assert suspensions.loc["fifo"].sum() == 0 and suspensions.loc["pick"].sum() > 0
    # A registry without the name refuses the scenario at its place; the default one does too.
    with pytest.raises(tidesim.InputError, match=r"policies\[1\]\.admission\.policy"):
        tidesim.load_scenario(path, registry=tidesim.Registry())
    with pytest.raises(tidesim.InputError, match=r"policies\[1\]\.admission\.policy"):
        tidesim.load_scenario(path)


def test_the_state_describes_the_jobs_and_the_cluster(tmp_path):
    seen = []

    @tidesim.register_job_policy
    class Looks(tidesim.JobPolicy):
        name = "py-looks"

        def decide(self, state):
            assert state.capacity_gpus == 8
            assert [n["gpus"] for n in state.nodes()] == [4, 4]
            assert state.free_gpus == state.capacity_gpus - state.admitted_gpus
            for job in state.jobs:
                assert job.gpus in (1, 2, 4) and 0 <= job.progress <= 1
                assert job.estimate_s > 0 and job.remaining_s <= job.estimate_s
                # resnet50 on one A10: a step takes the same on any one-node placement.
                assert state.step_seconds(job.id, [job.gpus]) > 0
            seen.append((state.now_s, len(state.jobs), self.args))
            return [j.id for j in state.jobs if j.admitted]

    path = scenario(tmp_path, ("looks", "{policy: py-looks, args: {level: 3}}"))
    tidesim.run(path, seeds=[1])
    assert seen and all(args == {"level": "3"} for _, _, args in seen)
    # Nothing is ever admitted: every decision sees every job submitted so far.
    assert seen[-1][1] == 12


def test_placement_hints_pin_a_job_to_named_nodes(tmp_path):
    names = set()

    @tidesim.register_job_policy
    class SecondNode(tidesim.JobPolicy):
        name = "py-second-node"

        def decide(self, state):
            second = state.nodes()[1]["name"]
            chosen = {j.id: None for j in state.jobs if j.admitted}
            used = sum(j.gpus for j in state.jobs if j.admitted)
            for job in state.jobs:
                if not job.admitted and job.gpus == 1 and used < 4:
                    chosen[job.id] = [second]
                    used += 1
            names.add(second)
            return chosen

    path = scenario(tmp_path, ("second", "{policy: py-second-node}"))
    jobs = tidesim.run(path, seeds=[1]).jobs()
    bound = jobs[jobs["nodes"].astype(str) != "nan"]
    # Only one-GPU jobs are admitted, four at a time, all on the second node.
    assert len(bound) > 0 and len(names) == 1
    assert set(bound["nodes"]) == names


def test_a_failing_or_wrong_policy_stops_the_run(tmp_path):
    @tidesim.register_job_policy
    class Fails(tidesim.JobPolicy):
        name = "py-fails"

        def decide(self, state):
            return {}["missing"]

    @tidesim.register_job_policy
    class TooMany(tidesim.JobPolicy):
        name = "py-too-many"

        def decide(self, state):
            return [j.id for j in state.jobs] + [999]

    with pytest.raises(tidesim.PluginError) as raised:
        tidesim.run(scenario(tmp_path, ("f", "{policy: py-fails}")))
    assert "py-fails failed in decide()" in str(raised.value)
    assert "KeyError: 'missing'" in str(raised.value)
    with pytest.raises(RuntimeError, match=r"py-too-many' at t = [0-9.]+ s: chose job 999, which is not"):
        tidesim.run(scenario(tmp_path, ("t", "{policy: py-too-many}")))


def test_register_job_policy_checks_the_class(tmp_path):
    class NoDecide(tidesim.JobPolicy):
        name = "py-no-decide"

    with pytest.raises(TypeError):
        tidesim.register_job_policy(NoDecide)

    class Builtin(tidesim.JobPolicy):
        name = "fifo"

        def decide(self, state):
            return []

    with pytest.raises(ValueError, match="built-in"):
        tidesim.register_job_policy(Builtin)
    # An unregistered name is an input error with its place, as in the CLI.
    with pytest.raises(tidesim.InputError, match=r"two-nodes.yaml:\d+:\d+: policies\[0\]"):
        tidesim.load_scenario(scenario(tmp_path, ("x", "{policy: py-unknown}")))


POLLUX = os.path.join(ROOT, "scenarios", "pollux-workload-6.yaml")
# The data folder the scenario reads as $TIDESIM_DATA (docs/data.md).
DATA = os.environ.get("TIDESIM_DATA") or os.path.join(ROOT, "..", "shared", "data")


@pytest.mark.skipif(not os.path.exists(os.path.join(DATA, "pollux")),
                    reason="needs the data folder (the Pollux artifact's measurements)")
def test_a_python_policy_runs_pollux_workload_6():
    sc = tidesim.load_scenario(POLLUX, set={"policies[0].admission.policy": "py-fifo"})
    metrics = tidesim.run(sc, policies=["fifo", "srtf"]).metrics().set_index("policy")
    # policies[0] is named fifo but decided by the Python FIFO: the built-in's numbers, as above.
    assert metrics.loc["fifo", "succeeded_jobs"] == 160


# Issue 46, item 8: a job policy that gives a job an empty list of nodes is refused (it was taken
# as "any node"); a job id may be a numpy integer.
def test_python_job_policy_empty_node_list_is_refused(tmp_path):
    @tidesim.register_job_policy
    class Nowhere(tidesim.JobPolicy):
        name = "py-nowhere"

        def decide(self, state):
            return {j.id: [] for j in state.jobs[:1]}

    with pytest.raises(RuntimeError, match=r"py-nowhere' at t = [0-9.]+ s: named no nodes for job"):
        tidesim.run(scenario(tmp_path, ("n", "{policy: py-nowhere}")), seeds=[1])
    numpy = pytest.importorskip("numpy")

    @tidesim.register_job_policy
    class NumpyIds(tidesim.JobPolicy):
        name = "py-numpy-ids"

        def decide(self, state):
            used, chosen = 0, []
            for j in state.jobs:
                if used + j.gpus <= 8:
                    chosen.append(numpy.int64(j.id))
                    used += j.gpus
            return chosen

    assert len(tidesim.run(scenario(tmp_path, ("i", "{policy: py-numpy-ids}")), seeds=[1]).jobs()) == 12
