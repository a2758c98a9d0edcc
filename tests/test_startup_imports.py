"""The app's first screen is drawn before the engine's heavy libraries are
imported: they load in the session's start-up thread or on first use."""

from __future__ import annotations

import json
import subprocess
import sys

FIRST_SCREEN_MODULES = """
import json, sys
import paicli_tui.cli
import paicli_tui.commands.tui
from paicli_tui.session.starting import StartingSession
from paicli_tui.ui.app import PaicliApp
from paicli_tui.ui.bridge.approver import UiApprover
from paicli_tui.ui.review.plan_reviewer import UIPlanReviewer
print(json.dumps(sorted({name.split('.')[0] for name in sys.modules})))
"""

#: pydantic too: settings that passed before are validated after the first
#: frame (config/preview.py), and themes are checked without it.
HEAVY = {"mcp", "jsonschema", "httpx", "httpcore", "anyio", "sqlite3", "acp", "pydantic", "paicli_tui.session.live"}


def test_what_the_first_screen_needs_imports_none_of_the_engine_libraries():
    out = subprocess.run([sys.executable, "-c", FIRST_SCREEN_MODULES], capture_output=True, text=True, check=True)
    loaded = set(json.loads(out.stdout.strip().splitlines()[-1]))
    assert loaded & HEAVY == set()
    probe = FIRST_SCREEN_MODULES.replace("name.split('.')[0] for name in sys.modules",
                                         "name for name in sys.modules if name.startswith('paicli_tui.')")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    ours = set(json.loads(out.stdout.strip().splitlines()[-1]))
    assert not {"paicli_tui.session.live", "paicli_tui.llm.client", "paicli_tui.agent.registry",
                "paicli_tui.knowledge.service", "paicli_tui.mcp.manager", "paicli_tui.plan.parser"} & ours


def _first_screen_modules(prefixes: tuple[str, ...]) -> set[str]:
    probe = FIRST_SCREEN_MODULES.replace(
        "name.split('.')[0] for name in sys.modules",
        f"name for name in sys.modules if name.startswith({prefixes!r})")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_the_first_screen_builds_no_event_class_and_no_isolation_machinery():
    loaded = _first_screen_modules(("paicli_tui.events.", "paicli_tui.workspace"))
    assert loaded == {"paicli_tui.events.base"}
    # Built on first use, and all of them for whoever walks Event's subclasses.
    probe = """
import json, sys
from paicli_tui import events as ev
from paicli_tui.events import ModelDelta
from paicli_tui.records.rebuild import event_classes
print(json.dumps([ModelDelta is ev.ModelDelta, ModelDelta.__module__, "run_outcome" in event_classes(),
                  len(event_classes()) == len(ev.__all__) - 3]))
"""
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [True, "paicli_tui.events.model", True, True]


def test_the_first_screen_imports_no_markdown_parser_or_highlighter():
    # Textual's Markdown widget brings both; the first answer imports it.
    loaded = _first_screen_modules(("markdown_it", "pygments", "textual.widgets._markdown"))
    assert loaded == set()


def test_starting_afresh_does_not_import_the_ledger_reader():
    probe = """
import argparse, json, sys
from pathlib import Path
from paicli_tui.commands.tui import _continued
args = argparse.Namespace(resume_session=None, continue_last=False)
print(json.dumps([_continued(args, Path.cwd()) is None,
                  sorted(m for m in sys.modules if m.startswith(("paicli_tui.records.conversation", "paicli_tui.records.ledger")))]))
"""
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [True, []]
