"""Task isolation's cost on a generated 5,000-file repository (issue: parallel
work that cannot collide).

Micro timings (median of ``--repeat``): the start snapshot; a cold task tree
(an empty pool) beside the reference, git's own ``worktree add`` +
``checkout`` of the same repository in the same run; a tree taken from the
warm pool at dispatch (readied while the run began); recycling it to a new
base; committing a task's change; merging it; the apply at the end.

Makespan: a 6-task diamond (t1 → t2..t5 → t6) through the real PlanExecutor
at parallelism 4. Each task writes one distinct file with the real
``write_file`` tool (through the tool registry bound to its tree, as an
agent's call goes) and then waits ``--delay`` seconds (a model call stands
in as a fixed wait, the same in every arm). Arms, interleaved: isolation
off (tasks write into the workspace); on, cold (a workspace's first run: an
empty pool, trees made in the background as the run begins); on, warm (a
later run of the same workspace, its trees leased from the pool the earlier
runs left); on, warm, with each task writing its file with
``execute_command`` instead (a command may write anything, so its commit and
its tree's recycle walk the whole tree). The real git, the real executor
and tools; no model server: what is measured is what isolation adds on the
critical path.

    python bench/isolation.py [--quick] [--files 5000] [--delay 1.0] [--repeat 3]

``--quick`` is 1,500 files and one repeat (under two minutes). The first
line names the machine's load; the last is one JSON object with every
figure and the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from paicli_tui.agent.registry import ToolRegistry  # noqa: E402
from paicli_tui.config.settings import Settings  # noqa: E402
from paicli_tui.llm.types import ToolCall  # noqa: E402
from paicli_tui.plan.executor import PlanExecutor, TaskOutcome  # noqa: E402
from paicli_tui.policy.approval import AutoApprover  # noqa: E402
from paicli_tui.tools.base import ToolContext  # noqa: E402
from paicli_tui.tools.trusted_urls import TrustedUrls  # noqa: E402
from paicli_tui.plan.model import Plan, Task  # noqa: E402
from paicli_tui.workspace import IsolatedRun  # noqa: E402
from paicli_tui.workspace.apply import apply_run  # noqa: E402
from paicli_tui.workspace.resolver import HeadlessResolver, TaskIsolation  # noqa: E402

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


def makespan(workspace: Path, delay: float, isolation: TaskIsolation | None, tag: str,
             command: bool = False) -> float:
    registry = ToolRegistry(workspace, Settings(provider="custom", base_url="http://bench.invalid/v1", model="m"))

    def run_task(task: Task, plan: Plan, worker: str, cancel: threading.Event) -> TaskOutcome:
        attempt = isolation.attempt(task.id, worker) if isolation else None
        tools = registry.for_root(attempt.path, attempt.journal) if attempt else registry
        path = f"out/{tag}-{task.id}.txt"
        if command:
            script = f"mkdir -p out && echo {task.id} > {path}"
            call = ToolCall(task.id, "execute_command", json.dumps({"command": script}))
        else:
            call = ToolCall(task.id, "write_file", json.dumps({"path": path, "content": f"{task.id}\n"}))
        ctx = ToolContext(worker, cancel, TrustedUrls(), AutoApprover(), approval_mode="auto")
        result = tools.execute(call, ctx)
        assert result.ok, result.content
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


def plain_worktree(workspace: Path, target: Path) -> float:
    """The reference: what git itself takes to make a checked-out worktree
    of the person's repository (``worktree add --no-checkout`` + ``checkout``)."""
    def make() -> None:
        git(workspace, "worktree", "add", "-q", "--no-checkout", "--detach", str(target), "HEAD")
        git(target, "checkout", "-q", "-f", "HEAD")
    elapsed = timed(make)
    git(workspace, "worktree", "remove", "--force", str(target))
    return elapsed


