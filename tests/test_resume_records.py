"""Resume from the record: a real team ledger cut where a kill would cut it,
the cause a later start writes, `paicli sessions`' mark, the resumed run in
process (real Session, real HTTP client against the scripted transport), and
verify catching a resumed record that breaks the rules."""

from __future__ import annotations

import json

from paicli_tui.config.settings import Settings
from paicli_tui.events import EventBus
from paicli_tui.llm.offline.scripted import Reply, Script, ScriptedTransport
from paicli_tui.policy.approval import AutoApprover
from paicli_tui.records.killed import note_killed_runs
from paicli_tui.records.ledger import Ledger
from paicli_tui.records.resumable import newest_resumable
from paicli_tui.records.resume_state import KILLED_STATUS, KILLED_TEXT, read_resume_state
from paicli_tui.records.sessions import list_sessions
from paicli_tui.records.verify import verify_ledger
from paicli_tui.session.live import Session
from paicli_tui.session.port import ResumeRun
from tests.support.recorder import lines_of, record, write_lines
from tests.support.resume_script import ResumeScript

STEPS = [("make one", []), ("make two", []), ("make three", [1]), ("make four", [2])]


def _config(**extra) -> Settings:
    return Settings(**{"provider": "custom", "base_url": "http://scripted.invalid/v1", "model": "m", "max_retries": 0,
                       "isolation": "off", "workers": 2, **extra})


def _status_cut(tmp_path, task: str, status: str):
    """A finished team run's ledger cut just after ``task`` became
    ``status``, as SIGKILL would leave it."""
    path = record(tmp_path, "team", "make four files", ResumeScript("team", STEPS, reject="step_3", delay=0),
                  workers=2, isolation="off")
    lines = lines_of(path)
    at = next(i for i, line in enumerate(lines) if line["event"] == "status"
              and line["payload"].get("task_id") == task and line["payload"].get("status") == status)
    return write_lines(path, lines[: at + 1]), tmp_path / "ws"


def test_the_state_of_a_killed_run_says_what_is_kept_and_what_runs_again(tmp_path):
    path, _ = _status_cut(tmp_path, "step_2", "COMPLETED")
    state = read_resume_state(path)
    assert state.resumable, state.why_not
    assert state.kind == "team" and state.goal == "make four files"
    assert state.kept == ["step_2"] or sorted(state.kept) == ["step_1", "step_2"]
    assert "step_4" not in state.kept and state.stopped == KILLED_TEXT
    assert state.turns > 0 and state.tokens > 0


def test_a_completed_run_and_a_react_run_are_not_resumable(tmp_path):
    done = record(tmp_path, "team", "make four files", ResumeScript("team", STEPS, delay=0), workers=2,
                  isolation="off")
    assert read_resume_state(done).why_not == "it completed"
    (tmp_path / "r").mkdir()
    talk = record(tmp_path / "r", "react", "hello", Script({"react": [Reply(content="hi")]}))
    assert "conversation" in read_resume_state(talk).why_not


def test_the_next_start_writes_the_cause_for_a_run_left_without_an_outcome(tmp_path):
    path, workspace = _status_cut(tmp_path, "step_1", "COMPLETED")
    session = Session(_config(), workspace, approver=AutoApprover(), transport=ScriptedTransport(Script()))
    session.close()
    last = lines_of(path)[-1]
    assert last["event"] == "run_outcome"
    assert last["payload"]["status"] == KILLED_STATUS and last["payload"]["text"] == KILLED_TEXT
    assert read_resume_state(path).resumable
    assert note_killed_runs(workspace) == [], "written once"
    (summary,) = [s for s in list_sessions() if s.path == str(path)]
    assert summary.runs[-1].outcome == "killed" and summary.runs[-1].resumable


def test_a_ledger_still_being_written_is_not_taken_for_a_killed_one(tmp_path):
    path, workspace = _status_cut(tmp_path, "step_1", "COMPLETED")
    alive = Ledger(EventBus(path.stem), path)  # as the process writing it holds it
    try:
        assert note_killed_runs(workspace) == []
        assert newest_resumable(workspace) is None
    finally:
        alive.close()
    assert note_killed_runs(workspace) == [path]


def test_the_sessions_list_marks_a_resumable_run(tmp_path, capsys):
    from paicli_tui.commands import sessions

    _status_cut(tmp_path, "step_1", "COMPLETED")
    assert sessions.main(type("Args", (), {"json": False, "all": False})()) == 0
    out = capsys.readouterr()
    assert "unfinished ↻" in out.out and "paicli resume SESSION" in out.err


def _resume_in_process(path, workspace, script):
    state = read_resume_state(path)
    session = Session(_config(), workspace, approver=AutoApprover(), transport=ScriptedTransport(script),
                      session_id=state.session)
    try:
        outcome = session.submit(ResumeRun(state)).result(timeout=20)
    finally:
        session.close()
    return state, outcome


def test_a_resumed_run_keeps_completed_steps_and_verify_holds_across_the_stop(tmp_path):
    path, workspace = _status_cut(tmp_path, "step_2", "COMPLETED")
    script = ResumeScript("team", STEPS, reject="", delay=0)
    state, outcome = _resume_in_process(path, workspace, script)
    assert outcome.ok, outcome.text
    for task in state.kept:
        assert script.asked_about(task) == []
    assert sorted((workspace).glob("step_*.txt")) != []
    result = verify_ledger(path)
    assert result.ok, [str(v) for v in result.violations]
    resumed = [line for line in lines_of(path) if line["event"] == "run_resumed"]
    assert len(resumed) == 1 and resumed[0]["payload"]["kept"] == state.kept


