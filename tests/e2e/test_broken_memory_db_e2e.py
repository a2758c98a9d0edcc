"""A broken knowledge database (garbage bytes, or a newer schema) does not
turn a run that saved a fact into a traceback: the run's outcome is
recorded, the exit code is the outcome's, and stderr says it in one line."""

from __future__ import annotations

import pytest

from paicli_tui.knowledge.memory.database import database_path
from paicli_tui.llm.offline.scripted import Reply, Script
from tests.support.cli import ledger_lines, paicli_env, run_paicli
from tests.support.server import LoopbackServer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(90)]


def _break(path, how: str) -> None:
    import sqlite3

    path.parent.mkdir(parents=True, exist_ok=True)
    if how == "garbage":
        path.write_bytes(b"\x00garbage, not a database\xff" * 300)
    else:
        with sqlite3.connect(path) as conn:
            conn.execute("PRAGMA user_version=99")


@pytest.mark.parametrize("how", ["garbage", "newer-schema"])
def test_a_broken_memory_database_is_one_warning_and_the_outcome_is_recorded(workspace, paicli_home, how,
                                                                             monkeypatch):
    monkeypatch.setenv("PAICLI_HOME", str(paicli_home))
    _break(database_path(workspace), how)
    script = Script({"react": [Reply(tool_calls=[("save_memory", {"fact": "the tests use pytest"})]),
                               Reply(content="noted")]})
    with LoopbackServer(script) as server:
        proc = run_paicli(["run", "--base-url", server.base_url, "--model", "m", "--workspace", str(workspace),
                           "remember it"], home=paicli_home, cwd=workspace, env=paicli_env(paicli_home), timeout=60)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 0, proc.stderr
    assert "noted" in proc.stdout
    assert [line for line in ledger_lines(paicli_home) if line["event"] == "run_outcome"]
    warnings = [line for line in proc.stderr.splitlines() if "memory database" in line]
    assert len(warnings) == 1, proc.stderr
