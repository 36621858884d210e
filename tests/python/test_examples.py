"""The Python examples run as scripts (examples/python/; docs/python.md)."""

import os
import subprocess
import sys

import pytest

from conftest import ROOT

pytest.importorskip("matplotlib")  # python3-matplotlib, installed by tools/deps.sh


def test_compare_policies_runs_and_plots(tmp_path):
    done = subprocess.run([sys.executable, "examples/python/compare_policies.py", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    png = tmp_path / "mean-wait.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # The Score plugin ran beside the built-ins, the job-level policy beside FIFO.
    assert "spread" in done.stdout
    assert "python-srtf" in done.stdout
