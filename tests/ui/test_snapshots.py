"""How the main screen looks: idle, mid-stream and with an approval dialog,
in each packaged theme, at 120×36 and at 80×24. Regenerate the SVGs with
``pytest tests/ui/test_snapshots.py --snapshot-update`` after a deliberate
change, and look at them before committing."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest

from paicli_tui import events as ev
from paicli_tui.policy.approval import ApprovalRequest
from paicli_tui.policy.grants import proposed_grants
from paicli_tui.ui.app import PaicliApp
from paicli_tui.ui.approval.approval import ApprovalScreen
from tests.ui.conftest import settle, submit
from tests.ui.fake_session import WORKSPACE, FakeSession

THEMES = ["paicli-dark", "paicli-light"]
WIDE = (120, 36)
NARROW = (80, 24)

ANSWER = """The project has **two** packages:

- `app/` — the web server ([routes.py] holds the URLs)
- `lib/` — shared helpers

```python
def main() -> int:
    return serve()
```

The tests live in `tests/` and"""

DIFF = """--- a/README.md
+++ b/README.md
@@ -1,3 +1,3 @@
 # Demo project
-Run it with make.
+Run it with `make serve`.
 More below.
"""


def _app(theme: str) -> PaicliApp:
    return PaicliApp(FakeSession(), theme=theme)


async def _quiet(pilot) -> None:
    pilot.app.main_screen.prompt.cursor_blink = False
    await settle(pilot)


async def _idle(pilot) -> None:
    await _quiet(pilot)


async def _mid_stream(pilot) -> None:
    session = pilot.app.session
    await submit(pilot, "explain the layout of this project")
    publish = session.bus.publish
    for piece in ("The user wants an overview. ", "I should read the README first."):
        publish(ev.ModelDelta("react", "c1", "reasoning", piece))
    publish(ev.ModelResponse("react", "c1", "", "…", (), "tool_calls", 812, 40, 512, 0.4))
    publish(ev.ToolCallStarted("react", "t1", "read_file", '{"path": "README.md"}'))
    publish(ev.ToolCallFinished("react", "t1", "read_file", True, "12 lines", "# Demo project"))
    publish(ev.ToolCallStarted("react", "t2", "list_dir", '{"path": "."}'))
    publish(ev.ToolCallFinished("react", "t2", "list_dir", True, "4 entries", "app/\nlib/\ntests/\nREADME.md"))
    for piece in ANSWER.split(" "):
        publish(ev.ModelDelta("react", "c2", "content", piece + " "))
    await _quiet(pilot)


async def _approval(pilot) -> None:
    app = pilot.app
    await submit(pilot, "fix the README")
    request = ApprovalRequest(
        "react", "edit_file",
        {"path": "README.md", "old_string": "Run it with make.", "new_string": "Run it with `make serve`."},
        "ASK mode: every file change waits for your yes", preview=DIFF,
        grants=proposed_grants("edit_file", {"path": "README.md"}, WORKSPACE),
    )
    ThreadPoolExecutor(max_workers=1).submit(app.approver.request, request)
    while not isinstance(app.screen, ApprovalScreen):
        await settle(pilot)
        await asyncio.sleep(0.01)
    await _quiet(pilot)


@pytest.mark.parametrize("theme", THEMES)
def test_idle(snap_compare, theme):
    assert snap_compare(_app(theme), terminal_size=WIDE, run_before=_idle)


@pytest.mark.parametrize("theme", THEMES)
def test_mid_stream(snap_compare, theme):
    assert snap_compare(_app(theme), terminal_size=WIDE, run_before=_mid_stream)


@pytest.mark.parametrize("theme", THEMES)
def test_approval_dialog(snap_compare, theme):
    assert snap_compare(_app(theme), terminal_size=WIDE, run_before=_approval)


def test_mid_stream_narrow(snap_compare):
    assert snap_compare(_app("paicli-dark"), terminal_size=NARROW, run_before=_mid_stream)


def test_approval_dialog_narrow(snap_compare):
    assert snap_compare(_app("paicli-dark"), terminal_size=NARROW, run_before=_approval)
