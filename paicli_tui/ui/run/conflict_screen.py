"""A merge conflict on the run screen: the task whose work could not be
merged, its conflicting files and hunks, and the decisions — re-run the task
on top of the current state, keep the task's side or the other side per
file, edit the file in ``$EDITOR``, or drop the task's changes. The task
waits (its dependents with it) until one is taken."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from paicli_tui.workspace.merge import OURS, THEIRS
from paicli_tui.workspace.resolver import Conflict, Decision

_MARKER = ("<<<<<<< ", "=======", ">>>>>>> ")


def hunk_text(hunk: str) -> Content:
    """A conflict hunk with each side in its own colour."""
    lines: list[Content] = []
    side = ""
    for line in hunk.splitlines():
        if line.startswith(_MARKER[0]):
            side = "$diff-removed"
            lines.append(Content.styled(line, "bold $warning"))
        elif line.startswith(_MARKER[1]) and side:
            side = "$diff-added"
            lines.append(Content.styled(line, "bold $warning"))
        elif line.startswith(_MARKER[2]):
            side = ""
            lines.append(Content.styled(line, "bold $warning"))
        else:
            lines.append(Content.styled(line, side) if side else Content(line))
    return Content("\n").join(lines)


class ConflictScreen(ModalScreen[Decision]):
    DEFAULT_CSS = """
    ConflictScreen { align: center middle; }
    ConflictScreen > #conflict {
        width: 92%; max-width: 120; height: 90%;
        border: round $warning; border-title-color: $warning; background: $surface; padding: 0 1;
    }
    ConflictScreen .file { text-style: bold; margin-top: 1; }
    ConflictScreen .file.current { color: $warning; }
    ConflictScreen .muted { color: $text-muted; }
    """
    BINDINGS = [
        Binding("r", "rerun", "Re-run on top", id="conflict.rerun"),
        Binding("o", "keep_task", "Keep task's side", id="conflict.keep_task"),
        Binding("t", "keep_other", "Keep other side", id="conflict.keep_other"),
        Binding("e", "edit", "Edit in $EDITOR", id="conflict.edit"),
        Binding("d", "drop", "Drop task's changes", id="conflict.drop"),
        Binding("escape", "fail", "Fail the task", id="conflict.fail"),
    ]

    def __init__(self, conflict: Conflict) -> None:
        super().__init__()
        self.conflict = conflict
        self.choices: dict[str, str | bytes | None] = {}

    @property
    def current(self):
        """The first conflicted file not decided yet."""
        for file in self.conflict.outcome.conflicts:
            if file.path not in self.choices:
                return file
        return None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="conflict"):
            yield Static(id="conflict-head")
            yield Static(id="conflict-files")
        yield Footer()

    def on_mount(self) -> None:
        box = self.query_one("#conflict")
        box.border_title = f"⚡ CONFLICT · {self.conflict.task_id}"
        box.border_subtitle = "r re-run · o task's side · t other side · e edit · d drop · Esc fail"
        self._refresh()

    def _refresh(self) -> None:
        files = self.conflict.outcome.conflicts
        head = Content.assemble(
            (self.conflict.task_id, "bold"), f": {self.conflict.description}\n",
            ("Its work could not be merged: another task changed the same lines first. ", "$text-muted"),
            (f"{len(files)} file{'s' if len(files) != 1 else ''} in conflict.", "$text-muted"),
        )
        self.query_one("#conflict-head", Static).update(head)
        parts: list[Content] = []
        current = self.current
        for file in files:
            decided = self.choices.get(file.path, "") if file.path in self.choices else None
            mark = {OURS: " — keeping the other side", THEIRS: " — keeping the task's side"}.get(
                decided if isinstance(decided, str) else "", " — edited" if decided is not None else "")
            style = "bold $warning" if file is current else "bold"
            parts.append(Content.styled(f"{'▶ ' if file is current else '  '}{file.path}{mark}", style))
            parts.append(Content.styled(f"  {file.message}", "$text-muted"))
            for hunk in file.hunks():
                parts.append(hunk_text(hunk))
        self.query_one("#conflict-files", Static).update(Content("\n").join(parts))

    def _decide_file(self, choice: str | bytes) -> None:
        file = self.current
        if file is None:
            return
        self.choices[file.path] = choice
        if self.current is None:
            self.dismiss(Decision("resolve", dict(self.choices)))
        else:
            self._refresh()

    def action_rerun(self) -> None:
        self.dismiss(Decision("rerun"))

    def action_drop(self) -> None:
        self.dismiss(Decision("drop"))

    def action_fail(self) -> None:
        self.dismiss(Decision("fail"))

    def action_keep_task(self) -> None:
        self._decide_file(THEIRS)

    def action_keep_other(self) -> None:
        self._decide_file(OURS)

    def action_edit(self) -> None:
        file = self.current
        if file is None:
            return
        if not file.marked:
            self.notify(f"{file.path} has no text to edit ({file.message}); keep a side instead", severity="warning")
            return
        edited = self._run_editor(file.path, file.marked)
        if edited is None:
            return
        if any(line.startswith(_MARKER[0]) for line in edited.decode(errors="replace").splitlines()):
            self.notify(f"{file.path} still has conflict markers; nothing decided", severity="warning")
            return
        self._decide_file(edited)

    def _run_editor(self, path: str, text: str) -> bytes | None:
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        suffix = Path(path).suffix
        with tempfile.NamedTemporaryFile("w", suffix=suffix, prefix="paicli-conflict-", delete=False) as handle:
            handle.write(text)
            name = handle.name
        try:
            command = [*shlex.split(editor), name]
            try:
                with self.app.suspend():
                    done = subprocess.run(command, check=False)
            except Exception:  # noqa: BLE001 — no terminal to hand over (tests, a pipe): run it as is
                done = subprocess.run(command, check=False, capture_output=True)
            if done.returncode != 0:
                self.notify(f"{editor} exited with {done.returncode}; nothing decided", severity="warning")
                return None
            return Path(name).read_bytes()
        except OSError as exc:
            self.notify(f"cannot run {editor}: {exc.strerror or exc}", severity="error")
            return None
        finally:
            Path(name).unlink(missing_ok=True)
