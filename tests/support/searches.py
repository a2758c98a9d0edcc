"""Helpers for tests of grep_code: a tree that keeps rg busy for seconds,
and a look at /proc for the rg processes still running in a directory."""

from __future__ import annotations

import os
import random
from pathlib import Path

SLOW_PATTERN = "[ab]*a[ab]{20}d"
"""Linear in rg too, but its DFA has 2**20 states: rg falls back to slow
engines and needs seconds per MB of a/b text, while matching nothing."""


def write_slow_tree(root: Path, files: int = 12) -> Path:
    """~2 MB of random a/b lines per file (under grep_code's 2 MB cap)."""
    rng = random.Random(12)
    table = bytes(ord("a") + (i & 1) for i in range(256))
    root.mkdir(parents=True, exist_ok=True)
    for index in range(files):
        lines = [rng.randbytes(199).translate(table) for _ in range(9_500)]
        (root / f"part{index:02}.txt").write_bytes(b"\n".join(lines) + b"\n")
    return root


def rg_searches_in(directory: Path) -> list[int]:
    """Pids of live rg content searches (not file listings) whose cwd is ``directory``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.readlink(f"/proc/{entry}/cwd") != str(directory):
                continue
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if Path(os.fsdecode(argv[0])).name == "rg" and b"--json" in argv:
            found.append(int(entry))
    return found
