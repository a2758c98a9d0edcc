"""How /undo, its conflict question and /skills look at 120×36 and 80×24.
The checkpoints are real (real tool calls on files in a temporary
workspace); only their start times are fixed so the SVGs are stable.
Regenerate with --snapshot-update after a deliberate change, and look at the
SVGs before committing."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path

import pytest

from paicli_tui.checkpoints.service import Checkpoints
from paicli_tui.config.settings import Settings
from paicli_tui.llm.types import ToolCall
from paicli_tui.prompting.skills import Skill
from paicli_tui.policy.approval import AutoApprover
from paicli_tui.tools.base import ToolContext
from paicli_tui.agent.registry import ToolRegistry
from paicli_tui.tools.trusted_urls import TrustedUrls
from paicli_tui.ui.app import PaicliApp
from paicli_tui.ui.skills.skills_screen import SkillsScreen
from paicli_tui.ui.undo.conflict_dialog import ConflictDialog
from paicli_tui.ui.undo.undo_screen import UndoScreen
from tests.ui.conftest import settle, submit
from tests.ui.fake_session import FakeSession

SIZES = {"wide": (120, 36), "narrow": (80, 24)}
#: 2023-11-14 22:13 UTC and 40 minutes later.
STARTS = (1_700_000_000, 1_700_002_400)

MODELS = '''class Invoice:
    number: str
    total_cents: int
    customer_name: str
'''


@pytest.fixture(autouse=True)
def utc(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def _tool(registry: ToolRegistry, actor: str, name: str, **arguments) -> None:
    ctx = ToolContext(actor, threading.Event(), TrustedUrls(), AutoApprover())
    result = registry.execute(ToolCall("c", name, json.dumps(arguments)), ctx)
    assert result.ok, result.content


def _workspace(root: Path) -> Checkpoints:
    (root / "invoicer").mkdir(parents=True)
    (root / "invoicer" / "models.py").write_text(MODELS)
    (root / "README.md").write_text("# Invoicer\n\nFields: number, total_cents, customer_name.\n")
    (root / "notes.md").write_text("old notes\n")
    registry = ToolRegistry(root, Settings())
    checkpoints = Checkpoints(root, "snap")
    registry.checkpoints = checkpoints.recorder
    checkpoints.begin_run("react", "tidy the notes")
    checkpoints.recorder.note_untracked("execute_command", ToolContext("react", threading.Event(), TrustedUrls(),
                                                                       AutoApprover()))
    _tool(registry, "react", "write_file", path="notes.md", content="# Notes\n\n- tidy\n")
    checkpoints.finish_run()
    checkpoints.begin_run("plan", "rename the invoice fields")
    checkpoints.recorder.observe(_dispatch("task_1"))
    checkpoints.recorder.observe(_dispatch("task_2"))
    _tool(registry, "task_1", "edit_file", path="invoicer/models.py", old_string="customer_name",
          new_string="customer")
    _tool(registry, "task_1", "edit_file", path="invoicer/models.py", old_string="total_cents", new_string="total")
    _tool(registry, "task_2", "edit_file", path="README.md", old_string="customer_name", new_string="customer")
    _tool(registry, "task_2", "write_file", path="tests/test_fields.py", content="def test_fields():\n    pass\n")
    checkpoints.finish_run()
    (root / "README.md").write_text("# Invoicer\n\nEdited by hand meanwhile.\n")
    for start, run in zip(STARTS, reversed(checkpoints.store.runs())):
        meta = checkpoints.store.runs_dir / run.run_id / "run.json"
        data = json.loads(meta.read_text())
        data["started"] = start
        meta.write_text(json.dumps(data))
    return checkpoints


def _dispatch(task_id: str):
    from paicli_tui import events as ev

    return ev.TaskDispatched(task_id, task_id, "worker-1")


def _app(tmp_path: Path) -> PaicliApp:
    session = FakeSession()
    session.checkpoints = _workspace(tmp_path / "ws")
    session.skill_list = [
        Skill("changelog", "Write the changelog in Keep a Changelog form.", Path(".paicli/skills/changelog/SKILL.md")),
        Skill("release", "Cut a release: bump the version, tag it, push the tag.",
              Path(".paicli/skills/release/SKILL.md")),
        Skill("review", "Review a diff the way this team does.", Path("/home/me/.config/paicli/skills/review/SKILL.md")),
    ]
    return PaicliApp(session, theme="paicli-dark")


async def _until(pilot, screen_type) -> None:
    while not isinstance(pilot.app.screen, screen_type):
        await settle(pilot)
        await asyncio.sleep(0.01)
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()


async def _undo(pilot) -> None:
    pilot.app.main_screen.prompt.cursor_blink = False
    await submit(pilot, "/undo")
    await _until(pilot, UndoScreen)


async def _conflict(pilot) -> None:
    await _undo(pilot)
    await pilot.press("r")
    await _until(pilot, ConflictDialog)


async def _skills(pilot) -> None:
    pilot.app.main_screen.prompt.cursor_blink = False
    await submit(pilot, "/skills")
    await _until(pilot, SkillsScreen)


SCENES = {"undo": _undo, "undo_conflict": _conflict, "skills": _skills}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("scene", SCENES)
def test_undo_and_skills_screens(snap_compare, tmp_path, scene, size):
    assert snap_compare(_app(tmp_path), terminal_size=SIZES[size], run_before=SCENES[scene])
