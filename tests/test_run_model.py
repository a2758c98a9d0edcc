"""The run screen's model: events in, pane text and task fields out, with
the /plan and /team routing rules (P-7.3). No Textual."""

from __future__ import annotations

from paicli_tui import events as ev
from paicli_tui.ui.bridge.event_pump import EventPump
from paicli_tui.ui.common.figures import format_elapsed, format_tokens
from paicli_tui.ui.run.run_model import RunModel, tasks_from_plan

PLAN = {
    "tasks": [
        {"id": "step_1", "description": "Read the README", "type": "FILE_READ", "dependencies": []},
        {"id": "step_2", "description": "List files", "type": "FILE_READ", "dependencies": []},
        {"id": "step_3", "description": "Summarise", "type": "ANALYSIS", "dependencies": ["step_1", "step_2"]},
    ]
}


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def model(workers=("worker-1", "worker-2")) -> tuple[RunModel, Clock]:
    clock = Clock()
    return RunModel(tasks_from_plan(PLAN), workers, clock=clock), clock


def text_of(update, worker: str) -> str:
    return "".join(text for _, text in update.output.get(worker, []))


def kinds_of(update, worker: str) -> list[str]:
    return [kind for kind, _ in update.output.get(worker, [])]


def test_team_worker_stream_goes_to_its_pane_with_reasoning_kept_apart():
    m, _ = model()
    up = m.apply(
        [
            ev.TaskDispatched("step_1", "step_1", "worker-1"),
            ev.ModelDelta("worker-1", "c1", "reasoning", "thinking about it"),
            ev.ModelDelta("worker-1", "c1", "content", "Here is "),
            ev.ModelDelta("worker-1", "c1", "content", "the answer"),
        ]
    )
    text = text_of(up, "worker-1")
    assert "▶ step_1 · attempt 1 · Read the README\n" in text
    assert text.endswith("thinking about it\nHere is the answer")
    assert kinds_of(up, "worker-1") == ["header", "reasoning", "reasoning", "content", "content"]
    assert "worker-2" not in up.output
    assert m.pane_title("worker-1") == "worker-1 · step_1 · attempt 1"
    assert m.pane_title("worker-2") == "worker-2 · idle"


def test_plan_task_agent_is_routed_through_its_dispatch():
    m, _ = model(("worker-1", "worker-2", "worker-3"))
    up = m.apply(
        [
            ev.TaskDispatched("step_2", "step_2", "worker-3"),
            ev.ModelDelta("step_2", "c1", "content", "listing"),
            ev.ToolCallStarted("step_2", "t1", "list_dir", '{"path": "src"}'),
            ev.ToolCallFinished("step_2", "t1", "list_dir", True, "3 entries", "a\nb\nc"),
        ]
    )
    assert text_of(up, "worker-3").endswith("listing\n→ list_dir src\n  ✓ 3 entries\n")
    assert m.tasks["step_2"].worker == "worker-3"


def test_reviewer_output_lands_in_the_pane_of_the_worker_that_ran_the_step():
    m, _ = model()
    m.apply([ev.TaskDispatched("step_1", "step_1", "worker-1"), ev.TaskDispatched("step_2", "step_2", "worker-2")])
    up = m.apply(
        [
            ev.WorkerReportParsed("worker-2", "step_2", 1, "completed", "three files"),
            ev.ReviewStarted("reviewer-step_2", "step_2", 1),
            ev.ModelDelta("reviewer-step_2", "r1", "content", '{"approved": false}'),
            ev.ModelResponse("reviewer-step_2", "r1", "", "", (), "stop", 10, 5, 0, 0.1),
            ev.ReviewVerdictGiven("reviewer-step_2", "step_2", 1, False, "- list hidden files too"),
            ev.StepRetry("worker-2", "step_2", 2, "- list hidden files too"),
        ]
    )
    text = text_of(up, "worker-2")
    assert "report (completed): three files" in text
    assert "⚖ reviewer-step_2 reviews step_2 (attempt 1)" in text
    assert '{"approved": false}\n' in text
    assert "✗ rejected by reviewer-step_2: - list hidden files too" in text
    assert "↻ retry step_2 · attempt 2" in text
    assert "worker-1" not in up.output
    assert m.tasks["step_2"].attempt == 2
    assert m.tasks["step_2"].tokens == 15  # the review's tokens count for the step
    assert m.pane_title("worker-2") == "worker-2 · step_2 · attempt 2"


def test_shared_reviewer_follows_the_latest_review_started():
    m, _ = model()
    m.apply([ev.TaskDispatched("step_1", "step_1", "worker-1"), ev.TaskDispatched("step_2", "step_2", "worker-2")])
    first = m.apply([ev.ReviewStarted("reviewer", "step_1", 1), ev.ModelDelta("reviewer", "r1", "content", "ok1")])
    second = m.apply([ev.ReviewStarted("reviewer", "step_2", 1), ev.ModelDelta("reviewer", "r2", "content", "ok2")])
    assert "ok1" in text_of(first, "worker-1")
    assert "ok2" in text_of(second, "worker-2") and "worker-1" not in second.output


def test_status_tokens_and_elapsed_come_from_events_and_the_injected_clock():
    m, clock = model()
    m.apply([ev.TaskDispatched("step_1", "step_1", "worker-1"), ev.TaskStatusChanged("step_1", "step_1", "RUNNING")])
    clock.now = 112.0
    assert m.tasks["step_1"].elapsed(clock()) == 12.0
    up = m.apply(
        [
            ev.ModelResponse("worker-1", "c1", "x", "", (), "stop", 1200, 300, 0, 1.0),
            ev.TaskStatusChanged("step_1", "step_1", "COMPLETED", result="done"),
        ]
    )
    clock.now = 200.0
    task = m.tasks["step_1"]
    assert (task.status, task.tokens, task.result) == ("COMPLETED", 1500, "done")
    assert task.elapsed(clock()) == 12.0  # frozen when it finished
    assert "step_1" in up.tasks
    assert "■ step_1 completed" in text_of(up, "worker-1")
    assert format_elapsed(75) == "1m15s" and format_tokens(1500) == "1.5k tok"


def test_merged_text_runs_from_the_real_pump_are_understood():
    m, _ = model()
    pump = EventPump()
    pump.put(ev.TaskDispatched("step_1", "step_1", "worker-1"))
    for word in ("a", "b", "c"):
        pump.put(ev.ModelDelta("worker-1", "c1", "content", word))
    up = m.apply(pump.drain())
    assert text_of(up, "worker-1").endswith("abc")


def test_a_new_worker_name_adds_a_pane_and_replan_replaces_the_tasks():
    m, _ = model(("worker-1",))
    up = m.apply([ev.TaskDispatched("step_1", "step_1", "worker-3")])
    assert up.new_workers == ["worker-3"] and "worker-3" in m.workers
    replan = {"tasks": [{"id": "task_1", "description": "Try again", "type": "COMMAND", "dependencies": []}]}
    up = m.apply([ev.PlanProposed("executor", 2, "replan", "g", replan)])
    assert up.plan_replaced and m.order == ["task_1"]


def test_run_finished_carries_the_summary():
    m, _ = model()
    up = m.apply([ev.RunFinished("orchestrator", "COMPLETED", "Plan COMPLETED: 3 tasks", {})])
    assert up.finished and m.finished and m.summary.startswith("Plan COMPLETED")


def test_unrouted_actors_are_ignored():
    m, _ = model()
    up = m.apply([ev.ModelDelta("planner", "p", "content", "plan text"), ev.ModelDelta("react", "r", "content", "x")])
    assert up.output == {}
