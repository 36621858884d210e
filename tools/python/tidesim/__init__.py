"""tidesim from Python: load a scenario, run its policies over seeds, and read the results as
pandas DataFrames (docs/python.md).

    import tidesim
    sc = tidesim.load_scenario("scenarios/seed-benchmark.yaml",
                               set={"cluster.node_groups[0].count": 12})
    res = tidesim.run(sc, policies=["default-k8s", "load-aware"], seeds=[1, 2, 3], threads=2)
    res.metrics()   # one row per (policy, seed), a column per metric
    res.summary()   # means, 95% CIs and paired differences, as `tidesim run --format csv`

The work is done by the C++ library, through the same calls as the `tidesim` command line
(`tidesim run`, `tidesim sweep`), so the numbers are the command line's, bit for bit.
"""

from __future__ import annotations

import io
import json
import operator
import warnings as _warnings
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

from . import _tidesim
from ._tidesim import (
    CycleState,
    InputError,
    Job,
    JobPolicyState,
    Node,
    Pod,
    PluginError,
    Scenario,
)

__version__ = _tidesim.__version__

__all__ = [
    "CycleState",
    "FilterPlugin",
    "InputError",
    "Job",
    "JobPolicy",
    "JobPolicyState",
    "Node",
    "Pod",
    "PluginError",
    "Registry",
    "Result",
    "Scenario",
    "ScorePlugin",
    "admit",
    "default_registry",
    "llm",
    "load_result",
    "load_scenario",
    "register_job_policy",
    "register_plugin",
    "run",
    "sweep",
]


def _pandas():
    try:
        import pandas
    except ImportError as e:  # pragma: no cover - pandas is a dependency (python3-pandas)
        raise ImportError(
            "tidesim's tables need pandas (Debian: apt-get install python3-pandas)"
        ) from e
    return pandas


def _yaml_text(value: Any) -> str:
    """A Python value as the YAML text of a `--set KEY=VALUE`'s VALUE."""
    if isinstance(value, str):
        return value  # written as on the command line: YAML ("2h", "[1, 2]", "poisson")
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value)  # JSON is YAML's flow style
    raise TypeError(f"set: cannot write {type(value).__name__} {value!r} as YAML")


def _argument_text(value: Any) -> str:
    """One argument as the text the command line would be given: an integer (int, numpy's
    integers, anything with __index__; not a bool) as its digits, anything else as str() writes
    it. The C++ side reads the text with the command line's own reader, so a value the command
    line would refuse ('1.7', 'True', '0' threads) is refused with its words."""
    if not isinstance(value, bool):
        try:
            return str(operator.index(value))
        except TypeError:
            pass
    return str(value)


def _argument_texts(value: Any) -> list:
    """A repeatable argument (seeds, policies, series_seeds) as the texts of its repeats: a str
    or any other single value is one repeat (seeds='12' is seed 12, as `--seed 12`), a sequence
    or other iterable one per item."""
    if value is None:
        return []
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        value = [value]
    return [_argument_text(item) for item in value]


def _optional_text(value: Any) -> Optional[str]:
    return None if value is None else _argument_text(value)


def _override_texts(set: Union[None, Mapping[str, Any], Iterable[str]]) -> list:
    if set is None:
        return []
    if isinstance(set, Mapping):
        return [f"{key}={_yaml_text(value)}" for key, value in set.items()]
    if isinstance(set, str):
        return [set]
    return [str(text) for text in set]