def test_verify_catches_a_resume_that_keeps_unfinished_work_or_reruns_finished_work(tmp_path):
    path, workspace = _status_cut(tmp_path, "step_2", "COMPLETED")
    _resume_in_process(path, workspace, ResumeScript("team", STEPS, delay=0))
    lines = lines_of(path)
    at = next(i for i, line in enumerate(lines) if line["event"] == "run_resumed")
    forged = json.loads(json.dumps(lines))
    forged[at]["payload"]["kept"] = [*forged[at]["payload"]["kept"], "step_4"]
    broken = verify_ledger(write_lines(tmp_path / "forged.jsonl", forged))
    assert any(v.rule == "resume-keeps" and "step_4 kept" in v.message for v in broken.violations)

    rerun = json.loads(json.dumps(lines))
    kept = rerun[at]["payload"]["kept"][0]
    dispatch = {**rerun[at], "event": "dispatch", "actor": kept,
                "payload": {"task_id": kept, "worker": "worker-1", "attempt": 1}}
    rerun.insert(at + 1, dispatch)
    for seq, line in enumerate(rerun, 1):
        line["seq"] = seq
    broken = verify_ledger(write_lines(tmp_path / "rerun.jsonl", rerun))
    assert any(v.rule == "resume-keeps" and "dispatched again" in v.message for v in broken.violations)


def test_a_step_caught_on_its_retry_goes_on_at_that_attempt_with_its_feedback(tmp_path):
    path = record(tmp_path, "team", "make four files", ResumeScript("team", STEPS, reject="step_3", delay=0),
                  workers=2, isolation="off")
    lines = lines_of(path)
    at = next(i for i, line in enumerate(lines) if line["event"] == "dispatch"
              and line["payload"]["task_id"] == "step_3" and line["payload"]["attempt"] == 2)
    write_lines(path, lines[: at + 1])
    state = read_resume_state(path)
    assert state.tasks["step_3"].attempt == 2 and state.tasks["step_3"].feedback
    script = ResumeScript("team", STEPS, delay=0)
    _, outcome = _resume_in_process(path, tmp_path / "ws", script)
    assert outcome.ok, outcome.text
    after = lines_of(path)[at + 1:]
    retries = [line["payload"]["attempt"] for line in after
               if line["event"] == "dispatch" and line["payload"]["task_id"] == "step_3"]
    assert retries == [1, 2], "occupied once, then the attempt it had reached; no new retries granted"
    asked = [json.dumps(line["payload"]) for line in after if line["event"] == "model_request"
             and line["actor"].startswith("worker") and "Your step: step_3" in json.dumps(line["payload"])]
    assert asked and "The previous result was rejected by review" in asked[0], "sent with the review's feedback"
    assert verify_ledger(path).ok


def test_a_replanned_run_goes_on_with_its_new_plan_and_its_replan_count(tmp_path):
    from tests.support.recorder import plan_with_replan

    path = plan_with_replan(tmp_path)
    lines = lines_of(path)
    replanned = next(i for i, line in enumerate(lines) if line["event"] == "plan_version"
                     and line["payload"]["origin"] == "replan")
    at = next(i for i, line in enumerate(lines) if i > replanned and line["event"] == "status"
              and line["payload"]["status"] == "COMPLETED")
    write_lines(path, lines[: at + 1])
    state = read_resume_state(path)
    assert (state.version, state.replans, state.kept) == (2, 1, ["task_1"])
    script = Script({"task_2": [Reply(content="used")]})
    session = Session(_config(parallelism=2, isolation="on"), tmp_path / "ws", approver=AutoApprover(),
                      transport=ScriptedTransport(script), session_id=state.session)
    try:
        outcome = session.submit(ResumeRun(state)).result(timeout=20)
    finally:
        session.close()
    assert outcome.ok, outcome.text
    assert [r.agent for r in script.requests] == ["task_2"], "the planner is not asked again, task_1 not re-run"
    (resumed,) = [line["payload"] for line in lines_of(path) if line["event"] == "run_resumed"]
    assert (resumed["version"], resumed["replans"]) == (2, 1)
    assert verify_ledger(path).ok


def test_the_report_of_a_resumed_run_shows_its_end(tmp_path):
    from paicli_tui.records.report import session_reports

    path = record(tmp_path, "team", "make four files", ResumeScript("team", STEPS, delay=0), workers=2,
                  isolation="off")
    lines = lines_of(path)
    at = next(i for i, line in enumerate(lines) if line["event"] == "status" and line["payload"].get("task_id") == "step_4"
              and line["payload"]["status"] == "RUNNING")
    write_lines(path, lines[: at + 1])  # dispatched and RUNNING
    state, outcome = _resume_in_process(path, tmp_path / "ws", ResumeScript("team", STEPS, delay=0))
    assert outcome.ok and "step_4" in state.redone
    (report,) = session_reports(path)
    assert report["status"] == "COMPLETED"
    tasks = {task["id"]: task for task in report["tasks"]}
    assert {task["status"] for task in tasks.values()} == {"COMPLETED"}
    assert tasks["step_4"]["attempts"] == 1, "run again after the kill, not a retry"
    assert tasks["step_4"]["result"] == "step_4 written"


def test_a_session_may_resume_a_run_it_cancelled_itself(tmp_path):
    """Esc by mistake: the run the app's own session cancelled is offered
    again, though that session still holds its ledger; another live
    session's is not."""
    path, workspace = _status_cut(tmp_path, "step_1", "COMPLETED")
    alive = Ledger(EventBus(path.stem), path)
    try:
        assert newest_resumable(workspace) is None
        (state,) = [s for s in [newest_resumable(workspace, own=path.stem)] if s is not None]
        assert state.session == path.stem
    finally:
        alive.close()
