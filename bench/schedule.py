"""Scheduling bench (issue 4): how close `ready` and `batch` come to the best
possible makespan, and what the engine costs per task.

Part 1. A fixed-seed suite of random layered DAGs (8–30 tasks, cross edges,
lognormal durations) runs through the real PlanExecutor at parallelism 4. Each
task makes one real ChatClient call to a scripted model (an in-process
httpx transport, so the client's real HTTP code path; its replies are
rendered before the clock starts, see bench/prerendered_model.py) that waits
the task's duration before answering. The makespan is compared with the lower bound
max(critical path, total work / 4), where a task's work is the time the
model takes (its nominal duration plus the median overshoot of the timed wait
the scripted server uses, measured alone on one thread before and after the
suite, so no engine or GIL time is in it); the ratio to the bound from
nominal durations is printed too. Two references run beside it: the same
plans on a simulated clock (the policy alone), and on every plan, in turn
with the real runs, bench/minimal_scheduler.py: the same policy, client and
calls with none of the engine's bookkeeping, i.e. the floor any engine of
this shape reaches on this machine.

Part 2. A 500-task plan against a zero-delay scripted model: wall time per
task through the engine (scheduling, events, task message, worker threads)
as a ratio to one bare client call of the same kind, at parallelism 1
(sequential bare calls) and 4 (the same calls made by 4 plain threads, since
zero-delay calls are pure CPU and 4 threads of them contend for the GIL with
or without an engine; the ratio to sequential calls is printed too). The
reported ratio is the worse of the two.

The last line is one JSON object with the four ratios.
"""

from __future__ import annotations

import json
import math
import random
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from minimal_scheduler import run_minimal  # noqa: E402
from prerendered_model import PrerenderedTransport  # noqa: E402
from paicli_tui.events import EventBus  # noqa: E402
from paicli_tui.llm.client import ChatClient  # noqa: E402
from paicli_tui.plan.context import task_message  # noqa: E402
from paicli_tui.plan.executor import PlanExecutor, TaskOutcome  # noqa: E402
from paicli_tui.plan.model import Plan, PlanStatus, Task, TaskStatus  # noqa: E402
from paicli_tui.plan.scheduler import makespan_lower_bound, simulate_makespan  # noqa: E402

SEED = 20240604
PLANS = 100
UNIT_S = 0.020  # one duration unit of the scripted model
PARALLELISM = 4
BIG_PLAN = 500
GOAL = "benchmark goal"


