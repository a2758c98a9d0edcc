"""Scheduling policies (P-3.3, P-3.4): pure simulations and the real executor,
checked from the recorded events the way `paicli verify` reads a ledger."""

from __future__ import annotations

import random
import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paicli_tui.events import EventBus
from paicli_tui.plan.executor import PlanExecutor, TaskOutcome
from paicli_tui.plan.model import Plan, PlanStatus, Task, TaskStatus
from paicli_tui.plan.scheduler import (
    critical_path,
    make_scheduler,
    makespan_lower_bound,
    remaining_chain,
    simulate_makespan,
)

TERMINAL = {"COMPLETED", "FAILED", "SKIPPED", "BLOCKED"}


def ledger_violations(events: list, limit: int) -> list[str]:
    """The scheduling rules of `paicli verify`, over bus events in order:
    no dispatch before every dependency COMPLETED, none between a replan
    trigger and the replan's plan version, never more than ``limit`` running,
    no worker on two tasks at once, no task dispatched twice per version."""
    problems: list[str] = []
    deps: dict[str, list[str]] | None = None
    status: dict[str, str] = {}
    worker_of: dict[str, str] = {}
    busy: set[str] = set()
    dispatched: set[str] = set()
    replan_pending = False
    for n, event in enumerate(events):
        if event.name == "plan_version":
            deps = {t["id"]: t["dependencies"] for t in event.plan["tasks"]}
            status, dispatched, replan_pending = {}, set(), False
        elif event.name == "replan_triggered":
            replan_pending = True
        elif event.name == "dispatch":
            tid = event.task_id
            if replan_pending:
                problems.append(f"{n}: {tid} dispatched after a replan trigger")
            if deps is not None and any(status.get(d) != "COMPLETED" for d in deps[tid]):
                problems.append(f"{n}: {tid} dispatched before its dependencies completed")
            if tid in dispatched:
                problems.append(f"{n}: {tid} dispatched twice")
            if event.worker in busy:
                problems.append(f"{n}: {event.worker} already busy when {tid} was dispatched")
            dispatched.add(tid)
            busy.add(event.worker)
            worker_of[tid] = event.worker
            if len(busy) > limit:
                problems.append(f"{n}: {len(busy)} tasks running, limit {limit}")
        elif event.name == "status":
            status[event.task_id] = event.status
            if event.status in TERMINAL and event.task_id in worker_of:
                busy.discard(worker_of.pop(event.task_id))
    return problems


def announce(plan: Plan) -> list:
    """The plan_version line a planner would have published before the run."""
    from paicli_tui.events import PlanProposed

    return [PlanProposed("planner", 1, "initial", "goal", plan.to_dict())]


@st.composite
def dags(draw, max_tasks: int = 12) -> Plan:
    """Random DAGs whose array order is shuffled (forward references)."""
    n = draw(st.integers(1, max_tasks))
    deps = [sorted(draw(st.sets(st.integers(0, i - 1), max_size=3))) if i else [] for i in range(n)]
    order = draw(st.permutations(range(n)))
    return Plan([Task(f"task_{i + 1}", f"task {i + 1}", dependencies=[f"task_{d + 1}" for d in deps[i]]) for i in order])


# --- pure scheduler -----------------------------------------------------------


def check_intervals(plan: Plan, intervals: list[tuple[float, float, str]], limit: int) -> None:
    span = {tid: (start, end) for start, end, tid in intervals}
    assert sorted(span) == sorted(plan.ids), "every task runs exactly once"
    for task in plan.tasks:
        for dep in task.dependencies:
            assert span[task.id][0] >= span[dep][1], f"{task.id} started before {dep} ended"
    for start, _, _ in intervals:
        overlapping = sum(1 for s, e, _ in intervals if s <= start < e)
        assert overlapping <= limit


@settings(max_examples=150, deadline=None)
@given(plan=dags(30), data=st.data(), limit=st.integers(1, 5), policy=st.sampled_from(["ready", "batch"]))
def test_simulated_schedules_respect_dependencies_and_limit(plan, data, limit, policy):
    durations = {tid: data.draw(st.integers(1, 9)) for tid in plan.ids}
    makespan, intervals = simulate_makespan(plan, durations, limit, policy)
    check_intervals(plan, intervals, limit)
    assert makespan >= makespan_lower_bound(plan, durations, limit)
    assert all(task.status is TaskStatus.PENDING for task in plan.tasks), "the simulation leaves the plan as it was"


