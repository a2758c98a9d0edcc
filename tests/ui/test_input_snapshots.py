"""How the prompt looks: the command menu, the argument menu, the @ file
picker and a multi-line prompt with a collapsed paste, at 120×36 and 80×24.
Regenerate with ``--snapshot-update`` after a deliberate change, and look
at the SVGs before committing."""

from __future__ import annotations

import time

import pytest
from textual import events

from paicli_tui.ui.app import PaicliApp
from tests.ui.conftest import settle
from tests.ui.fake_session import FakeSession

SIZES = {"wide": (120, 36), "narrow": (80, 24)}
FILES = ["README.md", "docs/architecture.md", "paicli_tui/session.py", "paicli_tui/ui/app.py",
         "paicli_tui/ui/conversation/main_screen.py", "paicli_tui/ui/conversation/prompt_editor.py",
         "tests/ui/test_main_screen.py"]


def _app() -> PaicliApp:
    return PaicliApp(FakeSession(), theme="paicli-dark")


async def _type(pilot, *keys: str) -> None:
    prompt = pilot.app.main_screen.prompt
    prompt.cursor_blink = False
    await pilot.press(*keys)
    await settle(pilot)


async def _command_menu(pilot) -> None:
    await _type(pilot, "/")


async def _argument_menu(pilot) -> None:
    await _type(pilot, "/", "m", "o", "d", "e", "space")


async def _file_picker(pilot) -> None:
    files = pilot.app.main_screen.prompt.files
    files.files = list(FILES)  # a fixed listing: the workspace is not on disk
    files._listed_at = time.monotonic()
    await _type(pilot, *"explain", "space", "@", "m", "a", "i", "n")


async def _multi_line(pilot) -> None:
    prompt = pilot.app.main_screen.prompt
    await _type(pilot, *"Fix", "space", *"the", "space", *"failing", "space", *"test:", "shift+enter")
    prompt.post_message(events.Paste("\n".join(f"E   assert {i} == {i + 1}" for i in range(40))))
    await _type(pilot, "shift+enter", *"then", "space", *"run", "space", *"it", "shift+enter", *"again.")


SCENES = {"command_menu": _command_menu, "argument_menu": _argument_menu, "file_picker": _file_picker,
          "multi_line": _multi_line}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("scene", SCENES)
def test_prompt(snap_compare, scene, size):
    assert snap_compare(_app(), terminal_size=SIZES[size], run_before=SCENES[scene])
