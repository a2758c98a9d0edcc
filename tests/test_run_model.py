"""The run screen's model: events in, pane ops and task fields out, with
the /plan and /team routing rules (P-7.3), times from the events' own
timestamps, attempts and verdicts, and what a cancel really did. No Textual."""

from __future__ import annotations

from paicli_tui import events as ev
from paicli_tui.ui.bridge.event_pump import EventPump
from paicli_tui.present.figures import format_elapsed, format_tokens
from paicli_tui.ui.run import pane_ops as ops
from paicli_tui.ui.run.run_figures import heading_figures
from paicli_tui.records.run_views import tasks_from_plan
from paicli_tui.ui.run.run_model import RunModel

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


def model(workers=("worker-1", "worker-2"), kind="team") -> tuple[RunModel, Clock]:
    clock = Clock()
    return RunModel(tasks_from_plan(PLAN), workers, clock=clock, kind=kind), clock


def at(ts: float, event: ev.Event) -> ev.Event:
    """``event`` as the bus would stamp it at ``ts``."""
    object.__setattr__(event, "ts", ts)
    return event


def text_of(update, worker: str) -> str:
    return "".join(ops.op_text(op) for op in update.output.get(worker, []))


def of_type(update, worker: str, kind: type) -> list:
    return [op for op in update.output.get(worker, []) if isinstance(op, kind)]


def test_team_worker_stream_goes_to_its_pane_with_reasoning_in_its_own_block():
    m, _ = model()
    up = m.apply(
        [
            ev.TaskDispatched("step_1", "step_1", "worker-1"),
            ev.ModelDelta("worker-1", "c1", "reasoning", "thinking about it"),
            ev.ModelDelta("worker-1", "c1", "content", "Here is "),
            ev.ModelDelta("worker-1", "c1", "content", "the answer"),
        ]
    )
    assert of_type(up, "worker-1", ops.StepOp) == [ops.StepOp("step_1", 1, "Read the README")]
    texts = of_type(up, "worker-1", ops.TextOp)
    assert [(t.kind, t.text) for t in texts] == [("reasoning", "thinking about it"), ("content", "Here is "), ("content", "the answer")]
    assert texts[1].block == texts[2].block != texts[0].block  # one block per stream
    assert "worker-2" not in up.output
    assert m.pane_title("worker-1") == "worker-1 · step_1 · attempt 1"
    assert m.pane_title("worker-2") == "worker-2 · idle"


def test_a_tool_call_between_two_texts_starts_a_new_text_block():
    m, _ = model(("worker-1", "worker-2", "worker-3"), kind="plan")
    up = m.apply(
        [
            ev.TaskDispatched("step_2", "step_2", "worker-3"),
            ev.ModelDelta("step_2", "c1", "content", "listing"),
            ev.ToolCallStarted("step_2", "t1", "list_dir", '{"path": "src"}'),
            ev.ToolCallFinished("step_2", "t1", "list_dir", True, "3 entries", "a\nb\nc"),
            ev.ModelDelta("step_2", "c1", "content", "done"),
        ]
    )
    assert text_of(up, "worker-3").endswith("listing→ list_dir src\n  ✓ 3 entries\ndone")
    first, second = of_type(up, "worker-3", ops.TextOp)
    assert first.block != second.block
    assert m.tasks["step_2"].worker == "worker-3"


def test_a_workers_json_report_is_held_back_and_shown_as_a_card():
    m, _ = model()
    m.apply([ev.TaskDispatched("step_1", "step_1", "worker-1")])
    raw = '{"status": "completed", "result": "- three files"}'
    up = m.apply(
        [
            ev.ModelDelta("worker-1", "c1", "content", "  "),
            ev.ModelDelta("worker-1", "c1", "content", raw),
            ev.ModelResponse("worker-1", "c1", raw, "", (), "stop", 10, 5, 0, 0.1),
            ev.WorkerReportParsed("worker-1", "step_1", 1, "completed", "- three files"),
        ]
    )
    (held,) = of_type(up, "worker-1", ops.TextOp)
    assert held.kind == "report" and held.text == "  " + raw  # never shown as content
    (card,) = of_type(up, "worker-1", ops.ReportOp)
    assert (card.status, card.result, card.raw, card.block) == ("completed", "- three files", raw, held.block)
    assert "report (completed)" in text_of(up, "worker-1")
    assert m.tasks["step_1"].attempts[-1].report == ("completed", "- three files", "")