def load_scenario(
    path: Optional[str] = None,
    set: Union[None, Mapping[str, Any], Iterable[str]] = None,
    *,
    plugins: Optional[Iterable[type]] = None,
    registry: Optional["Registry"] = None,
) -> Scenario:
    """Reads a scenario file (default: the seed benchmark, as `tidesim run` without one).

    `set` changes values before the file is read, as `--set KEY=VALUE` does: a dict
    {KEY: VALUE} (a str VALUE is YAML text as on the command line; numbers, booleans, lists and
    dicts are written as YAML) or a list of "KEY=VALUE" strings, applied in order. Bad input
    raises InputError with the command line's message (file:line:column: field: message).

    The scenario's profiles (and those `run(policies=...)` adds) may enable the Python plugins,
    and its `admission:` entries select the Python job policies, of `plugins` (ScorePlugin,
    FilterPlugin or JobPolicy classes) or of `registry` (a Registry); give at most one of them;
    neither: default_registry (register_plugin's and register_job_policy's). The classes are
    those the registry holds now: registering into it later changes no scenario loaded before.
    """
    if path is None:
        path = _tidesim.default_scenario_path()
    native = _registry_of(plugins, registry)._native()
    return _tidesim.load_scenario(str(path), _override_texts(set), native)


class Result:
    """The result of runs (run), of a sweep, or read from a result.json (load_result)."""

    def __init__(self, native: "_tidesim.Result"):
        self._native = native

    @property
    def scenario_name(self) -> str:
        return self._native.scenario_name

    @property
    def policies(self) -> list:
        """The policies' labels, in order."""
        return self._native.policies

    @property
    def seeds(self) -> list:
        return self._native.seeds

    @property
    def warnings(self) -> list:
        """What the run warns about (a policy under which jobs never bound)."""
        return self._native.warnings

    def metrics(self):
        """One row per run (policy and seed; for a sweep's result also a column per swept key),
        a column per metric (NaN where a run has none): the values of `--format json`, exactly.
        """
        pd = _pandas()
        columns = self._native.metric_columns()
        frame = pd.DataFrame(columns)
        frame["seed"] = frame["seed"].astype("uint64")
        return frame

    def summary(self):
        """Per metric and policy: n, mean, sd, the 95% CI half-width, and each later policy's
        paired difference from the first with its CI, the relative change and the published
        figure: the table of `tidesim run --format csv` (for a sweep's result, `tidesim sweep
        --format csv`: within each variant).
        """
        return self._csv_frame(self._native.comparison("csv", True, False))

    def table(self, all_metrics: bool = False) -> str:
        """The comparison as the terminal shows it (`tidesim run`, `--all-metrics`)."""
        return self._native.comparison("table", all_metrics, False)

    def jobs(self):
        """jobs.csv of `--output`: one row per job per run. InputError for a result written
        without its per-job records (`tidesim run --records`)."""
        return self._csv_frame(self._native.csv("jobs"))

    def attempts(self):
        """attempts.csv of `--output`: one row per pod of each attempt. InputError for a result
        written without its attempt log (`tidesim run --records`)."""
        return self._csv_frame(self._native.csv("attempts"))

    def nodes(self):
        """nodes.csv of `--output`: one row per node per kept sample, for the runs that recorded
        time series (run(..., series="full")); empty otherwise."""
        return self._csv_frame(self._native.csv("nodes"))

    def cards(self):
        """cards.csv of `--output`: one row per card per kept sample (series="full")."""
        return self._csv_frame(self._native.csv("cards"))

    def to_json(self) -> str:
        """The result's JSON document, as `tidesim run --format json` prints it."""
        return self._native.json()

    def save(self, path: str) -> None:
        """Writes result.json (`tidesim report`, `tidesim check` read it)."""
        self._native.save(str(path))

    def _csv_frame(self, text: str):
        pd = _pandas()
        if text.count("\n") <= 1:  # the header alone
            return pd.read_csv(io.StringIO(text)) if text else pd.DataFrame()
        # round_trip: the CSV's numbers are the shortest text that reads back to the same double.
        return pd.read_csv(io.StringIO(text), float_precision="round_trip")

    def __repr__(self) -> str:
        return (
            f"<tidesim.Result {self.scenario_name}: {len(self.policies)} policies x "
            f"{len(self.seeds)} seeds>"
        )

    def __str__(self) -> str:
        return self.table()


