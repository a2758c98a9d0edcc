"""bench/minimal_scheduler.py is the floor the scheduling bench compares the
engine with; it must be a correct `ready` scheduler for that to mean anything."""

from __future__ import annotations

import random
import sys
import threading
import time
from pathlib import Path

import pytest

from paicli_tui.plan.model import Plan, Task, TaskStatus

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from minimal_scheduler import run_minimal  # noqa: E402

pytestmark = pytest.mark.timeout(30)


def random_plan(rng: random.Random, n: int) -> Plan:
    tasks = []
    for i in range(1, n + 1):
        deps = sorted({f"task_{rng.randint(1, i - 1)}" for _ in range(rng.randint(0, 2))} if i > 1 else set())
        tasks.append(Task(f"task_{i}", f"do {i}", dependencies=deps))
    return Plan(tasks)


@pytest.mark.parametrize("seed", range(5))
def test_every_task_runs_once_after_its_dependencies_and_within_the_limit(seed):
    rng = random.Random(seed)
    plan = random_plan(rng, 25)
    lock = threading.Lock()
    running: set[str] = set()
    finished: set[str] = set()
    started: list[str] = []
    problems: list[str] = []

    def call(current: Plan, tid: str) -> str:
        with lock:
            started.append(tid)
            running.add(tid)
            if len(running) > 3:
                problems.append(f"{len(running)} running")
            missing = [d for d in current.task(tid).dependencies if d not in finished]
            if missing:
                problems.append(f"{tid} started before {missing}")
        time.sleep(rng.random() * 0.002)
        with lock:
            running.discard(tid)
            finished.add(tid)
        return f"result of {tid}"

    run_minimal(plan, call, parallelism=3)
    assert problems == []
    assert sorted(started) == sorted(plan.ids)
    assert all(task.status is TaskStatus.COMPLETED and task.result == f"result of {task.id}" for task in plan.tasks)


def test_the_longest_chain_goes_first():
    plan = Plan([Task("task_1", "short"), Task("task_2", "long"), Task("task_3", "end", dependencies=["task_2"])])
    order: list[str] = []
    run_minimal(plan, lambda current, tid: order.append(tid) or "ok", parallelism=1)
    assert order == ["task_2", "task_1", "task_3"]
