"""Dispatch overhead per task: the local executor vs the Ray executor on a
local Ray cluster (127.0.0.1, 2 CPUs), side by side in one run.

A plan of ``--tasks`` independent tasks runs through a real Session at
parallelism 2 against the scripted loopback server; each task writes one
file (two model calls that answer at once), so a task's time is what the
executor adds around an agent turn: locally the worker thread runs it; on
Ray the tree goes out as a git bundle, a remote task clones it, builds the
agent, runs the turn, and the result comes back as a bundle that is fetched
and checked out. Rounds alternate local and Ray; the first Ray round pays
for starting its worker processes and is shown apart.

    python bench/executors.py [--tasks 6] [--rounds 3]

The last line is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from paicli_tui.config.settings import Settings  # noqa: E402
from paicli_tui.events import TaskDispatched, TaskStatusChanged  # noqa: E402
from paicli_tui.executors import LocalExecutor  # noqa: E402
from paicli_tui.executors.ray_executor import RayExecutor  # noqa: E402
from paicli_tui.llm.offline.scripted import Reply  # noqa: E402
from paicli_tui.plan.parser import parse_plan  # noqa: E402
from paicli_tui.policy.approval import AutoApprover  # noqa: E402
from paicli_tui.session.live import Session  # noqa: E402
from paicli_tui.session.port import PlanRun  # noqa: E402
from tests.support.server import LoopbackServer  # noqa: E402


def writes_then_answers(request) -> Reply:
    if any(m.get("role") == "tool" for m in request.messages):
        return Reply(content="done")
    return Reply(tool_calls=[("write_file", {"path": f"{request.agent}.txt", "content": request.agent})])


def workspace(root: Path) -> Path:
    ws = root / "ws"
    ws.mkdir()
    (ws / "README.md").write_text("bench\n")
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "start"]):
        subprocess.run(["git", *args], cwd=ws, check=True)
    return ws


def one_round(executor, tasks: int, base_url: str, root: Path) -> dict:
    ws = workspace(root)
    settings = Settings(provider="custom", base_url=base_url, model="m", api_key_env="", max_retries=0,
                        parallelism=2)
    plan = parse_plan(json.dumps({"summary": "", "tasks": [
        {"id": f"t{i}", "description": f"write file {i}", "type": "ANALYSIS", "dependencies": []}
        for i in range(1, tasks + 1)]}), "task")
    plan.goal = "write files"
    session = Session(settings, ws, approver=AutoApprover(), executor=executor)
    seen: dict[str, list[float]] = {}

    def note(event) -> None:
        if isinstance(event, TaskDispatched):
            seen.setdefault(event.task_id, []).append(time.monotonic())
        elif isinstance(event, TaskStatusChanged) and event.status in ("COMPLETED", "FAILED"):
            seen.setdefault(event.task_id, []).append(time.monotonic())

    session.bus.subscribe(note)
    started = time.monotonic()
    try:
        outcome = session.submit(PlanRun("write files", plan)).result(timeout=600)
    finally:
        session.close()
    makespan = time.monotonic() - started
    per_task = [times[-1] - times[0] for times in seen.values() if len(times) >= 2]
    return {"ok": outcome.ok, "makespan_s": makespan, "per_task_s": statistics.mean(per_task),
            "files": sum(1 for _ in ws.glob("task_*.txt"))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="paicli-bench-exec-") as scratch:
        root = Path(scratch)
        os.environ["PAICLI_HOME"] = str(root / "home")
        ray_executor = RayExecutor.connect(None)
        results: dict[str, list[dict]] = {"local": [], "ray": []}
        try:
            with LoopbackServer(writes_then_answers) as server:
                for number in range(args.rounds):
                    for name, executor in (("local", LocalExecutor()), ("ray", ray_executor)):
                        here = root / f"{name}-{number}"
                        here.mkdir()
                        results[name].append(one_round(executor, args.tasks, server.base_url, here))
        finally:
            ray_executor.close()
    load = os.getloadavg()[0]
    warm_ray = results["ray"][1:] or results["ray"]
    local_task = statistics.median(r["per_task_s"] for r in results["local"])
    ray_task = statistics.median(r["per_task_s"] for r in warm_ray)
    print(f"{'':28}{'local':>10}{'ray':>10}")
    print(f"{'per task (median, warm) s':28}{local_task:10.3f}{ray_task:10.3f}")
    print(f"{'makespan (median, warm) s':28}"
          f"{statistics.median(r['makespan_s'] for r in results['local']):10.3f}"
          f"{statistics.median(r['makespan_s'] for r in warm_ray):10.3f}")
    print(f"{'first Ray round per task s':28}{'':>10}{results['ray'][0]['per_task_s']:10.3f}")
    print(f"dispatch overhead per task on Ray: {ray_task - local_task:.3f} s (target <= 1.5 s); "
          f"load average {load:.1f}")
    print(json.dumps({"tasks": args.tasks, "rounds": args.rounds, "load": load, "local": results["local"],
                      "ray": results["ray"], "overhead_per_task_s": ray_task - local_task}))


if __name__ == "__main__":
    main()