def run(
    scenario: Union[None, str, Scenario] = None,
    policies: Optional[Sequence[str]] = None,
    seeds: Optional[Sequence[int]] = None,
    threads: Optional[int] = None,
    *,
    series: Optional[str] = None,
    series_step: Optional[str] = None,
    series_seeds: Optional[Sequence[Union[int, str]]] = None,
    timeout: Optional[str] = None,
    max_events: Optional[int] = None,
    max_memory: Optional[str] = None,
    force: bool = False,
    progress: bool = False,
    plugins: Optional[Iterable[type]] = None,
    registry: Optional["Registry"] = None,
) -> Result:
    """Runs a scenario's policies over its seeds, as `tidesim run` does.

    scenario: a Scenario (load_scenario) or a path; default the seed benchmark.
    policies: the strings `--policy` takes (NAME, or LABEL=DEFINITION with a scenario policy, a
        built-in policy or a KubeSchedulerConfiguration file); default the scenario's.
    seeds: default the scenario's. threads: runs in parallel (default the machine's cores);
        results do not depend on it.
    series ("none", "summary", "full"), series_step ("1h"), series_seeds: the time series
        recorded, as --series, --series-step, --series-seed (default none: Result.nodes() is
        empty). timeout, max_events, max_memory, force: as --timeout, --max-events,
        --max-memory, --force. progress: the progress line on stderr.
    plugins, registry: the Python plugins the profiles may enable, as load_scenario's, when
        `scenario` is a path or None (a loaded Scenario keeps the registry it was loaded with).

    The GIL is released while the runs go on. Bad input raises InputError with the command
    line's message; a run that fails raises RuntimeError.
    """
    if scenario is None or isinstance(scenario, str):
        scenario = load_scenario(scenario, plugins=plugins, registry=registry)
    elif plugins is not None or registry is not None:
        raise TypeError("run: a loaded Scenario keeps the plugins it was loaded with; give "
                        "plugins or registry to load_scenario")
    # Each argument as the command line's text, read on the C++ side by the command line's own
    # readers: the same checks and the same words (a policy name is one policy, seeds='12' is
    # seed 12, threads=0 or 2.5 is refused as --threads refuses it).
    args = _tidesim.RunArgs()
    args.policies = _argument_texts(policies)
    args.seeds = _argument_texts(seeds)
    args.threads = _optional_text(threads) or ""
    args.series = _optional_text(series)
    args.series_step = _optional_text(series_step) or ""
    args.series_seeds = _argument_texts(series_seeds)
    args.timeout = _optional_text(timeout)
    args.max_events = _optional_text(max_events)
    args.max_memory = _optional_text(max_memory)
    args.force = _flag("force", force)
    args.progress = _flag("progress", progress)
    native, warnings = _tidesim.run(scenario, args)
    for line in warnings.splitlines():
        prefix = "tidesim: warning: "
        text = line[len(prefix):] if line.startswith(prefix) else line
        _warnings.warn(f"tidesim: {text}", RuntimeWarning, stacklevel=2)
    return Result(native)


def _flag(name: str, value: Any) -> bool:
    """A flag (--force, --progress): True or False."""
    if not isinstance(value, bool):
        raise TypeError(f"{name}: expected True or False, not {type(value).__name__} {value!r}")
    return value


def _scalar(text):
    """A swept value (YAML text) as a number when it reads as one."""
    if text is None:
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def sweep(
    path: str,
    threads: Optional[int] = None,
    output: Optional[str] = None,
    progress: bool = False,
    *,
    plugins: Optional[Iterable[type]] = None,
    registry: Optional["Registry"] = None,
):
    """Runs a sweep file as `tidesim sweep` does and returns its tidy table: one row per run
    (variant, policy, seed) with `policy`, `seed`, a column per swept key (its full key path,
    holding the variant's value) and a column per metric, as metrics.csv.

    output: the folder of the cells' results (default, as the command line: `<sweep
    name>.results` in the working folder); cells already stored there are not run again, and
    the merged result.json and metrics.csv are written there (load_result reads the former).
    plugins, registry: the Python plugins the profiles may enable, as load_scenario's.
    """
    native = _tidesim.sweep(str(path), "" if output is None else str(output),
                            _optional_text(threads) or "", _flag("progress", progress),
                            _registry_of(plugins, registry)._native())
    frame = Result(native).metrics()
    columns = native.metric_columns()
    metric_names = set(native.metric_names())
    for key in columns:
        if key not in ("policy", "seed") and key not in metric_names:
            values = [_scalar(v) for v in frame[key]]
            frame[key] = values
    return frame


