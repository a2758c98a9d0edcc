"""bench/isolation.py runs end to end at a tiny size (its figures come from
running it at full size, never from this test)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "isolation.py"


@pytest.mark.timeout(180)
def test_the_bench_prints_every_figure_and_the_ratios():
    done = subprocess.run([sys.executable, str(BENCH), "--files", "30", "--delay", "0.05", "--repeat", "1"],
                          capture_output=True, text=True, timeout=170)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    for key in ("snapshot_ms", "cold_tree_ms", "recycle_ms", "commit_ms", "merge_ms", "apply_ms", "ratio_cold",
                "ratio_warm"):
        assert figures[key] > 0, key
