"""tidesim.llm: the LLM step-time model through the module, the same as `tidesim llm --format json`
(docs/llm.md)."""

import json
import os

import pytest

import tidesim
from conftest import ROOT, cli

EXAMPLE = os.path.join(ROOT, "examples", "llm", "gpt3-175B-seqsel.yaml")
DATA = os.path.join(ROOT, "tests", "llm", "data")
SHARED = os.environ.get("TIDESIM_DATA") or os.path.join(os.path.dirname(ROOT), "shared", "data")


def test_job_file_gives_the_cli_json():
    result = tidesim.llm(EXAMPLE)
    assert set(result) >= {"step_seconds", "memory_bytes_per_gpu", "mfu", "parts", "memory"}
    assert result["step_seconds"] == pytest.approx(sum(result["parts"][k] for k in (
        "forward", "backward", "recompute", "tp_comm", "pp_comm", "dp_comm", "bubble",
        "optimizer", "offload")))
    assert result["fits"]
    assert 0.3 < result["mfu"] < 0.7
    out = cli("llm", "--format", "json", EXAMPLE).stdout
    assert json.loads(out) == result


def test_calculon_files():
    llm = os.path.join(SHARED, "llm")
    if not os.path.isdir(llm):
        pytest.skip("the shared data folder's llm/ is absent")
    result = tidesim.llm(
        model=os.path.join(llm, "models", "megatron-22B.json"),
        execution=os.path.join(llm, "validation", "seqsel", "tab5", "megatron-22B_full.json"),
        system=os.path.join(llm, "systems", "a100_80g.json"),
    )
    # Korthikanti et al. 2022, Table 5: 1.42 s measured.
    assert result["step_seconds"] == pytest.approx(1.42, rel=0.10)


def test_a_layout_that_overflows_the_card_does_not_fit():
    result = tidesim.llm(os.path.join(DATA, "does_not_fit.yaml"))
    assert not result["fits"]
    assert result["memory_bytes_per_gpu"] > result["memory_capacity_bytes"]


def test_bad_input_raises_input_error_with_its_place():
    path = os.path.join(DATA, "bad_tp.yaml")
    with pytest.raises(tidesim.InputError) as raised:
        tidesim.llm(path)
    assert (raised.value.line, raised.value.column) == (3, 15)
    assert raised.value.field == "execution.tensor_par"
    with pytest.raises(tidesim.InputError):
        tidesim.llm(path, model="x.json")
