"""`paicli index` and `paicli memory` as real subprocesses: progress and
exit codes, facts that outlive the process, and an indexer killed with
SIGKILL mid-run leaving an index that is whole for every file it holds and
that the next run completes."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from paicli_tui.knowledge.memory.database import database_path
from tests.support.cli import paicli_env, run_paicli

pytestmark = pytest.mark.timeout(120)


def _tree(root, count: int) -> None:
    for n in range(count):
        folder = root / f"pkg{n % 20}"
        folder.mkdir(parents=True, exist_ok=True)
        body = "\n\n".join(f"def handler_{n}_{k}(request):\n    return route_{k}(request, {n})" for k in range(8))
        (folder / f"mod{n}.py").write_text(f'"""Module {n}."""\nimport os\n\n{body}\n', encoding="utf-8")


def test_index_prints_progress_and_the_report_and_exits_0(tmp_path, paicli_home):
    ws = tmp_path / "ws"
    _tree(ws, 30)
    proc = run_paicli(["index", "--workspace", str(ws)], home=paicli_home, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-2] == "indexing: 30/30 files"
    assert lines[-1].startswith("index updated: 30 files, 30 new, 0 changed, 0 removed — ")
    again = run_paicli(["index", "--workspace", str(ws), "--json"], home=paicli_home, cwd=tmp_path)
    report = json.loads(again.stdout)
    assert (report["files"], report["unchanged"], report["added"], report["complete"]) == (30, 30, 0, True)
    assert report["database"] == str(database_path(ws))
    missing = run_paicli(["index", "--workspace", str(tmp_path / "nope")], home=paicli_home, cwd=tmp_path)
    assert missing.returncode == 2 and "is not a directory" in missing.stderr


def test_memory_commands_keep_facts_between_processes(tmp_path, paicli_home):
    ws = tmp_path / "ws"
    ws.mkdir()

    def memory(*args):
        return run_paicli(["memory", *args, "--workspace", str(ws)], home=paicli_home, cwd=tmp_path)

    assert memory("add", "Staging", "deploys", "need", "the", "VPN").stdout == "saved fact 1: Staging deploys need the VPN\n"
    assert memory("add", "Docs are built with mkdocs").returncode == 0
    listed = memory("list", "--json").stdout.splitlines()
    assert [json.loads(line)["text"] for line in listed] == ["Docs are built with mkdocs", "Staging deploys need the VPN"]
    found = memory("search", "how", "do", "I", "deploy", "to", "staging")
    assert found.returncode == 0 and "Staging deploys need the VPN" in found.stdout and "mkdocs" not in found.stdout
    assert memory("search", "kubernetes").returncode == 1
    assert memory("delete", "1").stdout == "deleted 1 fact\n"
    gone = memory("delete", "1")
    assert gone.returncode == 1 and "no fact 1" in gone.stdout
    blank = memory("add", "   ")
    assert blank.returncode == 2 and blank.stderr.strip() == "paicli: a fact needs some text"


def test_a_killed_indexer_leaves_a_usable_index(tmp_path, paicli_home):
    ws = tmp_path / "ws"
    total = 2500
    _tree(ws, total)
    db_path = database_path(ws)
    proc = subprocess.Popen([sys.executable, "-m", "paicli_tui", "index", "--workspace", str(ws)], cwd=tmp_path,
                            env=paicli_env(paicli_home), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        held = 0
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if db_path.exists():
                try:
                    with sqlite3.connect(db_path, timeout=5) as conn:
                        held = conn.execute("SELECT count(*) FROM files").fetchone()[0]
                except sqlite3.OperationalError:
                    held = 0  # the schema is not there yet
                if held >= 150:
                    break
            time.sleep(0.05)
        assert proc.poll() is None, "the indexer finished before it could be killed; make the tree bigger"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL

    conn = sqlite3.connect(db_path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    files = conn.execute("SELECT count(*) FROM files").fetchone()[0]
    assert 150 <= files < total
    # Whole files only: every file it holds has its chunks and its symbols.
    assert conn.execute("SELECT count(*) FROM files WHERE id NOT IN (SELECT file_id FROM chunks)").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM symbols").fetchone()[0] == 8 * files
    conn.close()

    from paicli_tui.knowledge.service import Knowledge

    hits = Knowledge(ws).search_code("handler route request")
    assert hits and all(hit.path.endswith(".py") for hit in hits)

    resumed = run_paicli(["index", "--workspace", str(ws), "--json"], home=paicli_home, cwd=tmp_path, timeout=110)
    assert resumed.returncode == 0, resumed.stderr
    report = json.loads(resumed.stdout)
    assert report["files"] == total and report["complete"]
    # The batch in flight at the kill was rolled back: only it is redone.
    assert report["added"] == total - files and report["unchanged"] == files


def test_two_index_runs_at_once_both_finish(tmp_path, paicli_home):
    ws = tmp_path / "ws"
    _tree(ws, 120)
    procs = [subprocess.Popen([sys.executable, "-m", "paicli_tui", "index", "--workspace", str(ws), "--json"],
                              cwd=tmp_path, env=paicli_env(paicli_home), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [proc.communicate(timeout=110) for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0], outs
    assert all("Traceback" not in err for _, err in outs)
    assert sum(json.loads(out.splitlines()[-1])["files"] for out, _ in outs) >= 120