def llm(
    job: Optional[str] = None,
    *,
    model: Optional[str] = None,
    execution: Optional[str] = None,
    system: Optional[str] = None,
) -> dict:
    """The step time, its parts, the memory per GPU and MFU of an LLM training job, as
    `tidesim llm --format json` prints them (docs/llm.md).

    job: a tidesim LLM job file (YAML); or model, execution, system: Calculon's three files.
    Returns a dict with step_seconds, parts (seconds by part), memory_bytes_per_gpu, memory
    (bytes by part), mfu, fits and the layout. Bad input raises InputError.
    """
    text = _tidesim.llm_json(
        "" if job is None else str(job),
        "" if model is None else str(model),
        "" if execution is None else str(execution),
        "" if system is None else str(system),
    )
    return json.loads(text)


def admit(
    snapshot: str,
    workload: str,
    *,
    feature_gates: Union[None, str, Mapping[str, bool]] = None,
    flavor: Optional[str] = None,
    kueue_config: Optional[str] = None,
) -> dict:
    """Would Kueue's topology-aware scheduling admit a pending Workload on a cluster snapshot,
    and where: what `tidesim admit --format json` prints (docs/topology-aware.md).

    snapshot: a file or folder of Kubernetes objects as `kubectl get -o yaml` prints them (Nodes,
    Pods, Topology, ResourceFlavor, ClusterQueue, LocalQueue); workload: a file with one Kueue
    Workload. feature_gates: Kueue's gates that change placement, as a mapping
    ({"TASBalancedPlacement": True}) or in Kueue's flag syntax ("TASBalancedPlacement=true").
    flavor: the ResourceFlavor to place on (default: the Workload queue's). kueue_config: a Kueue
    Configuration file whose resources.transformations apply to the quota. Returns a dict with
    workload, flavor, topology, admitted and podsets (each: name, admitted, levels, domains as
    [{values, count}], reason; with count, flavors and delayed_topology_request, and
    quota_reserved and waiting_for_checks beside podsets, when the Workload's queue is a
    ClusterQueue of the snapshot). Bad input raises InputError.
    """
    if feature_gates is None:
        gates = ""
    elif isinstance(feature_gates, str):
        gates = feature_gates
    else:
        gates = ",".join(f"{k}={'true' if v else 'false'}" for k, v in feature_gates.items())
    text = _tidesim.admit_json(
        str(snapshot),
        str(workload),
        gates,
        "" if flavor is None else flavor,
        "" if kueue_config is None else str(kueue_config),
    )
    return json.loads(text)


def load_result(path: str) -> Result:
    """Reads a result.json written by `tidesim run --output`, `tidesim sweep` or Result.save."""
    return Result(_tidesim.load_result(str(path)))


class ScorePlugin:
    """A Score plugin written in Python. Subclass it, set `name`, define score(), register the
    class (register_plugin), then enable the name in a KubeSchedulerConfiguration profile like
    any plugin (`plugins.score.enabled: [{name: MostPods, weight: 1}]`).

        class MostPods(tidesim.ScorePlugin):
            name = "MostPods"
            def score(self, state, pod, node) -> int:
                return min(100, 10 * node.pod_count)

    score(state, pod, node) returns an int in [0, 100] for placing `pod` on `node` (state: a
    CycleState, pod: a Pod, node: a Node; read-only, valid during the call). Each scheduler (one
    per policy and seed) makes its own instance with cls(), so an instance may keep state across
    the cycles of its run. A plugin must be deterministic: the same calls, the same scores (no
    clock, no unseeded random numbers, no iteration over a set of strings). An exception in it
    stops the run: PluginError names the plugin and carries the Python traceback.

    Set `reads_metrics = True` on a plugin that reads Node.telemetry (or the cards' memory in
    use): the run then scrapes node metrics as it does for the load-aware plugins; without it,
    and without another plugin that reads metrics, a Node has no telemetry (None).
    """

    name: str = ""
    reads_metrics: bool = False

    def score(self, state: CycleState, pod: Pod, node: Node) -> int:
        raise NotImplementedError


