"""Where isolation's time goes in bench/isolation.py's warm diamond: every
git call the run makes, timed, with the thread that made it.

Run: ``python bench/isolation_trace.py [--files 5000] [--timeline]``.
Prints the makespan without and with isolation, then per git command its
calls and wall time, split into task threads (on a task's critical path)
and helpers (warm-up, receipts: off it). A measuring aid, not a target."""

from __future__ import annotations

import argparse
import collections
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import isolation as bench  # noqa: E402 — the bench's own scenario, beside this file

from paicli_tui.workspace import git as git_module  # noqa: E402


def traced(calls: list[tuple[float, float, str, str]]):
    original = git_module.Git.run_bytes

    def run_bytes(self, *args, **kwargs):
        started = time.perf_counter()
        try:
            return original(self, *args, **kwargs)
        finally:
            calls.append((started, time.perf_counter() - started, args[0], threading.current_thread().name))
    return run_bytes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--delay", type=float, default=1.0)
    parser.add_argument("--timeline", action="store_true", help="print every call in order")
    parser.add_argument("--command", action="store_true", help="tasks write their file with execute_command")
    args = parser.parse_args(argv)
    calls: list[tuple[float, float, str, str]] = []
    git_module.Git.run_bytes = traced(calls)
    with tempfile.TemporaryDirectory(prefix="paicli-bench-trace-") as scratch:
        home = Path(scratch)
        workspace = bench.make_repo(home / "repo", args.files)
        bench.isolated(workspace, home / "pool", "first", args.delay, "first")  # fills the pool
        off = bench.makespan(workspace, args.delay, None, "off")
        calls.clear()
        origin = time.perf_counter()
        warm = bench.isolated(workspace, home / "pool", "warm", args.delay, "warm", args.command)
    load = os.getloadavg()
    print(f"{args.files} files, load {load[0]:.2f}: makespan off {off:.2f} s, isolated warm {warm:.2f} s "
          f"(x{warm / off:.2f}); {len(calls)} git calls")
    table: dict[tuple[str, str], list[float]] = collections.defaultdict(list)
    for started, took, command, thread in calls:
        where = "task" if thread.startswith("paicli-task-worker") else "helper"
        table[(command, where)].append(took)
        if args.timeline:
            print(f"  {started - origin:7.3f} s {took * 1000:7.1f} ms  {command:<12} {thread}")
    for (command, where), took in sorted(table.items(), key=lambda item: -sum(item[1])):
        print(f"  {command:<12} {where:<6} {len(took):3} calls {sum(took) * 1000:8.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
