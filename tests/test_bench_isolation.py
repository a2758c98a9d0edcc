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
def test_the_bench_prints_every_figure_the_load_and_the_ratios():
    done = subprocess.run([sys.executable, str(BENCH), "--quick", "--files", "30", "--delay", "0.05"],
                          capture_output=True, text=True, timeout=170)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert "load " in lines[0] and "plain git worktree add" in done.stdout
    figures = json.loads(lines[-1])
    assert figures["repeat"] == 1 and figures["load_1m"] >= 0
    for key in ("snapshot_ms", "cold_tree_ms", "plain_worktree_ms", "recycle_ms", "commit_ms", "merge_ms",
                "cold_tree_vs_plain_git", "ratio_cold", "ratio_warm", "ratio_warm_command"):
        assert figures[key] > 0, key
    assert figures["warm_dispatch_ms"] >= 0 and "apply_ms" in figures
