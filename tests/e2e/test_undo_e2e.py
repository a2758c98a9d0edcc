"""`paicli run` records checkpoints and `paicli undo` takes them back: the
real binary as a subprocess against a loopback model server, real files."""

from __future__ import annotations

import pytest

from paicli_tui.llm.offline.scripted import Reply, Script
from tests.support.cli import paicli_env, run_paicli
from tests.support.server import LoopbackServer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(90)]

NOTES = b"alpha\nbeta\n"


def _paicli(home, workspace, *args, server=None):
    model = ["--base-url", server.base_url, "--model", "m"] if server else []
    return run_paicli([*args[:1], *model, *args[1:]], home=home, cwd=workspace, timeout=60,
                      env=paicli_env(home, PAICLI_MAX_RETRIES="0"))


def test_a_run_is_listed_shown_and_undone_from_the_command_line(workspace, paicli_home):
    script = Script({"react": [
        Reply(tool_calls=[("edit_file", {"path": "notes.txt", "old_string": "beta", "new_string": "BETA"}),
                          ("execute_command", {"command": "echo x > made.txt"})]),
        Reply(content="done"),
    ]})
    with LoopbackServer(script) as server:
        ran = _paicli(paicli_home, workspace, "run", "--yes", "shout beta", server=server)
    assert ran.returncode == 0, ran.stderr
    assert "1 file changed (notes.txt) · paicli undo reverts" in ran.stderr
    assert "commands ran (react): what they changed is not tracked by paicli undo" in ran.stderr
    assert (workspace / "notes.txt").read_bytes() == b"alpha\nBETA\n"

    listed = _paicli(paicli_home, workspace, "undo", "--list")
    assert listed.returncode == 0 and "can undo · ran commands  turn shout beta" in listed.stdout

    shown = _paicli(paicli_home, workspace, "undo")
    assert shown.returncode == 0
    assert "-BETA\n+beta" in shown.stdout and "run again with --yes" in shown.stdout
    assert "commands ran here (react)" in shown.stdout
    assert (workspace / "notes.txt").read_bytes() == b"alpha\nBETA\n"  # only shown, not done

    (workspace / "notes.txt").write_bytes(b"by hand\n")
    refused = _paicli(paicli_home, workspace, "undo", "--yes")
    assert refused.returncode == 1 and "kept notes.txt (changed since)" in refused.stdout
    assert (workspace / "notes.txt").read_bytes() == b"by hand\n"

    forced = _paicli(paicli_home, workspace, "undo", "1", "--yes", "--overwrite")
    assert forced.returncode == 0, forced.stdout + forced.stderr
    assert (workspace / "notes.txt").read_bytes() == NOTES
    assert (workspace / "made.txt").exists()  # a command's file is not tracked


def test_undo_names_a_missing_run_in_one_line(workspace, paicli_home):
    result = _paicli(paicli_home, workspace, "undo", "nope", "--yes")
    assert result.returncode == 2
    assert result.stderr.strip() == ("paicli: no run 'nope' in this workspace's checkpoints; "
                                     "paicli undo --list shows them")