@settings(max_examples=80, deadline=None)
@given(plan=dags(20), data=st.data())
def test_ready_with_enough_slots_finishes_at_the_critical_path(plan, data):
    durations = {tid: data.draw(st.integers(1, 9)) for tid in plan.ids}
    makespan, _ = simulate_makespan(plan, durations, len(plan.tasks), "ready")
    assert makespan == critical_path(plan, durations)


@settings(max_examples=80, deadline=None)
@given(plan=dags(20), data=st.data(), limit=st.integers(1, 4))
def test_batch_runs_the_plan_rounds_one_after_another(plan, data, limit):
    durations = {tid: data.draw(st.integers(1, 9)) for tid in plan.ids}
    _, intervals = simulate_makespan(plan, durations, limit, "batch")
    span = {tid: (start, end) for start, end, tid in intervals}
    rounds = plan.batches()
    for earlier, later in zip(rounds, rounds[1:]):
        assert max(span[t][1] for t in earlier) <= min(span[t][0] for t in later)


def test_ready_prefers_the_longest_remaining_chain_then_topological_order():
    plan = Plan(
        [
            Task("task_1", "short"),
            Task("task_2", "short too"),
            Task("task_3", "head of a chain"),
            Task("task_4", "chain", dependencies=["task_3"]),
            Task("task_5", "chain end", dependencies=["task_4"]),
        ]
    )
    assert remaining_chain(plan)["task_3"] == 3
    scheduler = make_scheduler("ready", plan)
    assert scheduler.select(2) == ["task_3", "task_1"]


def test_ready_ranks_by_estimated_duration_when_given():
    plan = Plan([Task("task_1", "a"), Task("task_2", "b"), Task("task_3", "c", dependencies=["task_1"])])
    estimates = {"task_1": 1.0, "task_2": 10.0, "task_3": 1.0}
    assert make_scheduler("ready", plan).select(1) == ["task_1"]
    assert make_scheduler("ready", plan, estimates).select(1) == ["task_2"]


def test_batch_waits_for_the_whole_round():
    plan = Plan([Task("task_1", "a"), Task("task_2", "b"), Task("task_3", "c", dependencies=["task_1"])])
    scheduler = make_scheduler("batch", plan)
    assert scheduler.select(4) == ["task_1", "task_2"]
    for tid in ("task_1", "task_2"):
        plan.task(tid).status = TaskStatus.RUNNING
    plan.task("task_1").status = TaskStatus.COMPLETED
    scheduler.finished("task_1")
    assert scheduler.select(4) == [], "task_3 waits until task_2 ends the round"
    plan.task("task_2").status = TaskStatus.COMPLETED
    scheduler.finished("task_2")
    assert scheduler.select(4) == ["task_3"]


def test_unknown_policy_is_rejected_by_name():
    with pytest.raises(ValueError, match="unknown schedule policy 'fastest'"):
        make_scheduler("fastest", Plan([]))
    with pytest.raises(ValueError, match="fastest"):
        PlanExecutor(Plan([]), lambda *a: TaskOutcome("completed"), goal="g", policy="fastest")


# --- the real executor ----------------------------------------------------------


def run_recorded(plan: Plan, runner, **kwargs) -> tuple:
    bus = EventBus("test", "plan")
    events: list = announce(plan)
    lock = threading.Lock()

    def record(event) -> None:
        with lock:
            events.append(event)

    bus.subscribe(record)
    report = PlanExecutor(plan, runner, goal="goal", bus=bus, **kwargs).run(threading.Event())
    return report, events