class FilterPlugin:
    """A Filter plugin written in Python. Subclass it, set `name`, define filter(), register the
    class (register_plugin), then enable the name at a profile's filter point
    (`plugins.filter.enabled: [{name: AtMostFourPods}]`).

        class AtMostFourPods(tidesim.FilterPlugin):
            name = "AtMostFourPods"
            def filter(self, state, pod, node):
                return node.pod_count < 4 or f"node has {node.pod_count} pods"

    filter(state, pod, node) returns True when `pod` may go to `node`, or False or a reason (a
    string, shown as Kubernetes shows a filter's message) when it may not. The same views, rules
    and errors as a ScorePlugin.
    """

    name: str = ""
    reads_metrics: bool = False  # as ScorePlugin's

    def filter(self, state: CycleState, pod: Pod, node: Node):
        raise NotImplementedError


def _plugin_kind(cls) -> str:
    """"score" or "filter" for a valid plugin class; raises TypeError or ValueError otherwise."""
    score = isinstance(cls, type) and issubclass(cls, ScorePlugin)
    filter_ = isinstance(cls, type) and issubclass(cls, FilterPlugin)
    if score == filter_:
        raise TypeError(f"register_plugin: {cls!r} is not a subclass of tidesim.ScorePlugin or "
                        "tidesim.FilterPlugin (one of them)")
    name = getattr(cls, "name", "")
    if not isinstance(name, str) or not name:
        raise ValueError(f"register_plugin: {cls.__name__} has no name (set name = \"...\")")
    if score and cls.score is ScorePlugin.score:
        raise TypeError(f"register_plugin: {cls.__name__} does not define score()")
    if filter_ and cls.filter is FilterPlugin.filter:
        raise TypeError(f"register_plugin: {cls.__name__} does not define filter()")
    _tidesim.check_plugin_name(name)  # ValueError when a C++ plugin has the name
    return "score" if score else "filter"


class Registry:
    """A registry value: tidesim's C++ plugins and job-level policies plus the Python plugins
    and job policies registered into it, as kube-scheduler's `app.WithPlugin` builds its
    registry. A scenario loaded with it (load_scenario(..., registry=r), run(..., registry=r),
    sweep(..., registry=r)) can enable its plugins by name in its profiles and select its job
    policies in its `admission:` entries. Registries are independent: two may hold different
    plugins or job policies of one name, and runs of scenarios loaded with each call their own.

        r = tidesim.Registry([MostPods])
        @r.register
        class AtMostFourPods(tidesim.FilterPlugin): ...
        @r.register
        class MostGpusFirst(tidesim.JobPolicy): ...
        result = tidesim.run("scenario.yaml", registry=r)
    """

    def __init__(self, plugins: Iterable[type] = ()):
        self._classes = {}
        self._job_policies = {}
        for cls in plugins:
            self.register(cls)

    def register(self, cls):
        """Adds a ScorePlugin, FilterPlugin or JobPolicy subclass under its `name` (registering
        a name again replaces its class). Scenarios loaded before keep the classes they were
        loaded with. Returns the class, so it works as a class decorator."""
        if isinstance(cls, type) and issubclass(cls, JobPolicy):
            self._job_policies[_job_policy_name(cls)] = cls
            return cls
        kind = _plugin_kind(cls)
        self._classes[cls.name] = (kind, cls)
        return cls

    @property
    def plugins(self) -> dict:
        """The Python plugins, {name: class}."""
        return {name: cls for name, (_, cls) in self._classes.items()}

    @property
    def job_policies(self) -> dict:
        """The Python job-level policies, {name: class}."""
        return dict(self._job_policies)

    def _native(self):
        return _tidesim.make_registry(
            [(name, kind, cls) for name, (kind, cls) in self._classes.items()],
            list(self._job_policies.items()))


