"""How long the whole test suite takes, configurations side by side (issue 19).

Runs the suite (e2e, pty and real-server tests included) once per
configuration per round, alternating the order each round so a machine that
slows down or speeds up during the bench does not favour one side:

- ``one-process``: ``python -m pytest -n 0``, the way the suite ran when the
  issue was filed (no xdist);
- ``before``: the README's test command (``python -m pytest``) in a temporary
  git worktree at ``--before REF`` (default ``HEAD~1``),
  so the old pytest configuration runs the same tests;
- ``now``: the README's test command in this checkout.

Every run starts cold, as on CI's clean clone: the ``__pycache__`` folders
of the tree are removed first. Each run's output is kept in a temporary log
file named on its line. The last line printed is one JSON object with
the wall times (median per configuration) and the ratios to ``one-process``
and to ``before``; a run with a failing test is reported as such.

    python bench/suite_duration.py                 # one round, all three
    python bench/suite_duration.py --rounds 2 --only before,now
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUMMARY = re.compile(r"^=*\s*(?P<text>\d+ (?:passed|failed|error).*?) in [\d.]+s", re.MULTILINE)


def remove_caches(tree: Path) -> None:
    for folder in tree.rglob("__pycache__"):
        shutil.rmtree(folder, ignore_errors=True)


def run_suite(tree: Path, args: list[str]) -> dict:
    remove_caches(tree)
    env = dict(os.environ, PYTHONPATH=str(tree))  # paicli subprocesses import this tree's code
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args], cwd=tree,
                          env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    wall = time.monotonic() - started
    found = SUMMARY.search(done.stdout)
    log = Path(tempfile.mkstemp(prefix="paicli-suite-", suffix=".log")[1])
    log.write_text(done.stdout + done.stderr, encoding="utf-8")
    return {"wall_s": round(wall, 1), "exit": done.returncode, "log": str(log),
            "summary": found.group("text") if found else "no pytest summary line (see the log)"}


def worktree_at(ref: str) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="paicli-bench-before-"))
    subprocess.run(["git", "worktree", "add", "--detach", str(folder), ref], cwd=ROOT, check=True,
                   capture_output=True)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", default="HEAD~1", help="git ref whose test command is 'before'")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--only", default="one-process,before,now", help="comma-separated configurations")
    options = parser.parse_args()
    # Started as a script's background job (``cmd &``), this process has
    # SIGINT ignored and its children would keep it so: the suite's SIGINT
    # tests of an older commit (before start_paicli) would fail and time out.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    wanted = options.only.split(",")
    before_tree = worktree_at(options.before) if "before" in wanted else None
    configs = {"one-process": (ROOT, ["-n", "0"]), "before": (before_tree, []), "now": (ROOT, [])}
    results: dict[str, list[dict]] = {name: [] for name in wanted}
    try:
        for round_no in range(options.rounds):
            order = wanted if round_no % 2 == 0 else list(reversed(wanted))
            for name in order:
                tree, args = configs[name]
                result = run_suite(tree, args)
                results[name].append(result)
                print(f"round {round_no + 1} {name:12} {result['wall_s']:7.1f} s  exit {result['exit']}  "
                      f"{result['summary']}  ({result['log']})", flush=True)
    finally:
        if before_tree is not None:
            subprocess.run(["git", "worktree", "remove", "--force", str(before_tree)], cwd=ROOT,
                           capture_output=True)
    medians = {name: statistics.median(r["wall_s"] for r in runs) for name, runs in results.items()}
    report = {"cores": len(os.sched_getaffinity(0)), "median_wall_s": medians,
              "all_green": all(r["exit"] == 0 for runs in results.values() for r in runs), "runs": results}
    for base in ("one-process", "before"):
        if base in medians and "now" in medians:
            report[f"now_over_{base.replace('-', '_')}"] = round(medians["now"] / medians[base], 3)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
