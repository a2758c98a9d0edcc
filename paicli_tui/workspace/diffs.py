"""What a task changed, as receipts: per-file counts and a bounded diff."""

from __future__ import annotations

from dataclasses import dataclass

from paicli_tui.workspace.shadow import ShadowRepo

#: A reviewer's request carries at most this much of a step's diff.
DIFF_LIMIT = 12_000


@dataclass(frozen=True)
class FileChange:
    path: str
    added: int  # -1 for a binary file
    removed: int


def numstat(repo: ShadowRepo, a: str, b: str) -> list[FileChange]:
    out = repo.git().run_bytes("diff", "--numstat", "-z", "--no-renames", a, b)[1].decode(errors="replace")
    changes = []
    for record in out.split("\0"):
        if not record:
            continue
        added, removed, path = record.split("\t", 2)
        changes.append(FileChange(path, -1 if added == "-" else int(added), -1 if removed == "-" else int(removed)))
    return changes


def diff_text(repo: ShadowRepo, a: str, b: str, limit: int = DIFF_LIMIT) -> str:
    """The unified diff from ``a`` to ``b``, cut at ``limit`` characters on a
    line boundary with a note saying how much was left out."""
    if a == b:
        return ""
    text = repo.git().run_bytes("diff", "--no-color", "--no-renames", "--no-ext-diff", a, b)[1].decode(
        errors="replace")
    if len(text) <= limit:
        return text
    kept = text[:limit].rsplit("\n", 1)[0] + "\n"
    rest = text[len(kept):]
    files = rest.count("\ndiff --git ") + (1 if rest.startswith("diff --git ") else 0)
    more_files = f" in {files} more file{'s' if files != 1 else ''}" if files else ""
    return kept + f"[diff cut: {rest.count(chr(10))} more lines{more_files}]\n"