def micro(workspace: Path, home: Path, repeat: int) -> dict:
    keys = ("snapshot", "cold_tree", "plain_worktree", "warm_dispatch", "recycle", "commit", "merge", "apply")
    figures: dict[str, list[float]] = {k: [] for k in keys}
    for number in range(repeat):
        root = home / f"micro-{number}"
        run_box: list[IsolatedRun] = []
        figures["snapshot"].append(timed(lambda: run_box.append(IsolatedRun.begin_run(workspace, "cold", root))))
        run = run_box[0]
        # Side by side, in turns: whichever goes second reads git objects the first left in the page cache.
        if number % 2:
            figures["plain_worktree"].append(plain_worktree(workspace, home / f"plain-{number}"))
        figures["cold_tree"].append(timed(lambda: run.attempt("t1", "slot")))
        if not number % 2:
            figures["plain_worktree"].append(plain_worktree(workspace, home / f"plain-{number}"))
        run.close()
        # A later run of the same workspace: its pool tree is readied while the run begins.
        run = IsolatedRun.begin_run(workspace, "warm", root, warm=["slot"])
        waited = time.perf_counter()
        while not run.trees.is_ready("slot"):
            time.sleep(0.01)
            assert time.perf_counter() - waited < 120, "the pool tree was never readied"
        figures["warm_dispatch"].append(timed(lambda: run.attempt("t1", "slot")))
        attempt = run.attempt("t1", "slot")
        (attempt.path / "pkg_00" / "mod_0" / "file_1.py").write_text("changed\n")
        result_box = []
        figures["commit"].append(timed(lambda: result_box.append(run.commit(attempt))))
        figures["merge"].append(timed(lambda: run.merge(attempt, result_box[0])))
        figures["recycle"].append(timed(lambda: run.attempt("t2", "slot")))
        figures["apply"].append(timed(lambda: apply_run(run, "none")))
        run.close()
    return {key: statistics.median(values) for key, values in figures.items()}


def isolated(workspace: Path, root: Path, run_id: str, delay: float, tag: str, command: bool = False) -> float:
    run = IsolatedRun.begin_run(workspace, run_id, root, warm=WORKERS)
    try:
        return makespan(workspace, delay, TaskIsolation(run, HeadlessResolver()), tag, command)
    finally:
        run.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1,500 files, one repeat: under two minutes")
    parser.add_argument("--files", type=int)
    parser.add_argument("--delay", type=float, default=1.0)
    parser.add_argument("--repeat", type=int)
    args = parser.parse_args(argv)
    files = args.files or (1500 if args.quick else 5000)
    repeat = args.repeat or (1 if args.quick else 3)
    load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="paicli-bench-isolation-") as scratch:
        home = Path(scratch)
        workspace = make_repo(home / "repo", files)
        print(f"repository: {files} files; delay per task {args.delay:.2f} s; repeat {repeat}; "
              f"load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
        figures = micro(workspace, home, repeat)
        for key, value in figures.items():
            print(f"  {key:<15} {value * 1000:8.1f} ms")
        off, cold, warm, command = [], [], [], []
        pool = home / "session"
        isolated(workspace, pool, "session-first", args.delay, "first")  # the session's first run fills the pool
        for number in range(repeat):
            off.append(makespan(workspace, args.delay, None, f"off{number}"))
            cold.append(isolated(workspace, home / f"cold-{number}", "cold", args.delay, f"cold{number}"))
            warm.append(isolated(workspace, pool, f"warm-{number}", args.delay, f"warm{number}"))
            command.append(isolated(workspace, pool, f"command-{number}", args.delay, f"command{number}", True))
    result = {
        "files": files, "delay_s": args.delay, "repeat": repeat, "load_1m": round(load[0], 2),
        **{f"{k}_ms": round(v * 1000, 1) for k, v in figures.items()},
        "cold_tree_vs_plain_git": round(figures["cold_tree"] / figures["plain_worktree"], 3),
        "makespan_off_s": round(statistics.median(off), 3), "makespan_cold_s": round(statistics.median(cold), 3),
        "makespan_warm_s": round(statistics.median(warm), 3),
        "makespan_warm_command_s": round(statistics.median(command), 3),
    }
    result["ratio_cold"] = round(result["makespan_cold_s"] / result["makespan_off_s"], 3)
    result["ratio_warm"] = round(result["makespan_warm_s"] / result["makespan_off_s"], 3)
    result["ratio_warm_command"] = round(result["makespan_warm_command_s"] / result["makespan_off_s"], 3)
    print(f"cold task tree {figures['cold_tree'] * 1000:.0f} ms vs plain git worktree add + checkout "
          f"{figures['plain_worktree'] * 1000:.0f} ms (x{result['cold_tree_vs_plain_git']:.2f}); "
          f"from the warm pool {figures['warm_dispatch'] * 1000:.1f} ms at dispatch, "
          f"{figures['recycle'] * 1000:.0f} ms to recycle")
    print(f"makespan of a 6-task diamond at parallelism 4: off {result['makespan_off_s']:.2f} s, "
          f"isolated cold {result['makespan_cold_s']:.2f} s (x{result['ratio_cold']:.2f}), "
          f"isolated warm {result['makespan_warm_s']:.2f} s (x{result['ratio_warm']:.2f}), "
          f"warm with tasks writing by command {result['makespan_warm_command_s']:.2f} s "
          f"(x{result['ratio_warm_command']:.2f})")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
