"""tidesim.admit: Kueue's topology-aware scheduling what-if through the module, the same as
`tidesim admit --format json` (docs/topology-aware.md)."""

import json
import os

import pytest

import tidesim
from conftest import ROOT, cli

DATA = os.path.join(ROOT, "tests", "tools", "data", "admit")
CLUSTER = os.path.join(DATA, "cluster.yaml")


def test_admitted_where_the_cli_says():
    result = tidesim.admit(CLUSTER, os.path.join(DATA, "workload-rack.yaml"))
    assert result["admitted"]
    ps = result["podsets"][0]
    assert ps["levels"] == ["kubernetes.io/hostname"]
    assert ps["domains"] == [{"values": ["b1-r1-n1"], "count": 1},
                             {"values": ["b1-r1-n2"], "count": 2}]
    out = cli("admit", "--format", "json", CLUSTER, os.path.join(DATA, "workload-rack.yaml")).stdout
    assert json.loads(out) == result


def test_refusal_and_feature_gates():
    result = tidesim.admit(CLUSTER, os.path.join(DATA, "workload-too-big.yaml"),
                           feature_gates={"TASBalancedPlacement": True})
    assert not result["admitted"]
    assert result["podsets"][0]["reason"] == (
        'topology "gpu-topology" allows to fit only 4 out of 5 pod(s)')
    with pytest.raises(tidesim.InputError):
        tidesim.admit(CLUSTER, os.path.join(DATA, "workload-rack.yaml"),
                      feature_gates="NoSuchGate=true")
