"""How the conversation looks with input queued during a turn, with the
help open, with a plan run's tasks folded above its full answer, and with
one task's result unfolded, at 120×36, 80×24 and 200×50.
Regenerate with ``--snapshot-update`` after a deliberate change, and look."""

from __future__ import annotations

import pytest

from paicli_tui import events as ev
from paicli_tui.ui.app import PaicliApp
from tests.ui.conftest import settle, submit
from tests.ui.fake_session import FakeSession

SIZES = {"wide": (120, 36), "narrow": (80, 24), "large": (200, 50)}

ANSWER = """## What the project is

A small web service: `app/` serves the pages, `lib/` holds the helpers
shared with the command-line tools, and `tests/` runs against both.

## How to run it

1. `make install` once, to create the virtual environment.
2. `make serve` starts the server on port 8000.
3. `make test` runs the whole suite; it takes about twenty seconds.

## What to look at first

- `app/routes.py` lists every URL and the handler behind it.
- `lib/config.py` reads `settings.toml`; every option has a comment.

That is the whole answer, not a preview: nothing here is cut."""


def _app() -> PaicliApp:
    return PaicliApp(FakeSession(), theme="paicli-dark")


async def _quiet(pilot) -> None:
    pilot.app.main_screen.prompt.cursor_blink = False
    await settle(pilot)


async def _queued(pilot) -> None:
    await submit(pilot, "explain the layout of this project")
    pilot.app.session.bus.publish(ev.ModelDelta("react", "c1", "content", "Reading the README first…"))
    await submit(pilot, "then suggest where the tests should go")
    await submit(pilot, "/team add the missing tests")
    await _quiet(pilot)


async def _help(pilot) -> None:
    await pilot.press("f1")
    await _quiet(pilot)


README_RESULT = """The README has two sections:

- **Install**: `make install` once.
- **Usage**: `make serve`, then open <http://localhost:8000>."""


async def _full_answer(pilot) -> None:
    session = pilot.app.session
    await submit(pilot, "/plan survey the project")
    summary = ("Plan COMPLETED: 2 tasks — 2 completed\n✅ task_1: Read the README — The README has two sections…\n"
               "✅ task_2: Summarise the project — What the project is A small web service: app/ serves…")
    session.bus.publish(ev.TaskStatusChanged("engine", "task_1", "COMPLETED", README_RESULT))
    session.bus.publish(ev.TaskStatusChanged("engine", "task_2", "COMPLETED", ANSWER))
    session.bus.publish(ev.RunFinished("engine", "COMPLETED", summary, {"completed": 2}, ANSWER))
    session.finish()
    await _quiet(pilot)


async def _first_task_unfolded(pilot) -> None:
    await _full_answer(pilot)
    first = pilot.app.main_screen.transcript.query("TaskResultEntry").first()
    first.collapsed = False
    await pilot.pause()
    await pilot.press("ctrl+home")  # as a person would: the transcript stops following the end
    await _quiet(pilot)


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_queued_input(snap_compare, size):
    assert snap_compare(_app(), terminal_size=size, run_before=_queued)


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_help_screen(snap_compare, size):
    assert snap_compare(_app(), terminal_size=size, run_before=_help)


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_full_final_answer(snap_compare, size):
    assert snap_compare(_app(), terminal_size=size, run_before=_full_answer)


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_a_task_result_unfolded(snap_compare, size):
    assert snap_compare(_app(), terminal_size=size, run_before=_first_task_unfolded)
