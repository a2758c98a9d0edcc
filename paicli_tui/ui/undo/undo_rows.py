"""How the undo screen words runs and files (Content, theme colours only)."""

from __future__ import annotations

import time

from textual.content import Content

from paicli_tui.checkpoints.revert import FileRevert, RevertPlan, run_label
from paicli_tui.checkpoints.store import RunRecord

#: glyph, style and what it means, per file status
FILE_STATUS = {
    "ok": ("↶", "$success", "restore"),
    "done": ("·", "$text-muted", "already as it was"),
    "changed": ("⚠", "$warning", ""),
    "lost": ("✗", "$error", ""),
}


def run_row(run: RunRecord, width: int = 27) -> Content:
    when = time.strftime("%H:%M", time.localtime(run.started)) if run.started else "--:--"
    label = run_label(run)
    if len(label) > width:
        label = label[: width - 1] + "…"
    files = len(run.files)
    pending = len({c.path for c in run.pending})
    if not files:
        state, style = "commands only", "$text-muted"
    elif not pending:
        state, style = "undone", "$text-muted"
    elif pending < files:
        state, style = f"{pending}/{files} files", "$warning"
    else:
        state, style = f"{files} file{'s' if files != 1 else ''}", "$accent"
    commands = Content.styled(" ⚙", "$warning") if run.commands and files else Content("")
    return Content.assemble((f"{when} ", "$text-muted"), f"{label:<{width}} ", (state, style), commands)


def file_row(item: FileRevert) -> Content:
    glyph, style, what = FILE_STATUS.get(item.status, ("?", "", ""))
    note = what or item.conflict
    return Content.assemble((f"{glyph} ", style), (item.path, "bold"), (f"  {note}", "$text-muted" if what else style))


def notes(plan: RevertPlan | None) -> Content:
    """The lines under the lists: what this undo will not do."""
    if plan is None:
        return Content.styled("No tool has changed a file in this workspace yet (or the changes were pruned).",
                              "$text-muted")
    lines = []
    if plan.commands:
        who = ", ".join(plan.commands)
        lines.append(Content.assemble(("⚙ ", "$warning"), f"Commands ran here ({who}): what they changed is not "
                                      "tracked and will not be reverted."))
    conflicts = plan.conflicts
    if conflicts:
        count = len(conflicts)
        lines.append(Content.assemble(("⚠ ", "$warning"), f"{count} file{'s were' if count != 1 else ' was'} changed "
                                      "since: reverting asks before overwriting."))
    if not plan.files:
        lines.append(Content.styled("Nothing left to undo in this run.", "$text-muted"))
    return Content("\n").join(lines) if lines else Content.styled("Every file can be restored as it was.",
                                                                  "$text-muted")
