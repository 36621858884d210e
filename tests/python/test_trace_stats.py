"""`tidesim trace stats --format csv` against the same statistics computed with pandas from the
fixture's raw rows, column by column (AcmeTrace's data/cluster_summary.csv columns; definitions in
docs/traces.md, "Cluster summary")."""

import io
import math
import os

import pandas as pd
import pytest

from conftest import ROOT, cli

DATA = os.path.join(ROOT, "tests", "workloads", "data")

FAILED = {"FAILED", "TIMEOUT", "NODE_FAIL"}


def summary(frame):
    """The summary columns of a frame with run, que, gpu and st (end state or NaN) per job."""
    g = frame[frame.gpu > 0]
    c = frame[frame.gpu == 0]
    gt = g.run * g.gpu
    has_state = frame.st.notna().any()

    def rate(part, st):
        return (part.st == st).mean() if has_state and len(part) else math.nan

    def time(st):
        return gt[g.st == st].sum() if has_state and len(g) else math.nan

    def time_rate(st):
        return gt[g.st == st].sum() / gt.sum() if has_state and len(g) and gt.sum() > 0 else math.nan

    return {
        "job_num": len(frame), "cpu_job_num": len(c), "gpu_job_num": len(g),
        "avg_run_time_gpu": g.run.mean(), "avg_que_time_gpu": g.que.mean(),
        "avg_gpu_num": g.gpu.mean(), "med_run_time_gpu": g.run.median(),
        "med_que_time_gpu": g.que.median(), "med_gpu_num": g.gpu.median(),
        "max_run_time_gpu": g.run.max(), "max_gpu": g.gpu.max(),
        "complete_rate_gpu": rate(g, "completed"), "cancel_rate_gpu": rate(g, "cancelled"),
        "fail_rate_gpu": rate(g, "failed"), "complete_gpu_time": time("completed"),
        "cancel_gpu_time": time("cancelled"), "fail_gpu_time": time("failed"),
        "complete_rate_gpu_time": time_rate("completed"),
        "cancel_rate_gpu_time": time_rate("cancelled"), "fail_rate_gpu_time": time_rate("failed"),
        "avg_run_time_cpu": c.run.mean(), "avg_que_time_cpu": c.que.mean(),
        "med_run_time_cpu": c.run.median(), "med_que_time_cpu": c.que.median(),
        "complete_rate_cpu": rate(c, "completed"), "cancel_rate_cpu": rate(c, "cancelled"),
        "fail_rate_cpu": rate(c, "failed"),
    }


def slurm_frame(path):
    """Acme and Helios: run = end - start, queue = start - submit (READMEs' notes 2 and 3); a
    job that never started has run 0 and queued until its end."""
    df = pd.read_csv(path)
    t = {k: pd.to_datetime(df[k], utc=True) for k in ("submit_time", "start_time", "end_time")}
    start = t["start_time"].fillna(t["end_time"])
    st = df.state.map(lambda s: "completed" if s == "COMPLETED" else "cancelled"
                      if s.startswith("CANCELLED") else "failed" if s in FAILED else math.nan)
    return pd.DataFrame({"run": (t["end_time"] - start).dt.total_seconds(),
                         "que": (start - t["submit_time"]).dt.total_seconds(),
                         "gpu": df.gpu_num.astype(float), "st": st})


def gfs_frame(path):
    df = pd.read_csv(path)
    return pd.DataFrame({"run": df.duration.astype(float), "que": math.nan,
                         "gpu": (df.gpu_request * df.worker_num).astype(float), "st": math.nan})


def pai_frame(folder):
    """Job table joined with its main task (most GPUs) and its earliest instance launch."""
    jobs = pd.read_csv(os.path.join(folder, "pai_job_table.csv"), header=None,
                       names=["job_name", "inst_id", "user", "status", "start_time", "end_time"])
    tasks = pd.read_csv(os.path.join(folder, "pai_task_table.csv"), header=None,
                        names=["job_name", "task_name", "inst_num", "status", "start_time",
                               "end_time", "plan_cpu", "plan_mem", "plan_gpu", "gpu_type"])
    inst = pd.read_csv(os.path.join(folder, "pai_instance_table.csv"), header=None,
                       names=["job_name", "task_name", "inst_name", "worker_name", "inst_id",
                              "status", "start_time", "end_time", "machine"])
    tasks["gpu"] = tasks.inst_num * tasks.plan_gpu.fillna(0) / 100
    main = tasks.loc[tasks.groupby("job_name").gpu.idxmax()].set_index("job_name").gpu
    launch = inst[inst.start_time > 0].groupby("job_name").start_time.min()
    launch = launch.combine_first(tasks[tasks.start_time > 0].groupby("job_name").start_time.min())
    jobs = jobs.set_index("job_name")
    last = max(jobs.start_time.max(), jobs.end_time.max())
    waiting = jobs.status == "Waiting"
    start = pd.concat([jobs.start_time, launch.reindex(jobs.index)], axis=1).max(axis=1)
    start[waiting] = jobs.start_time[waiting]
    stop = jobs.end_time.where(jobs.status != "Running", last)
    stop[waiting] = start[waiting]
    st = jobs.status.map({"Terminated": "completed", "Failed": "failed"})
    return pd.DataFrame({"run": stop - start, "que": start - jobs.start_time,
                         "gpu": main.reindex(jobs.index), "st": st})


CASES = [
    ("acme_seren_small.csv", lambda p: slurm_frame(p)),
    ("acme_kalos_small.csv", lambda p: slurm_frame(p)),
    ("helios_small.csv", lambda p: slurm_frame(p)),
    ("gfs_jobs_small.csv", lambda p: gfs_frame(p)),
    ("pai2020/pai_job_table.csv", lambda p: pai_frame(os.path.dirname(p))),
]


@pytest.mark.filterwarnings("ignore:Mean of empty slice")
@pytest.mark.parametrize("name,frame", CASES, ids=[c[0] for c in CASES])
def test_trace_stats_csv_equals_pandas(name, frame):
    path = os.path.join(DATA, name)
    out = cli("trace", "stats", path, "--format", "csv").stdout
    got = pd.read_csv(io.StringIO(out))
    assert len(got) == 1
    assert got.id[0] == os.path.splitext(os.path.basename(name))[0]
    want = summary(frame(path))
    # The published table's columns, in its order.
    assert list(got.columns) == ["id"] + list(want)
    for column, value in want.items():
        cell = got[column][0]
        if value is None or (isinstance(value, float) and math.isnan(value)):
            assert math.isnan(cell), f"{name} {column}: {cell} where pandas has none"
        else:
            assert cell == pytest.approx(float(value), rel=1e-12), f"{name} {column}"


def test_trace_stats_names_the_format_and_row_id():
    headerless = os.path.join(DATA, "pai2020", "pai_job_table.csv")
    out = cli("trace", "stats", headerless, "--from", "pai2020", "--format", "csv",
              "--id", "PAI").stdout
    assert out.splitlines()[1].startswith("PAI,5,0,5,")