default_registry = Registry()
"""The registry register_plugin adds to, used by calls given neither plugins nor registry."""


def _registry_of(plugins, registry) -> Registry:
    if plugins is not None and registry is not None:
        raise TypeError("give plugins or registry, not both")
    if plugins is not None:
        return Registry(plugins)
    return default_registry if registry is None else registry


def register_plugin(cls):
    """Registers a ScorePlugin or FilterPlugin subclass under its `name` in default_registry,
    the registry of the calls given neither plugins nor registry (registering a name again
    replaces its class; a scenario loaded before keeps the class it was loaded with). Returns
    the class, so it works as a class decorator. To run different plugins of one name, or
    plugins of your own apart from everyone's, use a Registry."""
    return default_registry.register(cls)


class JobPolicy:
    """A job-level policy written in Python: which jobs hold GPUs (docs/python.md, "A job-level
    policy in Python"). Subclass it, set `name`, define decide(), register the class
    (register_job_policy), then select it in a scenario's policy entry:
    `admission: {policy: NAME, args: {...}}`.

        class MostGpusFirst(tidesim.JobPolicy):
            name = "most-gpus-first"
            interval_s = 60          # also decide every 60 s while jobs are active
            def decide(self, state):
                chosen, free = [], state.capacity_gpus
                for job in sorted(state.jobs, key=lambda j: (-j.gpus, j.order)):
                    if job.gpus <= free:
                        chosen.append(job.id)
                        free -= job.gpus
                return chosen

    decide(state) is called when a job's pods are created, when a job ends and, with
    `interval_s` set, periodically while jobs are active. `state.jobs` are the active jobs
    (tidesim.Job: id, name, gpus, admitted, estimate_s, remaining_s, progress, attained_gpu_s,
    restarts, ...). It returns the ids of the jobs that should hold GPUs: an admitted job left out
    is suspended (it loses the work since its last checkpoint), a listed job not admitted is
    admitted. A dict {job id: [node names] or None} also names the nodes a job's pods may use.
    The GPUs chosen may not exceed state.capacity_gpus. Each run makes its own instance with
    cls(), then sets `self.args` to the entry's `args:` (a dict of strings). A policy must be
    deterministic; an exception in it stops the run with PluginError and the Python traceback.
    """

    name: str = ""
    interval_s: Optional[float] = None
    args: dict = {}

    def decide(self, state: JobPolicyState):
        raise NotImplementedError


def _job_policy_name(cls) -> str:
    """The name of a JobPolicy subclass fit to register; TypeError or ValueError otherwise."""
    if not (isinstance(cls, type) and issubclass(cls, JobPolicy)):
        raise TypeError(f"register_job_policy: {cls!r} is not a subclass of tidesim.JobPolicy")
    name = getattr(cls, "name", "")
    if not isinstance(name, str) or not name:
        raise ValueError(f"register_job_policy: {cls.__name__} has no name (set name = \"...\")")
    if cls.decide is JobPolicy.decide:
        raise TypeError(f"register_job_policy: {cls.__name__} does not define decide()")
    _tidesim.check_job_policy_name(name)  # ValueError for a built-in policy's name
    return name


def register_job_policy(cls):
    """Registers a JobPolicy subclass under its `name` in default_registry, the registry of the
    calls given neither plugins nor registry (registering a name again replaces its class; a
    scenario loaded before keeps the class it was loaded with); register it before loading a
    scenario that names it. Returns the class, so it works as a class decorator. To run
    different policies of one name, use a Registry."""
    return default_registry.register(cls)
