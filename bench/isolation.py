"""Task isolation's cost on a generated 5,000-file repository (issue: parallel
work that cannot collide).

Micro timings (median of ``--repeat``): the start snapshot, a cold task tree,
recycling a warm one to a new base, committing a task's change, merging it
into the integration ref, and the apply at the end.

Makespan: a 6-task diamond (t1 → t2..t5 → t6) through the real PlanExecutor
at parallelism 4. Each task writes one distinct file and then waits
``--delay`` seconds (a model call stands in as a fixed wait, the same in
every arm). Arms, interleaved: isolation off (tasks write into the
workspace); on, cold (a new run's trees, warmed in the background as the run
begins); on, warm (a second run recycling the first run's trees, as a
session does). The real git, the real executor; no model server: what is
measured is what isolation adds on the critical path.

    python bench/isolation.py [--files 5000] [--delay 1.0] [--repeat 3]

The last line is one JSON object with every figure and the ratios.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from paicli_tui.plan.executor import PlanExecutor, TaskOutcome  # noqa: E402
from paicli_tui.plan.model import Plan, Task  # noqa: E402
from paicli_tui.workspace import IsolatedRun  # noqa: E402
from paicli_tui.workspace.apply import apply_run  # noqa: E402
from paicli_tui.workspace.resolver import HeadlessResolver, TaskIsolation  # noqa: E402
from paicli_tui.workspace.trees import TaskTrees  # noqa: E402

WORKERS = [f"worker-{i}" for i in range(1, 5)]


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def make_repo(root: Path, files: int) -> Path:
    """``files`` Python-like files of about 4 KB in packages of 100, one
    commit, plus one uncommitted edit and one untracked file."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "bench@example.com")
    git(root, "config", "user.name", "bench")
    body = "".join(f"def function_{i}(x):\n    return x * {i} + {i}\n\n" for i in range(100))[:4000]
    for number in range(files):
        path = root / f"pkg_{number // 100:02d}" / f"mod_{number // 10 % 10}" / f"file_{number % 10}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# file {number}\n{body}")
    (root / ".gitignore").write_text("*.log\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "generated")
    (root / "pkg_00" / "mod_0" / "file_0.py").write_text("# edited, not committed\n")
    (root / "untracked.txt").write_text("untracked\n")
    return root


def diamond() -> Plan:
    tasks = [Task("t1", "first")]
    tasks += [Task(f"t{i}", f"middle {i}", dependencies=["t1"]) for i in range(2, 6)]
    tasks.append(Task("t6", "last", dependencies=[f"t{i}" for i in range(2, 6)]))
    return Plan(tasks, goal="bench")


def makespan(workspace: Path, delay: float, isolation: TaskIsolation | None, tag: str) -> float:
    def run_task(task: Task, plan: Plan, worker: str, cancel: threading.Event) -> TaskOutcome:
        attempt = isolation.attempt(task.id, worker) if isolation else None
        root = attempt.path if attempt else workspace
        (root / "out").mkdir(exist_ok=True)
        (root / "out" / f"{tag}-{task.id}.txt").write_text(f"{task.id}\n")
        time.sleep(delay)
        if isolation and attempt:
            settled = isolation.settle(attempt, task.description, cancel)
            if settled.status not in ("merged", "empty"):
                return TaskOutcome("failed", error=settled.status)
        return TaskOutcome("completed", "done")

    executor = PlanExecutor(diamond(), run_task, goal="bench", parallelism=4, workers=WORKERS)
    started = time.perf_counter()
    report = executor.run(threading.Event())
    elapsed = time.perf_counter() - started
    assert report.status.value == "COMPLETED", report.summary
    return elapsed


def timed(action) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def micro(workspace: Path, home: Path, repeat: int) -> dict:
    figures: dict[str, list[float]] = {k: [] for k in ("snapshot", "cold_tree", "recycle", "commit", "merge", "apply")}
    for number in range(repeat):
        run_box: list[IsolatedRun] = []
        figures["snapshot"].append(timed(lambda: run_box.append(
            IsolatedRun.begin_run(workspace, f"micro-{number}", home / "isolation"))))
        run = run_box[0]
        figures["cold_tree"].append(timed(lambda: run.attempt("t1", "slot")))
        attempt_box = []
        figures["recycle"].append(timed(lambda: attempt_box.append(run.attempt("t1", "slot"))))
        attempt = attempt_box[0]
        (attempt.path / "pkg_00" / "mod_0" / "file_1.py").write_text("changed\n")
        result_box = []
        figures["commit"].append(timed(lambda: result_box.append(run.commit(attempt))))
        figures["merge"].append(timed(lambda: run.merge(attempt, result_box[0])))
        figures["apply"].append(timed(lambda: apply_run(run, "none")))
        run.close()
    return {key: statistics.median(values) for key, values in figures.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--delay", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="paicli-bench-isolation-") as scratch:
        home = Path(scratch)
        workspace = make_repo(home / "repo", args.files)
        print(f"repository: {args.files} files; delay per task {args.delay:.2f} s; repeat {args.repeat}")
        figures = micro(workspace, home, args.repeat)
        for key, value in figures.items():
            print(f"  {key:<10} {value * 1000:8.1f} ms")
        off, cold, warm = [], [], []
        session_trees: TaskTrees | None = None
        for number in range(args.repeat):
            off.append(makespan(workspace, args.delay, None, f"off{number}"))
            run = IsolatedRun.begin_run(workspace, f"cold-{number}", home / "isolation", warm=WORKERS)
            cold.append(makespan(workspace, args.delay, TaskIsolation(run, HeadlessResolver()), f"cold{number}"))
            run.close()
            if session_trees is None:
                first = IsolatedRun.begin_run(workspace, "session-first", home / "isolation", warm=WORKERS)
                makespan(workspace, args.delay, TaskIsolation(first, HeadlessResolver()), "first")
                session_trees = first.trees
            again = IsolatedRun.begin_run(workspace, f"warm-{number}", home / "isolation", trees=session_trees)
            warm.append(makespan(workspace, args.delay, TaskIsolation(again, HeadlessResolver()), f"warm{number}"))
        if session_trees is not None:
            session_trees.close()
    result = {
        "files": args.files, "delay_s": args.delay, **{f"{k}_ms": round(v * 1000, 1) for k, v in figures.items()},
        "makespan_off_s": round(statistics.median(off), 3), "makespan_cold_s": round(statistics.median(cold), 3),
        "makespan_warm_s": round(statistics.median(warm), 3),
    }
    result["ratio_cold"] = round(result["makespan_cold_s"] / result["makespan_off_s"], 3)
    result["ratio_warm"] = round(result["makespan_warm_s"] / result["makespan_off_s"], 3)
    print(f"makespan of a 6-task diamond at parallelism 4: off {result['makespan_off_s']:.2f} s, "
          f"isolated cold {result['makespan_cold_s']:.2f} s (x{result['ratio_cold']:.2f}), "
          f"isolated warm {result['makespan_warm_s']:.2f} s (x{result['ratio_warm']:.2f})")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