@pytest.mark.timeout(120)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    plan=dags(12),
    seed=st.integers(0, 2**16),
    limit=st.integers(1, 4),
    policy=st.sampled_from(["ready", "batch"]),
    fail_rate=st.sampled_from([0.0, 0.0, 0.2]),
)
def test_executor_obeys_the_rules_for_random_plans(plan, seed, limit, policy, fail_rate):
    rng = random.Random(seed)
    delays = {tid: rng.choice([0.0, 0.0005, 0.002]) for tid in plan.ids}
    failing = {tid for tid in plan.ids if rng.random() < fail_rate}

    def runner(task, _plan, _worker, _cancel):
        time.sleep(delays[task.id])
        if task.id in failing:
            raise RuntimeError(f"{task.id} broke")
        return TaskOutcome("completed", result=f"result of {task.id}")

    report, events = run_recorded(plan, runner, policy=policy, parallelism=limit)
    assert ledger_violations(events, limit) == []
    doomed = set(failing)
    for tid in failing:
        doomed.update(plan.transitive_dependents(tid))
    for task in plan.tasks:
        if task.id not in doomed:
            assert task.status is TaskStatus.COMPLETED, "unrelated branches go on"
        elif task.status is TaskStatus.SKIPPED:
            assert task.error.startswith("dependency ")
        else:
            assert task.status is TaskStatus.FAILED and task.id in failing
    assert report.status is (PlanStatus.FAILED if failing else PlanStatus.COMPLETED)
    assert events[-1].name == "run_finished"
    assert not [t for t in threading.enumerate() if t.name.startswith("paicli-task")], "pool threads are gone"


def test_the_checker_catches_an_early_dispatch():
    from paicli_tui.events import TaskDispatched

    plan = Plan([Task("task_1", "a"), Task("task_2", "b", dependencies=["task_1"])])
    events = announce(plan) + [TaskDispatched("task_2", "task_2", "worker-1")]
    assert ledger_violations(events, 4) == ["1: task_2 dispatched before its dependencies completed"]


def test_the_checker_catches_replan_overlap_and_busy_workers():
    from paicli_tui.events import ReplanTriggered, TaskDispatched

    plan = Plan([Task("task_1", "a"), Task("task_2", "b"), Task("task_3", "c")])
    busy_worker = announce(plan) + [
        TaskDispatched("task_1", "task_1", "worker-1"),
        TaskDispatched("task_2", "task_2", "worker-1"),
    ]
    assert ledger_violations(busy_worker, 4) == ["2: worker-1 already busy when task_2 was dispatched"]
    too_many = announce(plan) + [TaskDispatched(t, t, f"worker-{t[-1]}") for t in plan.ids]
    assert ledger_violations(too_many, 2) == ["3: 3 tasks running, limit 2"]
    after_trigger = announce(plan) + [ReplanTriggered("executor", "task_1", "boom", 1), TaskDispatched("task_2", "task_2", "worker-1")]
    assert ledger_violations(after_trigger, 4) == ["2: task_2 dispatched after a replan trigger"]


@pytest.mark.timeout(120)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=dags(10), seed=st.integers(0, 2**16), limit=st.integers(1, 4), policy=st.sampled_from(["ready", "batch"]))
def test_replans_happen_below_half_and_nothing_starts_while_one_is_pending(plan, seed, limit, policy):
    rng = random.Random(seed)
    failing = {tid for tid in plan.ids if rng.random() < 0.3}
    total = len(plan.tasks)

    def runner(task, _plan, _worker, _cancel):
        time.sleep(rng.choice([0.0, 0.001]))
        if task.description.startswith("task ") and task.id in failing:
            return TaskOutcome("failed", error="broke")
        return TaskOutcome("completed", result="ok")

    def replanner(current: Plan, failed: Task, reason: str) -> Plan:
        return Plan([Task("task_1", "again"), Task("task_2", "again", dependencies=["task_1"])])

    report, events = run_recorded(plan, runner, policy=policy, parallelism=limit, replanner=replanner)
    assert ledger_violations(events, limit) == []
    completed, size = 0, total
    for event in events:
        if event.name == "plan_version":
            completed, size = 0, len(event.plan["tasks"])
        elif event.name == "status" and event.status == "COMPLETED":
            completed += 1
        elif event.name == "replan_triggered":
            assert completed / size < 0.5, "replans only below 50 % progress"
    assert report.replans == len([e for e in events if e.name == "replan_triggered"]) <= 1
    if report.replans:
        assert report.status is PlanStatus.COMPLETED, "the replacement plan never fails"
    else:
        assert report.status is (PlanStatus.FAILED if failing else PlanStatus.COMPLETED)
