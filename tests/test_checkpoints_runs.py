"""Checkpoints and undo through the real Session (P-9.3): the scripted model
behind a real HTTP server on 127.0.0.1, real tools on real files in a
temporary workspace, then the undo a person or the agent asks for."""

from __future__ import annotations

import json
import os
import stat

import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.llm.offline.scripted import Reply, Script
from paicli_tui.session.live import Session
from paicli_tui.policy.approval import AutoApprover, Decision, DenyApprover
from tests.support.recorder import approve, done, task_plan, team_plan
from tests.support.server import LoopbackServer

pytestmark = pytest.mark.timeout(60)

ORIGINAL_A = b"first line\r\nsecond line\n\xe2\x9c\x93 no newline at the end"
ORIGINAL_B = "def b():\n    return 1\n".encode()


def edit(path: str, old: str, new: str) -> Reply:
    return Reply(tool_calls=[("edit_file", {"path": path, "old_string": old, "new_string": new})], delay=0.2)


def write(path: str, content: str) -> Reply:
    return Reply(tool_calls=[("write_file", {"path": path, "content": content})])


@pytest.fixture
def workspace(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_bytes(ORIGINAL_A)
    (root / "src").mkdir()
    (root / "src" / "b.py").write_bytes(ORIGINAL_B)
    os.chmod(root / "src" / "b.py", 0o640)
    return root


def session_for(server, workspace, approver=None, **settings) -> Session:
    config = Settings(provider="custom", base_url=server.base_url, model="m", max_retries=0, **settings)
    return Session(config, workspace, approver=approver or AutoApprover())


def two_task_plan() -> Script:
    return Script({
        "planner": [task_plan(("edit a.txt", []), ("edit src/b.py", []), kind="FILE_WRITE")],
        "task_1": [edit("a.txt", "second line", "SECOND LINE"), Reply(content="edited a")],
        "task_2": [edit("src/b.py", "return 1", "return 2"), Reply(content="edited b")],
    })


def test_a_plan_whose_two_tasks_edit_two_files_is_undone_byte_for_byte(workspace):
    events = []
    with LoopbackServer(two_task_plan()) as server:
        session = session_for(server, workspace, parallelism=2)
        session.bus.subscribe(events.append)
        try:
            outcome = session.start_plan("edit both files").result(timeout=30)
            assert outcome.ok, outcome.text
            assert (workspace / "a.txt").read_bytes() != ORIGINAL_A
            assert (workspace / "src" / "b.py").read_bytes() != ORIGINAL_B

            plan = session.checkpoints.plan()
            assert plan is not None and plan.run.kind == "plan"
            assert {c.path: c.task for c in plan.run.changes} == {"a.txt": "task_1", "src/b.py": "task_2"}
            assert [f.status for f in plan.files] == ["ok", "ok"]
            result = session.checkpoints.undo(plan)
        finally:
            session.close()

    assert sorted(result.restored) == ["a.txt", "src/b.py"] and not result.skipped
    assert (workspace / "a.txt").read_bytes() == ORIGINAL_A
    assert (workspace / "src" / "b.py").read_bytes() == ORIGINAL_B
    assert stat.S_IMODE((workspace / "src" / "b.py").stat().st_mode) == 0o640
    changes = [e for e in events if e.name == "run_changes"]
    assert [c.files for c in changes] == [("a.txt", "src/b.py")]
    saved = {(e.task_id, e.path, e.tool) for e in events if e.name == "checkpoint"}
    # Each task works in its own tree; its merged result reaches the
    # workspace through the run's apply, recorded per task (docs/isolation.md).
    assert saved == {("task_1", "a.txt", "apply"), ("task_2", "src/b.py", "apply"),
                     ("", "a.txt", "undo"), ("", "src/b.py", "undo")}  # the undo's own writes too
    lines = [json.loads(line) for line in session.ledger.path.read_text().splitlines()]
    names = [line["event"] for line in lines]
    assert names.index("run_changes") < names.index("run_outcome")
    assert "undo" in names


def test_a_file_changed_by_hand_is_kept_unless_the_person_says_overwrite(workspace):
    with LoopbackServer(two_task_plan()) as server:
        session = session_for(server, workspace, parallelism=2)
        try:
            assert session.start_plan("edit both files").result(timeout=30).ok
            (workspace / "a.txt").write_bytes(b"my own edit\n")
            plan = session.checkpoints.plan()
            changed = {f.path: f for f in plan.files}
            assert changed["a.txt"].status == "changed"
            assert changed["a.txt"].conflict == "changed since by hand or by a command"
            assert changed["src/b.py"].status == "ok"

            kept = session.checkpoints.undo(plan)
            assert kept.skipped == ["a.txt"] and kept.restored == ["src/b.py"]
            assert (workspace / "a.txt").read_bytes() == b"my own edit\n"
            assert (workspace / "src" / "b.py").read_bytes() == ORIGINAL_B

            again = session.checkpoints.plan()  # the same run: only a.txt is left
            assert again.run.run_id == plan.run.run_id and [f.path for f in again.files] == ["a.txt"]
            forced = session.checkpoints.undo(again, overwrite=["a.txt"])
        finally:
            session.close()
    assert forced.overwritten == ["a.txt"]
    assert (workspace / "a.txt").read_bytes() == ORIGINAL_A


def test_a_team_run_records_each_step_and_one_step_can_be_undone_alone(workspace):
    def worker(request):
        messages = request.messages
        if messages and messages[-1].get("role") == "tool":
            return done("edited")
        text = str(messages[-1].get("content", ""))
        if "Edit a.txt" in text:
            return edit("a.txt", "second line", "2nd line")
        return edit("src/b.py", "return 1", "return 3")

    script = Script({"planner": [team_plan(("Edit a.txt", []), ("Edit src/b.py", []))],
                     "reviewer": [approve(), approve()]}, default=worker)
    with LoopbackServer(script) as server:
        session = session_for(server, workspace, workers=2)
        try:
            outcome = session.start_team("edit both").result(timeout=30)
            assert outcome.ok, outcome.text
            run = session.checkpoints.plan().run
            assert {c.path: c.task for c in run.changes} == {"a.txt": "step_1", "src/b.py": "step_2"}
            assert {c.actor for c in run.changes} == {"step_1", "step_2"}  # the apply, step by step
            step = session.checkpoints.plan(run.run_id, task="step_2")
            assert [f.path for f in step.files] == ["src/b.py"]
            session.checkpoints.undo(step)
        finally:
            session.close()
    assert (workspace / "src" / "b.py").read_bytes() == ORIGINAL_B
    assert b"2nd line" in (workspace / "a.txt").read_bytes()


def test_a_turn_that_ran_commands_says_their_changes_are_not_tracked(workspace):
    script = Script({"react": [
        Reply(tool_calls=[("execute_command", {"command": "echo hi > made-by-shell.txt"})]),
        write("notes.md", "# notes\n"),
        Reply(content="done"),
    ]})
    events = []
    with LoopbackServer(script) as server:
        session = session_for(server, workspace)
        session.bus.subscribe(events.append)
        try:
            assert session.start_react("make notes").result(timeout=30).ok
            plan = session.checkpoints.plan()
            session.checkpoints.undo(plan)
        finally:
            session.close()
    (summary,) = [e for e in events if e.name == "run_changes"]
    assert summary.files == ("notes.md",) and summary.commands == ("react",)
    assert plan.commands == ("react",)
    assert not (workspace / "notes.md").exists()
    assert (workspace / "made-by-shell.txt").exists()  # a command's change stays: it was never tracked


class RecordingApprover:
    def __init__(self, answer: Decision) -> None:
        self.answer = answer
        self.requests = []

    def request(self, request):
        self.requests.append(request)
        return self.answer


@pytest.mark.parametrize("mode", ["auto", "ask"])
def test_revert_turn_asks_in_every_mode_and_undoes_the_previous_turn(workspace, mode):
    script = Script({"react": [
        write("src/b.py", "broken\n"), Reply(content="rewrote b"),
        Reply(tool_calls=[("revert_turn", {"reason": "that broke b"})]), Reply(content="reverted"),
    ]})
    approver = RecordingApprover(Decision.YES)
    with LoopbackServer(script) as server:
        session = session_for(server, workspace, approver=approver, approval_mode=mode)
        try:
            assert session.start_react("rewrite b").result(timeout=30).ok
            assert (workspace / "src" / "b.py").read_bytes() == b"broken\n"
            approver.requests.clear()
            assert session.start_react("undo that").result(timeout=30).ok
        finally:
            session.close()
    (asked,) = [r for r in approver.requests if r.tool == "revert_turn"]
    assert "always asks" in asked.reason and asked.grants == ()
    assert "-broken" in asked.preview and "+    return 1" in asked.preview
    assert asked.preview.startswith("reverts turn rewrite b — the agent says: that broke b")
    assert (workspace / "src" / "b.py").read_bytes() == ORIGINAL_B
    tool_results = [m for r in script.requests for m in r.messages if m.get("role") == "tool"]
    assert any("reverted turn rewrite b: restored 1 file" in m["content"] for m in tool_results)


def test_revert_turn_without_anyone_to_ask_is_denied_and_changes_nothing(workspace):
    script = Script({"react": [
        write("src/b.py", "broken\n"), Reply(content="rewrote b"),
        Reply(tool_calls=[("revert_turn", {})]), Reply(content="could not"),
    ]})
    with LoopbackServer(script) as server:
        session = session_for(server, workspace, approver=DenyApprover())
        try:
            session.start_react("rewrite b").result(timeout=30)
            session.start_react("undo that").result(timeout=30)
        finally:
            session.close()
    assert (workspace / "src" / "b.py").read_bytes() == b"broken\n"
    last_tool = [m for m in script.requests[-1].messages if m.get("role") == "tool"][-1]
    assert "denied" in last_tool["content"]


def test_an_undo_is_itself_a_run_that_can_be_undone(workspace):
    script = Script({"react": [write("a.txt", "replaced\n"), Reply(content="ok")]})
    with LoopbackServer(script) as server:
        session = session_for(server, workspace)
        try:
            session.start_react("replace a").result(timeout=30)
            session.checkpoints.undo(session.checkpoints.plan())
            assert (workspace / "a.txt").read_bytes() == ORIGINAL_A
            undo_run = session.checkpoints.runs()[0]
            assert undo_run.kind == "undo" and undo_run.files == ["a.txt"]
            assert session.checkpoints.plan() is None  # the default skips undos: nothing else is left
            session.checkpoints.undo(session.checkpoints.plan(undo_run.run_id))
        finally:
            session.close()
    assert (workspace / "a.txt").read_bytes() == b"replaced\n"
