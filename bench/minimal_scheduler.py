"""The smallest `ready` scheduler that makes the same model calls as the
product: same policy (longest remaining chain, then topological order), same
client, same task message, same parallelism, and the same trick of running a
released task on the thread that released it; but no events, no ledger, no
failure, replan, cancel or budget rules.

bench/schedule.py runs it beside the real PlanExecutor on every plan: the
gap between the two is what the engine's bookkeeping costs, and the gap
between this one and the bound is what any engine pays on this machine for
the model calls themselves.
"""

from __future__ import annotations

import heapq
import threading
from typing import Callable

from paicli_tui.plan.model import Plan, TaskStatus
from paicli_tui.plan.scheduler import remaining_chain

#: Runs one task (the model call) and returns its result text.
CallTask = Callable[[Plan, str], str]


def run_minimal(plan: Plan, call: CallTask, parallelism: int) -> None:
    chain = remaining_chain(plan)
    position = {tid: i for i, tid in enumerate(plan.topological_order())}
    children: dict[str, list[str]] = {tid: [] for tid in plan.ids}
    unmet: dict[str, int] = {}
    for task in plan.tasks:
        for dep in set(task.dependencies):
            children[dep].append(task.id)
        unmet[task.id] = len(set(task.dependencies))
    ready = [(-chain[tid], position[tid], tid) for tid, count in unmet.items() if count == 0]
    heapq.heapify(ready)
    lock = threading.Lock()
    running = 0
    threads: list[threading.Thread] = []

    def take() -> list[str]:
        nonlocal running
        taken = []
        while ready and running < parallelism:
            running += 1
            taken.append(heapq.heappop(ready)[2])
        return taken

    def start(tid: str) -> None:
        thread = threading.Thread(target=work, args=(tid,))
        threads.append(thread)
        thread.start()

    def work(tid: str | None) -> None:
        nonlocal running
        while tid is not None:
            result = call(plan, tid)
            with lock:
                task = plan.task(tid)
                task.status, task.result = TaskStatus.COMPLETED, result
                running -= 1
                for child in children[tid]:
                    unmet[child] -= 1
                    if unmet[child] == 0:
                        heapq.heappush(ready, (-chain[child], position[child], child))
                taken = take()
                for other in taken[1:]:
                    start(other)
            tid = taken[0] if taken else None

    with lock:
        first = take()
    for tid in first:
        start(tid)
    # Threads are only started by running threads, so joining until none is
    # left unjoined waits for the whole plan.
    joined = 0
    while joined < len(threads):
        threads[joined].join()
        joined += 1
