"""Comparing scheduling policies from Python, notebook style (docs/python.md).

Run from the repository root after tools/test.sh (or tools/demo.sh) has built the module:

    PYTHONPATH=build/python /usr/bin/python3 examples/python/compare_policies.py [OUT_DIR]

It (1) runs the seed benchmark under default-k8s and load-aware over three seeds and prints the
paired comparison; (2) plots the mean task wait per policy and seed with matplotlib into
OUT_DIR/mean-wait.png; (3) writes a Score plugin in Python, enables it in a profile and runs it
beside the two; (4) writes a job-level policy in Python and runs it against FIFO. Each cell can be
pasted into a notebook as it is.
"""

import os
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")  # no display needed; a notebook can drop this line
import matplotlib.pyplot as plt

import tidesim

out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="tidesim-example-")
os.makedirs(out, exist_ok=True)

# %% 1. Two policies, three seeds: one row per (policy, seed), a column per metric.
res = tidesim.run("scenarios/seed-benchmark.yaml", policies=["default-k8s", "load-aware"],
                  seeds=[1, 2, 3], threads=2)
metrics = res.metrics()
print(metrics[["policy", "seed", "mean_wait_s", "oom_kills", "gpu_util_stddev"]])
print(res.table())

# %% 2. A metric per policy and seed, plotted.
waits = metrics.pivot(index="seed", columns="policy", values="mean_wait_s")
ax = waits.plot.bar(rot=0, title="seed benchmark: mean task wait")
ax.set_ylabel("mean task wait (s)")
plt.tight_layout()
plt.savefig(os.path.join(out, "mean-wait.png"))
print("wrote", os.path.join(out, "mean-wait.png"))


# %% 3. A Score plugin in Python: prefer the node with the most free GPUs (spreading).
@tidesim.register_plugin
class MostFreeGpus(tidesim.ScorePlugin):
    name = "MostFreeGpus"

    def score(self, state, pod, node) -> int:
        free = node.allocatable["gpus"] - node.requested["gpus"]
        return max(0, min(100, 25 * free))


profile = os.path.join(out, "most-free-gpus.yaml")
with open(profile, "w") as f:
    f.write("""\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: most-free-gpus
    plugins:
      score:
        disabled: [{name: "*"}]
        enabled: [{name: MostFreeGpus, weight: 1}]
""")
spread = tidesim.run("scenarios/seed-benchmark.yaml",
                     policies=["default-k8s", "load-aware", f"spread={profile}"], seeds=[1, 2, 3])
print(spread.summary()[["metric", "policy", "mean", "difference_vs_first"]].head(12))


# %% 4. A job-level policy in Python: the job with the least remaining work first, preemptive,
# re-decided every minute (SRTF written by hand), against the built-in FIFO.
@tidesim.register_job_policy
class LeastRemainingFirst(tidesim.JobPolicy):
    name = "least-remaining-first"
    interval_s = 60

    def decide(self, state):
        chosen, free = [], state.capacity_gpus
        for job in sorted(state.jobs, key=lambda j: (j.remaining_s, j.submitted_s, j.order)):
            if job.gpus <= free:
                chosen.append(job.id)
                free -= job.gpus
        return chosen


scenario = os.path.join(out, "job-policies.yaml")
with open(scenario, "w") as f:
    f.write("""\
name: job-policies
cluster:
  node_groups: [{name: gpu, count: 2, gpu: A10, topology: a10x4-pcie}]
workload:
  arrivals: {process: poisson, count: 60, mean_interarrival: 3m}
  jobs:
    - {name: short, pod: {gpus: 1}, model: resnet50, batch_size: 64, duration: 10m, weight: 3}
    - {name: long, pod: {gpus: 4}, model: resnet50, batch_size: 64, duration: 2h,
       checkpoint_interval: 10m}
policies:
  - {name: fifo, scheduler: default-k8s, admission: {policy: fifo}}
  - {name: python-srtf, scheduler: default-k8s, admission: {policy: least-remaining-first}}
seeds: [1, 2, 3]
""")
jobs = tidesim.run(scenario)
print(jobs.metrics().groupby("policy")[["jct_mean_s", "mean_wait_s",
                                        "interruptions_suspension"]].mean())