def layered_dag(rng: random.Random, n: int, layers: int | None = None) -> Plan:
    """Tasks spread over layers; each depends on one or two tasks of the
    layer above, plus occasional cross edges to older layers."""
    layers = layers or rng.randint(3, max(3, min(8, n // 3)))
    layer_of = sorted(list(range(layers)) + [rng.randrange(layers) for _ in range(n - layers)])
    by_layer: dict[int, list[str]] = {}
    tasks = []
    for i, layer in enumerate(layer_of):
        tid = f"task_{i + 1}"
        deps: set[str] = set()
        if layer:
            above = by_layer[layer - 1]
            deps.update(rng.sample(above, min(len(above), 1 + (rng.random() < 0.35))))
            older = [t for k in range(layer - 1) for t in by_layer[k]]
            deps.update(t for t in older if rng.random() < 0.08)
        by_layer.setdefault(layer, []).append(tid)
        tasks.append(Task(tid, f"bench task {i + 1}", dependencies=sorted(deps, key=lambda d: int(d[5:]))))
    return Plan(tasks)


def unrun_copy(plan: Plan) -> Plan:
    """The same tasks, all PENDING, for one more run."""
    return Plan([Task(t.id, t.description, dependencies=list(t.dependencies)) for t in plan.tasks])


def lognormal_durations(rng: random.Random, plan: Plan) -> dict[str, float]:
    return {tid: min(8.0, max(0.2, rng.lognormvariate(0.0, 0.75))) for tid in plan.ids}


def scripted_client(agents, delay_of) -> ChatClient:
    """The real client over an in-process scripted model that answers each
    of ``agents`` with "done: AGENT" after ``delay_of(agent)`` seconds."""
    transport = PrerenderedTransport(agents, lambda agent: f"done: {agent}", delay_of)
    return ChatClient(base_url="http://scripted.invalid/v1", model="scripted", transport=transport, max_retries=0)


def timer_overshoot(rng: random.Random, samples: int = 80) -> float:
    """Median seconds by which a timed Event wait (how the scripted server
    waits) oversleeps on this machine, measured on one thread while no other
    wants the GIL: the model's own lateness, free of any engine time."""
    overshoots = []
    for _ in range(samples):
        delay = min(8.0, max(0.2, rng.lognormvariate(0.0, 0.75))) * UNIT_S
        started = time.perf_counter()
        threading.Event().wait(delay)
        overshoots.append(time.perf_counter() - started - delay)
    return statistics.median(overshoots)


def task_runner(client: ChatClient):
    def run(task: Task, plan: Plan, worker: str, cancel: threading.Event) -> TaskOutcome:
        messages = [{"role": "user", "content": task_message(GOAL, plan, task)}]
        reply = client.chat(messages, agent=task.id, cancel=cancel)
        return TaskOutcome("completed", result=reply.content)

    return run


def quiet_bus() -> EventBus:
    """A bus with one cheap subscriber, so publishing costs what it costs."""
    bus = EventBus("bench", "plan")
    sink: list = []
    bus.subscribe(sink.append)
    return bus


def measure_makespan(plan: Plan, durations: dict[str, float], policy: str) -> float:
    """The makespan in time units."""
    fresh = unrun_copy(plan)
    client = scripted_client(plan.ids, lambda agent: durations[agent] * UNIT_S)
    try:
        executor = PlanExecutor(fresh, task_runner(client), goal=GOAL, bus=quiet_bus(), policy=policy, parallelism=PARALLELISM)
        started = time.perf_counter()
        report = executor.run(threading.Event())
        elapsed = time.perf_counter() - started
    finally:
        client.close()
    if report.status is not PlanStatus.COMPLETED:
        raise SystemExit(f"bench plan did not complete: {report.summary}")
    return elapsed / UNIT_S


def measure_minimal(plan: Plan, durations: dict[str, float]) -> float:
    """The makespan of bench/minimal_scheduler.py on the same plan, in time units."""
    fresh = unrun_copy(plan)
    client = scripted_client(plan.ids, lambda agent: durations[agent] * UNIT_S)

    def call(current: Plan, tid: str) -> str:
        messages = [{"role": "user", "content": task_message(GOAL, current, current.task(tid))}]
        return client.chat(messages, agent=tid, cancel=threading.Event()).content

    try:
        started = time.perf_counter()
        run_minimal(fresh, call, PARALLELISM)
        elapsed = time.perf_counter() - started
    finally:
        client.close()
    if any(task.status is not TaskStatus.COMPLETED for task in fresh.tasks):
        raise SystemExit("the minimal scheduler left tasks unrun")
    return elapsed / UNIT_S


def makespan_suite() -> tuple[dict[str, float], list[tuple[Plan, dict[str, float], float]]]:
    """Mean ratios, and per plan (plan, durations, measured ready makespan).

    Each makespan is compared with two bounds: from the nominal durations,
    and from the model time a task has (nominal plus the timer's median
    overshoot, measured before and after the suite). The second is the
    reported one: it charges the executor and the client with everything
    except the model's own time."""
    rng = random.Random(SEED)
    before = timer_overshoot(random.Random(SEED + 2))
    names = ("ready", "batch", "minimal", "nominal_ready", "nominal_batch", "nominal_minimal", "sim_ready", "sim_batch")
    ratios: dict[str, list[float]] = {name: [] for name in names}
    per_plan_ready_vs_batch: list[float] = []
    runs: list[tuple[Plan, dict[str, float], float]] = []
    measured: list[tuple[Plan, dict[str, float], dict[str, float]]] = []
    kinds = ["ready", "batch", "minimal"]
    for number in range(PLANS):
        plan = layered_dag(rng, rng.randint(8, 30))
        durations = lognormal_durations(rng, plan)
        spans = {}
        # A different kind goes first on each plan, so drift favours none.
        for kind in kinds[number % 3:] + kinds[: number % 3]:
            spans[kind] = measure_minimal(plan, durations) if kind == "minimal" else measure_makespan(plan, durations, kind)
        measured.append((plan, durations, spans))
    overshoot = (before + timer_overshoot(random.Random(SEED + 3))) / 2 / UNIT_S
    for plan, durations, spans in measured:
        bound = makespan_lower_bound(plan, durations, PARALLELISM)
        model_time = {tid: d + overshoot for tid, d in durations.items()}
        model_bound = makespan_lower_bound(plan, model_time, PARALLELISM)
        for kind, span in spans.items():
            ratios[kind].append(span / model_bound)
            ratios[f"nominal_{kind}"].append(span / bound)
        for policy in ("ready", "batch"):
            ratios[f"sim_{policy}"].append(simulate_makespan(plan, durations, PARALLELISM, policy)[0] / bound)
        per_plan_ready_vs_batch.append(spans["ready"] / spans["batch"])
        runs.append((plan, durations, spans["ready"]))
    means = {name: statistics.fmean(values) for name, values in ratios.items()}
    means["timer_overshoot_ms"] = overshoot * UNIT_S * 1e3
    means["ready_vs_batch"] = means["ready"] / means["batch"]
    means["ready_vs_batch_per_plan_mean"] = statistics.fmean(per_plan_ready_vs_batch)
    means["ready_vs_bound_worst"] = max(ratios["ready"])
    return means, runs


def ready_vs_bound_with_call_cost(runs: list[tuple[Plan, dict[str, float], float]], call_s: float) -> float:
    """The ready ratio when each task's work also counts one bare client call
    (a cost no scheduler can remove): separates engine from client cost."""
    extra = call_s / UNIT_S
    ratios = []
    for plan, durations, span in runs:
        work = {tid: d + extra for tid, d in durations.items()}
        ratios.append(span / makespan_lower_bound(plan, work, PARALLELISM))
    return statistics.fmean(ratios)


ROUNDS = 5


def overhead_ratios(parallelisms: tuple[int, ...]) -> tuple[dict[int, float], dict[int, float]]:
    """({parallelism: seconds per bare call}, {parallelism: engine seconds
    per task}) for a 500-task plan. Bare calls at parallelism N are made by N
    plain threads, so both sides pay the same GIL contention. Bare and engine
    runs alternate, ROUNDS of each, and the medians are compared: this
    machine's speed drifts by 20 % between runs a few seconds apart, so
    measuring one side first and the other after would put the drift into
    the ratio."""
    rng = random.Random(SEED + 1)
    plan = layered_dag(rng, BIG_PLAN, layers=25)
    client = scripted_client([*plan.ids, "warmup"], lambda agent: 0.0)
    client.bus = quiet_bus()
    # The bare call is the call a task makes: same client, the message the
    # middle task gets when it runs (its dependencies' results included),
    # and a cancel event (which the product always passes).
    finished = Plan([Task(t.id, t.description, dependencies=list(t.dependencies), status=TaskStatus.COMPLETED,
                          result=f"done: {t.id}") for t in plan.tasks])
    middle = finished.tasks[len(finished.tasks) // 2]
    middle.status, middle.result = TaskStatus.PENDING, ""
    sample = [{"role": "user", "content": task_message(GOAL, finished, middle)}]
    cancel = threading.Event()

    def calls(first: int, step: int) -> None:
        own_cancel = threading.Event()
        for i in range(first, BIG_PLAN, step):
            client.chat(sample, agent=f"task_{i + 1}", cancel=own_cancel)

    def bare(parallelism: int) -> float:
        started = time.perf_counter()
        if parallelism == 1:
            calls(0, 1)
        else:
            threads = [threading.Thread(target=calls, args=(k, parallelism)) for k in range(parallelism)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        return (time.perf_counter() - started) / BIG_PLAN

    def engine(parallelism: int) -> float:
        fresh = unrun_copy(plan)
        executor = PlanExecutor(fresh, task_runner(client), goal=GOAL, bus=client.bus, parallelism=parallelism)
        started = time.perf_counter()
        report = executor.run(threading.Event())
        elapsed = (time.perf_counter() - started) / BIG_PLAN
        if report.status is not PlanStatus.COMPLETED:
            raise SystemExit(f"500-task plan did not complete: {report.summary}")
        return elapsed

    try:
        for _ in range(50):  # warm up connection pool, JSON, SSE paths
            client.chat(sample, agent="warmup", cancel=cancel)
        bare_runs: dict[int, list[float]] = {p: [] for p in parallelisms}
        engine_runs: dict[int, list[float]] = {p: [] for p in parallelisms}
        for _ in range(ROUNDS):
            for parallelism in parallelisms:
                bare_runs[parallelism].append(bare(parallelism))
                engine_runs[parallelism].append(engine(parallelism))
    finally:
        client.close()
    return (
        {p: statistics.median(runs) for p, runs in bare_runs.items()},
        {p: statistics.median(runs) for p, runs in engine_runs.items()},
    )


def main() -> None:
    started = time.perf_counter()
    print(f"makespan suite: {PLANS} layered DAGs (8–30 tasks), seed {SEED}, parallelism {PARALLELISM}, unit {UNIT_S * 1000:.0f} ms")
    means, runs = makespan_suite()
    print(
        "  makespan / bound (bound from the model time each task had, i.e. its duration plus the timer's "
        f"median overshoot of {means['timer_overshoot_ms']:.2f} ms; from nominal durations; on a simulated clock):"
    )
    print(f"  ready: {means['ready']:.3f}; nominal {means['nominal_ready']:.3f}; simulated {means['sim_ready']:.3f} (worst plan {means['ready_vs_bound_worst']:.3f})")
    print(f"  batch: {means['batch']:.3f}; nominal {means['nominal_batch']:.3f}; simulated {means['sim_batch']:.3f}")
    print(
        f"  reference, bench/minimal_scheduler.py (ready policy, same client, no events or rules): "
        f"{means['minimal']:.3f}; nominal {means['nominal_minimal']:.3f}"
    )
    print(f"  ready / batch: {means['ready_vs_batch']:.3f} (mean of per-plan ratios {means['ready_vs_batch_per_plan_mean']:.3f})")
    print(f"  suite time: {time.perf_counter() - started:.1f} s")
    print(f"engine overhead: {BIG_PLAN}-task plan, zero-delay scripted model through the real ChatClient")
    bare, engine = overhead_ratios((1, PARALLELISM))
    results = {parallelism: per_task / bare[parallelism] for parallelism, per_task in engine.items()}
    for parallelism, per_task in engine.items():
        print(
            f"  parallelism {parallelism}: {per_task * 1e3:.3f} ms per task vs {bare[parallelism] * 1e3:.3f} ms per bare call "
            f"on {parallelism} plain thread{'s' if parallelism > 1 else ''} → {results[parallelism]:.2f}× "
            f"({per_task / bare[1]:.2f}× a sequential bare call)"
        )
    print(
        f"  ready makespan / bound counting one bare call ({bare[1] * 1e3:.2f} ms) as part of each task's work: "
        f"{ready_vs_bound_with_call_cost(runs, bare[1]):.3f}"
    )
    # The worse of the two: at parallelism 1 every decision step is on the
    # clock; at 4 the workers also contend for the decision lock.
    overhead = max(results.values())
    print(f"total bench time: {time.perf_counter() - started:.1f} s")
    print(json.dumps({
        "ready_vs_bound": round(means["ready"], 4),
        "batch_vs_bound": round(means["batch"], 4),
        "ready_vs_batch": round(means["ready_vs_batch"], 4),
        "engine_overhead_ratio": round(overhead, 4) if math.isfinite(overhead) else None,
    }))


if __name__ == "__main__":
    main()