def test_a_held_reply_that_goes_on_to_call_tools_is_released_as_text():
    m, _ = model()
    m.apply([ev.TaskDispatched("step_1", "step_1", "worker-1")])
    call = ({"id": "t1", "name": "list_dir", "arguments": "{}"},)
    up = m.apply(
        [
            ev.ModelDelta("worker-1", "c1", "content", "{not a report, just braces}"),
            ev.ModelResponse("worker-1", "c1", "{not a report, just braces}", "", call, "tool_calls", 10, 5, 0, 0.1),
        ]
    )
    (held,) = of_type(up, "worker-1", ops.TextOp)
    assert of_type(up, "worker-1", ops.ReleaseOp) == [ops.ReleaseOp(held.block)]


def test_plan_task_content_is_never_held_even_when_it_opens_with_a_brace():
    m, _ = model(kind="plan")
    m.apply([ev.TaskDispatched("step_1", "step_1", "worker-1")])
    up = m.apply([ev.ModelDelta("step_1", "c1", "content", '{"a": 1} is the config')])
    assert [op.kind for op in of_type(up, "worker-1", ops.TextOp)] == ["content"]


def test_reviewer_output_lands_in_the_pane_of_the_worker_that_ran_the_step_as_a_verdict_card():
    m, _ = model()
    m.apply([ev.TaskDispatched("step_1", "step_1", "worker-1"), ev.TaskDispatched("step_2", "step_2", "worker-2")])
    raw = '{"approved": false, "summary": "Sources are missing.", "issues": ["list hidden files too"]}'
    up = m.apply(
        [
            ev.WorkerReportParsed("worker-2", "step_2", 1, "completed", "three files"),
            ev.ReviewStarted("reviewer-step_2", "step_2", 1),
            ev.ModelDelta("reviewer-step_2", "r1", "content", raw),
            ev.ModelResponse("reviewer-step_2", "r1", raw, "", (), "stop", 10, 5, 0, 0.1),
            ev.ReviewVerdictGiven("reviewer-step_2", "step_2", 1, False, "- list hidden files too"),
            ev.StepRetry("worker-2", "step_2", 2, "- list hidden files too"),
            ev.TaskDispatched("step_2", "step_2", "worker-2", 2),
        ]
    )
    text = text_of(up, "worker-2")
    assert "⚖ reviewer-step_2 reviews step_2 · attempt 1" in text
    assert "✗ rejected by reviewer-step_2: - list hidden files too" in text
    assert "↻ retry step_2 · attempt 2" in text
    (verdict,) = of_type(up, "worker-2", ops.VerdictOp)
    assert (verdict.approved, verdict.summary, verdict.raw) == (False, "Sources are missing.", raw)
    assert "worker-1" not in up.output
    task = m.tasks["step_2"]
    assert task.attempt == 2 and task.tokens == 15  # the review's tokens count for the step
    first, second = task.attempts
    assert (first.outcome, first.verdict.summary, second.outcome) == ("rejected", "Sources are missing.", "running")
    assert m.pane_title("worker-2") == "worker-2 · step_2 · attempt 2"


