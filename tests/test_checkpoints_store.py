"""Checkpoints as the tool registry records them, without a model: binary
content, modes, created folders, the size bound, private files, concurrent
writers and a change paicli never finished recording."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest

from paicli_tui.checkpoints.service import Checkpoints
from paicli_tui.checkpoints.store import CheckpointStore
from paicli_tui.config.settings import Settings
from paicli_tui.llm.types import ToolCall
from paicli_tui.policy.approval import AutoApprover
from paicli_tui.tools.base import ToolContext
from paicli_tui.agent.registry import ToolRegistry
from paicli_tui.tools.trusted_urls import TrustedUrls

BINARY = bytes(range(256)) * 3 + b"\x00\xff\r\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def wired(workspace: Path, **options) -> tuple[ToolRegistry, Checkpoints]:
    registry = ToolRegistry(workspace, Settings())
    checkpoints = Checkpoints(workspace, "sess", **options)
    registry.checkpoints = checkpoints.recorder
    return registry, checkpoints


def call(registry: ToolRegistry, name: str, actor: str = "react", **arguments):
    ctx = ToolContext(actor, threading.Event(), TrustedUrls(), AutoApprover())
    result = registry.execute(ToolCall(f"c-{name}", name, json.dumps(arguments)), ctx)
    assert result.ok, result.content
    return result


def test_a_binary_file_and_its_mode_come_back_exactly(workspace):
    target = workspace / "logo.bin"
    target.write_bytes(BINARY)
    os.chmod(target, 0o751)
    registry, checkpoints = wired(workspace)
    checkpoints.begin_run("react", "replace the logo")
    call(registry, "write_file", path="logo.bin", content="now text")
    checkpoints.finish_run()
    plan = checkpoints.plan()
    assert f"a binary file: 8 bytes now → {len(BINARY)} bytes restored" in checkpoints.diff(plan, "logo.bin")
    checkpoints.undo(plan)
    assert target.read_bytes() == BINARY
    assert stat.S_IMODE(target.stat().st_mode) == 0o751


def test_a_created_file_goes_again_with_the_folders_it_needed(workspace):
    (workspace / "docs").mkdir()
    registry, checkpoints = wired(workspace)
    checkpoints.begin_run("react", "write guides")
    call(registry, "write_file", path="docs/new/deep/guide.md", content="# guide\n")
    checkpoints.finish_run()
    plan = checkpoints.plan()
    assert checkpoints.diff(plan, "docs/new/deep/guide.md").startswith("deletes docs/new/deep/guide.md")
    checkpoints.undo(plan)
    assert not (workspace / "docs" / "new").exists()
    assert (workspace / "docs").is_dir()  # it was there before


def test_a_file_reached_through_a_symlink_is_recorded_under_its_real_name(workspace):
    (workspace / "real").mkdir()
    (workspace / "real" / "x.txt").write_text("old\n")
    (workspace / "alias").symlink_to("real")
    registry, checkpoints = wired(workspace)
    checkpoints.begin_run("react", "")
    call(registry, "edit_file", path="alias/x.txt", old_string="old", new_string="new")
    checkpoints.finish_run()
    plan = checkpoints.plan()
    assert [f.path for f in plan.files] == ["real/x.txt"]
    checkpoints.undo(plan)
    assert (workspace / "real" / "x.txt").read_text() == "old\n"


def test_the_store_is_private(workspace):
    (workspace / "secret.env").write_text("TOKEN=1\n")
    registry, checkpoints = wired(workspace)
    checkpoints.begin_run("react", "")
    call(registry, "write_file", path="secret.env", content="TOKEN=2\n")
    checkpoints.finish_run()
    root = checkpoints.store.root
    for folder, dirs, files in os.walk(root):
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700, folder
        for name in files:
            assert stat.S_IMODE(os.stat(os.path.join(folder, name)).st_mode) == 0o600, name
    assert str(root).startswith(os.environ["PAICLI_HOME"])  # the data dir, never the workspace


def test_pruning_keeps_the_store_within_its_bound_oldest_runs_first(workspace):
    limit = 12_000
    registry, checkpoints = wired(workspace, max_bytes=limit)
    run_ids = []
    for number in range(8):
        (workspace / f"f{number}.txt").write_bytes(bytes([65 + number]) * 3000)
        run_ids.append(checkpoints.begin_run("react", f"turn {number}"))
        call(registry, "write_file", path=f"f{number}.txt", content="short\n")
        checkpoints.finish_run()
        assert checkpoints.store.recount() <= limit
    kept = [run.run_id for run in checkpoints.store.runs()]
    assert kept == sorted(kept, reverse=True) and kept[0] == run_ids[-1]
    assert run_ids[0] not in kept and len(kept) < len(run_ids)  # the oldest went first
    newest = checkpoints.plan()
    checkpoints.undo(newest)
    assert (workspace / "f7.txt").read_bytes() == b"H" * 3000


def test_a_file_larger_than_the_bound_is_changed_but_reported_as_not_restorable(workspace):
    (workspace / "huge.txt").write_bytes(b"x" * 5000)
    registry, checkpoints = wired(workspace, max_bytes=4000)
    checkpoints.begin_run("react", "")
    call(registry, "write_file", path="huge.txt", content="small\n")
    summary = checkpoints.finish_run()
    assert summary.unstored == ("huge.txt",)
    plan = checkpoints.plan()
    (item,) = plan.files
    assert item.status == "lost" and "not kept" in item.conflict
    result = checkpoints.undo(plan, overwrite=["huge.txt"])
    assert result.skipped == ["huge.txt"]
    assert (workspace / "huge.txt").read_bytes() == b"small\n"


def test_concurrent_writers_of_one_file_each_record_a_true_before_and_after(workspace):
    (workspace / "shared.txt").write_text("0\n")
    registry, checkpoints = wired(workspace)
    checkpoints.begin_run("plan", "race")
    start = threading.Barrier(8)

    def worker(number: int) -> None:
        start.wait()
        for round_ in range(5):
            call(registry, "write_file", actor=f"task_{number}", path="shared.txt", content=f"{number}.{round_}\n")

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    checkpoints.finish_run()
    run = checkpoints.store.runs()[0]
    changes = sorted(run.changes, key=lambda c: c.ts)
    assert len(changes) == 40
    for earlier, later in zip(changes, changes[1:]):  # one unbroken chain: no write slipped between two records
        assert later.before.sha256 == earlier.after.sha256
    checkpoints.undo(checkpoints.plan())
    assert (workspace / "shared.txt").read_text() == "0\n"


def test_a_change_paicli_never_finished_recording_asks_before_overwriting(workspace):
    (workspace / "a.txt").write_text("before\n")
    store = CheckpointStore(workspace)
    checkpoints = Checkpoints(workspace, "sess", store=store)
    run_id = checkpoints.begin_run("react", "crashed")
    with open(workspace / "a.txt", "rb") as handle:
        store.keep_blob(run_id, 1, handle, 7, set())
    store.append_change(run_id, {"id": 1, "phase": "before", "ts": 1.0, "actor": "react", "task": "", "version": 0,
                                 "tool": "write_file", "path": "a.txt", "stored": True, "created_dirs": [],
                                 "before": {"exists": True, "sha256": _sha(b"before\n"), "mode": 0o644, "size": 7}})
    (workspace / "a.txt").write_text("half-written by a paicli that died\n")
    plan = checkpoints.plan(run_id)
    (item,) = plan.files
    assert item.status == "changed" and "paicli stopped during this change" in item.conflict
    assert checkpoints.undo(plan).skipped == ["a.txt"]
    checkpoints.undo(checkpoints.plan(run_id), overwrite=["a.txt"])
    assert (workspace / "a.txt").read_text() == "before\n"


def test_a_torn_last_line_in_the_store_is_skipped(workspace):
    (workspace / "a.txt").write_text("x\n")
    registry, checkpoints = wired(workspace)
    run_id = checkpoints.begin_run("react", "")
    call(registry, "edit_file", path="a.txt", old_string="x", new_string="y")
    checkpoints.finish_run()
    with open(checkpoints.store.root / "runs" / run_id / "changes.jsonl", "a") as handle:
        handle.write('{"id": 2, "phase": "bef')
    run = checkpoints.run(run_id)
    assert [c.path for c in run.changes] == ["a.txt"]


def _sha(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()
