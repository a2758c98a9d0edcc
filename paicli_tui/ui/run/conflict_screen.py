"""A merge conflict on the run screen: the task whose work could not be
merged, its conflicting files and hunks, and the decisions — re-run the task
on top of the current state, keep the task's side or the other side per
file, edit the file in ``$EDITOR``, or drop the task's changes. The task
waits (its dependents with it) until one is taken.

At the end of a run the same dialog settles the files the person edited
during the run that the run's result changes too: per file keep mine, take
the run's, edit, or keep both with conflict markers (Esc keeps mine)."""

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
from paicli_tui.workspace.resolver import APPLY, Conflict, Decision

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
        Binding("m", "keep_mine", "Keep mine", id="conflict.keep_mine"),
        Binding("u", "take_run", "Take the run's", id="conflict.take_run"),
        Binding("b", "keep_both", "Keep both (markers)", id="conflict.keep_both"),
        Binding("escape", "keep_mine_rest", "Keep mine for the rest", id="conflict.keep_mine_rest"),
    ]
    _MERGE_ONLY = {"rerun", "keep_task", "keep_other", "drop", "fail"}
    _APPLY_ONLY = {"keep_mine", "take_run", "keep_both", "keep_mine_rest"}

    def __init__(self, conflict: Conflict) -> None:
        super().__init__()
        self.conflict = conflict
        self.choices: dict[str, str | bytes | None] = {}

    @property
    def at_apply(self) -> bool:
        return self.conflict.stage == APPLY

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in (self._MERGE_ONLY if self.at_apply else self._APPLY_ONLY):
            return False
        return True

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
        if self.at_apply:
            box.border_title = "⚡ CONFLICT · your edits and the run's"
            box.border_subtitle = "m keep mine · u take the run's · e edit · b keep both · Esc keep mine"
        else:
            box.border_title = f"⚡ CONFLICT · {self.conflict.task_id}"
            box.border_subtitle = "r re-run · o task's side · t other side · e edit · d drop · Esc fail"
        self._refresh()

    def _refresh(self) -> None:
        files = self.conflict.outcome.conflicts
        count = f"{len(files)} file{'s' if len(files) != 1 else ''} in conflict."
        if self.at_apply:
            head = Content.assemble(
                ("The run is done", "bold"), ": its result is being applied to your files.\n",
                ("You edited these files during the run, and the run changed the same lines. ", "$text-muted"),
                (count, "$text-muted"),
            )
        else:
            head = Content.assemble(
                (self.conflict.task_id, "bold"), f": {self.conflict.description}\n",
                ("Its work could not be merged: another task changed the same lines first. ", "$text-muted"),
                (count, "$text-muted"),
            )
        self.query_one("#conflict-head", Static).update(head)
        parts: list[Content] = []
        current = self.current
        for file in files:
            mark = self._mark(file) if file.path in self.choices else ""
            style = "bold $warning" if file is current else "bold"
            parts.append(Content.styled(f"{'▶ ' if file is current else '  '}{file.path}{mark}", style))
            parts.append(Content.styled(f"  {file.message}", "$text-muted"))
            for hunk in file.hunks():
                parts.append(hunk_text(hunk))
        self.query_one("#conflict-files", Static).update(Content("\n").join(parts))

    def _mark(self, file) -> str:
        decided = self.choices[file.path]
        if self.at_apply:
            if decided == OURS:
                return " — keeping yours"
            if decided == THEIRS:
                return " — taking the run's"
            return " — both, with conflict markers" if decided == file.marked.encode() else " — edited"
        if decided == OURS:
            return " — keeping the other side"
        return " — keeping the task's side" if decided == THEIRS else " — edited"

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

    def action_keep_mine(self) -> None:
        self._decide_file(OURS)

    def action_take_run(self) -> None:
        self._decide_file(THEIRS)

    def action_keep_both(self) -> None:
        file = self.current
        if file is None:
            return
        if not file.marked:
            self.notify(f"{file.path} has no text to mark ({file.message}); keep a side instead", severity="warning")
            return
        self._decide_file(file.marked.encode())

    def action_keep_mine_rest(self) -> None:
        rest = {file.path: OURS for file in self.conflict.outcome.conflicts if file.path not in self.choices}
        self.dismiss(Decision("resolve", {**self.choices, **rest}))

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
