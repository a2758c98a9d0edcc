"""One outcome word per task everywhere: the summary header and lines, the
transcript/headless line of a status change, and the run screen's rows agree
that a task the cancel interrupted is cancelled and its never-started
dependents are skipped; result previews are plain text cut at a word."""

from __future__ import annotations

from paicli_tui import events as ev
from paicli_tui.plan.model import Plan, PlanStatus, Task, TaskStatus
from paicli_tui.plan.outcome import NOT_STARTED_ERROR, outcome_of, plain_preview
from paicli_tui.plan.summary import summarize, task_line
from paicli_tui.present.event_lines import describe


def cancelled_plan() -> Plan:
    tasks = [Task("task_1", "read the code", status=TaskStatus.SKIPPED, error="cancelled")]
    tasks += [Task(f"task_{n}", f"step {n}", dependencies=["task_1"], status=TaskStatus.SKIPPED,
                   error=NOT_STARTED_ERROR) for n in (2, 3, 4)]
    return Plan(tasks=tasks, goal="g")


def test_the_summary_counts_cancelled_apart_from_skipped():
    lines = summarize(cancelled_plan(), PlanStatus.CANCELLED).splitlines()
    assert lines[0] == "Plan CANCELLED: 4 tasks — 1 cancelled, 3 skipped"
    assert lines[1].endswith("task_1: read the code — cancelled")
    assert lines[2].endswith("task_2: step 2 — skipped: not started: the run was cancelled")


def test_a_status_line_says_the_same_word():
    assert describe(ev.TaskStatusChanged("executor", "task_1", "SKIPPED", error="cancelled")).text == "task_1 cancelled"
    line = describe(ev.TaskStatusChanged("executor", "task_2", "SKIPPED", error=NOT_STARTED_ERROR)).text
    assert line == "task_2 skipped: not started: the run was cancelled" and "SKIPPED" not in line
    assert describe(ev.TaskStatusChanged("executor", "task_3", "FAILED", error="boom")).text == "task_3 failed: boom"


def test_outcome_words():
    assert [outcome_of(s, e) for s, e in [("SKIPPED", "cancelled"), ("SKIPPED", NOT_STARTED_ERROR),
                                           ("COMPLETED", ""), (TaskStatus.BLOCKED, "x")]] == [
        "cancelled", "skipped", "completed", "blocked"]


def test_a_result_preview_is_plain_text_cut_at_a_word():
    result = "## Findings\n\n- **Bold** claim about `invoicer/render.py` and [the docs](http://x) " + "word " * 60
    line = task_line(Task("task_1", "look", status=TaskStatus.COMPLETED, result=result))
    assert "**" not in line and "`" not in line and "##" not in line and "](" not in line
    assert "Findings Bold claim about invoicer/render.py and the docs" in line
    assert line.endswith("word…")
    assert plain_preview("a " * 10, 120) == ("a " * 10).strip()


def test_code_in_a_preview_is_shown_as_written_not_read_as_emphasis():
    result = "- `**/*.py` matches 1 file: `invoicer/cli.py`.\n- **Bold** stays *words* and `a|b` keeps its bar"
    assert plain_preview(result, 200) == ("**/*.py matches 1 file: invoicer/cli.py. Bold stays words and a|b keeps "
                                          "its bar")


def test_the_run_line_says_its_outcome_once():
    plan = Plan([Task("task_1", "Read", status=TaskStatus.COMPLETED, result="ok")])
    line = describe(ev.RunFinished("executor", "COMPLETED", summarize(plan, PlanStatus.COMPLETED), {}))
    assert line is not None and line.text.splitlines()[0] == "run COMPLETED: 1 task — 1 completed"
    team = Plan([Task("step_1", "Read", status=TaskStatus.COMPLETED, result="ok")])
    line = describe(ev.RunFinished("orchestrator", "COMPLETED", summarize(team, PlanStatus.COMPLETED), {}))
    assert line is not None and line.text.splitlines()[0] == "run COMPLETED: 1 step — 1 completed"