def test_an_approvals_notes_are_kept_on_the_step_and_the_card():
    m, _ = model()
    m.apply([ev.TaskDispatched("step_1", "step_1", "worker-1"), ev.ReviewStarted("reviewer", "step_1", 1)])
    up = m.apply([ev.ReviewVerdictGiven("reviewer", "step_1", 1, True, "fine", ("mention the licence",))])
    (card,) = of_type(up, "worker-1", ops.VerdictOp)
    assert card.approved and card.notes == ("mention the licence",)
    assert m.tasks["step_1"].notes == ["mention the licence"]


def test_shared_reviewer_follows_the_latest_review_started():
    m, _ = model()
    m.apply([ev.TaskDispatched("step_1", "step_1", "worker-1"), ev.TaskDispatched("step_2", "step_2", "worker-2")])
    first = m.apply([ev.ReviewStarted("reviewer", "step_1", 1), ev.ModelDelta("reviewer", "r1", "reasoning", "ok1")])
    second = m.apply([ev.ReviewStarted("reviewer", "step_2", 1), ev.ModelDelta("reviewer", "r2", "reasoning", "ok2")])
    assert "ok1" in text_of(first, "worker-1")
    assert "ok2" in text_of(second, "worker-2") and "worker-1" not in second.output


def test_times_come_from_the_events_timestamps_not_from_when_they_are_painted():
    m, clock = model()
    clock.now = 500.0  # the frame is painted long after the events happened
    m.apply([at(100.0, ev.RunStarted("orchestrator", "ready", 2, ("worker-1", "worker-2"), 0, 1, PLAN)),
             at(100.5, ev.TaskDispatched("step_1", "step_1", "worker-1")),
             at(100.5, ev.TaskStatusChanged("step_1", "step_1", "RUNNING"))])
    assert m.tasks["step_1"].elapsed(m.now()) == 399.5  # live: still running at the clock's now
    up = m.apply([at(104.6, ev.ModelResponse("worker-1", "c1", "x", "", (), "stop", 1200, 300, 0, 1.0)),
                  at(104.6, ev.TaskStatusChanged("step_1", "step_1", "COMPLETED", result="done"))])
    task = m.tasks["step_1"]
    assert (task.status, task.tokens, task.result) == ("COMPLETED", 1500, "done")
    assert round(task.elapsed(m.now()), 6) == 4.1  # frozen at its end: a 4.1-s task is 4.1 s
    assert "■ step_1 completed · 4.1s" in text_of(up, "worker-1")
    assert task.attempts[0].outcome == "completed"
    m.apply([at(112.0, ev.RunFinished("orchestrator", "COMPLETED", "done", {}))])
    assert m.elapsed() == 12.0  # the run's time ends with the run
    assert format_elapsed(75) == "1m15s" and format_elapsed(1.0) == "1.0s" and format_tokens(1500) == "1.5k tok"


def test_a_replays_now_is_the_latest_recorded_time_even_when_played_instantly():
    m, clock = model()
    m.replay = True
    clock.now = 9_999.0
    m.apply([at(100.0, ev.TaskDispatched("step_1", "step_1", "worker-1")),
             at(103.2, ev.ModelDelta("worker-1", "c1", "content", "x"))])
    assert m.now() == 103.2 and round(m.tasks["step_1"].elapsed(m.now()), 6) == 3.2


def test_the_heading_counts_done_tasks_busy_workers_tokens_and_cost():
    m, clock = model()
    m.apply([at(100.0, ev.RunStarted("orchestrator", "ready", 2, ("worker-1", "worker-2"), 0, 1, PLAN)),
             ev.TaskDispatched("step_1", "step_1", "worker-1"), ev.TaskStatusChanged("step_1", "step_1", "RUNNING"),
             ev.TaskDispatched("step_2", "step_2", "worker-2"), ev.TaskStatusChanged("step_2", "step_2", "COMPLETED"),
             ev.ModelResponse("worker-1", "c1", "x", "", (), "stop", 9000, 500, 0, 1.0)])
    clock.now = 112.4
    price = {"prompt": 1.0, "completion": 4.0, "cached": 0.0}
    from paicli_tui.config.settings import Price

    assert heading_figures(m, Price(**price)) == "1/3 done · 00:12 elapsed · 9.5k tok · ≈$0.01 · 1/2 workers busy"
    assert heading_figures(m, None, compact=True) == "1/3 done · 00:12 · 9.5k tok · 1/2 busy"


def test_a_cancel_marks_what_it_interrupted_cancelled_and_keeps_finished_work():
    m, _ = model()
    m.apply(
        [
            ev.TaskDispatched("step_1", "step_1", "worker-1"),
            ev.TaskDispatched("step_2", "step_2", "worker-2"),
            ev.TaskStatusChanged("step_1", "step_1", "COMPLETED", result="read it"),
        ]
    )
    up = m.apply(
        [
            ev.ModelError("worker-2", "c9", "cancelled", "the request was cancelled"),
            ev.AgentFinished("worker-2", "cancelled", "cancelled", "cancelled by the user"),
            ev.TaskStatusChanged("step_2", "step_2", "SKIPPED", error="cancelled"),
            ev.TaskStatusChanged("step_3", "step_3", "SKIPPED", error="cancelled"),
        ]
    )
    outcomes = {tid: t.outcome for tid, t in m.tasks.items()}
    assert outcomes == {"step_1": "completed", "step_2": "cancelled", "step_3": "skipped"}
    text = text_of(up, "worker-2")
    assert "model call failed" not in text and "turn cancelled" not in text
    assert "■ step_2 cancelled" in text
    assert m.tasks["step_2"].attempts[-1].outcome == "cancelled"
    assert m.pane_title("worker-2") == "worker-2 · step_2 · attempt 1 · cancelled"


def test_a_real_model_error_still_says_so():
    m, _ = model()
    m.apply([ev.TaskDispatched("step_1", "step_1", "worker-1")])
    up = m.apply([ev.ModelError("worker-1", "c1", "http", "HTTP 500")])
    assert "✗ model call failed (http): HTTP 500" in text_of(up, "worker-1")


def test_merged_text_runs_from_the_real_pump_are_understood():
    m, _ = model()
    pump = EventPump()
    pump.put(ev.TaskDispatched("step_1", "step_1", "worker-1"))
    for word in ("a", "b", "c"):
        pump.put(ev.ModelDelta("worker-1", "c1", "reasoning", word))
    up = m.apply(pump.drain())
    assert text_of(up, "worker-1").endswith("abc")


def test_a_new_worker_name_adds_a_pane_and_replan_replaces_the_tasks_but_keeps_the_attempts():
    m, _ = model(("worker-1",))
    up = m.apply([ev.TaskDispatched("step_1", "step_1", "worker-3")])
    assert up.new_workers == ["worker-3"] and "worker-3" in m.workers
    replan = {"tasks": [{"id": "task_1", "description": "Try again", "type": "COMMAND", "dependencies": []}]}
    up = m.apply([ev.PlanProposed("executor", 2, "replan", "g", replan)])
    assert up.plan_replaced and m.order == ["task_1"]
    assert [a.task_id for a in m.attempts] == ["step_1"]  # the timeline still shows the first version's work


def test_run_finished_carries_the_summary_and_ends_what_still_ran():
    m, _ = model()
    m.apply([at(100.0, ev.TaskDispatched("step_1", "step_1", "worker-1"))])
    up = m.apply([at(101.0, ev.RunFinished("orchestrator", "CANCELLED", "Plan CANCELLED: 3 tasks", {}))])
    assert up.finished and m.finished and m.summary.startswith("Plan CANCELLED")
    assert (m.attempts[0].ended, m.attempts[0].outcome) == (101.0, "cancelled")


def test_unrouted_actors_are_ignored():
    m, _ = model()
    up = m.apply([ev.ModelDelta("planner", "p", "content", "plan text"), ev.ModelDelta("react", "r", "content", "x")])
    assert up.output == {}
