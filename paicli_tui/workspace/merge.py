"""Three-way merges with ``git merge-tree --write-tree`` and the conflicts
they leave, as data a person can look at and settle.

On git 2.39 the merge base is found by git itself (there is no
``--merge-base`` before 2.40), which is why a task's base is always an
ancestor of the integration head it merges into (see run.py)."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import Mapping

from paicli_tui.workspace.shadow import ShadowRepo

#: The side kept when a conflicted file is settled without editing it.
OURS, THEIRS = "ours", "theirs"
_CONTEXT = 3


@dataclass(frozen=True)
class ConflictFile:
    """One conflicted path. ``ours`` is the side merged into (the integration
    state, or the person's workspace on apply), ``theirs`` the side merged in
    (the task); each is (mode, blob id) or None when that side deleted it."""

    path: str
    base: tuple[str, str] | None
    ours: tuple[str, str] | None
    theirs: tuple[str, str] | None
    message: str
    #: The file with conflict markers, labelled; "" when git wrote none
    #: (modify/delete, rename or binary conflicts: then see ``message``).
    marked: str = ""

    def hunks(self, context: int = _CONTEXT) -> list[str]:
        """Each marker block with ``context`` lines either side."""
        lines = self.marked.splitlines()
        blocks: list[tuple[int, int]] = []
        start = None
        for number, line in enumerate(lines):
            if line.startswith("<<<<<<< "):
                start = number
            elif line.startswith(">>>>>>> ") and start is not None:
                blocks.append((max(0, start - context), min(len(lines), number + 1 + context)))
                start = None
        return ["\n".join(lines[a:b]) for a, b in blocks]


@dataclass(frozen=True)
class MergeOutcome:
    """The merged tree (with conflict markers in conflicted files) and the
    conflicts, empty for a clean merge."""

    tree: str
    conflicts: tuple[ConflictFile, ...] = ()

    @property
    def clean(self) -> bool:
        return not self.conflicts

    @property
    def paths(self) -> list[str]:
        return [c.path for c in self.conflicts]


def merge(repo: ShadowRepo, ours: str, theirs: str, *, ours_label: str = "integration",
          theirs_label: str = "task") -> MergeOutcome:
    """Merge commit ``theirs`` into commit ``ours`` without a work tree."""
    code, out = repo.git().run_bytes("merge-tree", "--write-tree", "-z", "--messages", ours, theirs, ok=(0, 1))
    fields = out.split(b"\0")
    tree = fields[0].decode()
    if code == 0:
        return MergeOutcome(tree)
    stages: dict[str, dict[int, tuple[str, str]]] = {}
    at = 1
    while at < len(fields) and fields[at]:
        info, path = fields[at].decode(errors="surrogateescape").split("\t", 1)
        mode, oid, stage = info.split()
        stages.setdefault(path, {})[int(stage)] = (mode, oid)
        at += 1
    messages = _messages(fields[at + 1:])
    conflicts = []
    for path, by_stage in stages.items():
        marked = ""
        if 2 in by_stage and 3 in by_stage:
            marked = _labelled(_blob_text(repo, f"{tree}:{path}"), ours, theirs, ours_label, theirs_label)
        conflicts.append(ConflictFile(path, by_stage.get(1), by_stage.get(2), by_stage.get(3),
                                      messages.get(path, "CONFLICT"), marked))
    return MergeOutcome(tree, tuple(conflicts))


def _messages(fields: list[bytes]) -> dict[str, str]:
    """The CONFLICT messages per path from ``--messages -z`` output:
    ``<count>\\0<path>…\\0<type>\\0<text>\\0`` repeated."""
    found: dict[str, str] = {}
    at = 0
    while at < len(fields) and fields[at]:
        try:
            count = int(fields[at])
        except ValueError:
            break
        paths = [f.decode(errors="replace") for f in fields[at + 1:at + 1 + count]]
        kind = fields[at + 1 + count].decode(errors="replace") if at + 1 + count < len(fields) else ""
        text = fields[at + 2 + count].decode(errors="replace").strip() if at + 2 + count < len(fields) else ""
        if kind.startswith("CONFLICT"):
            for path in paths:
                found.setdefault(path, text)
        at += 3 + count
    return found


def _blob_text(repo: ShadowRepo, spec: str) -> str:
    try:
        return repo.git().run_bytes("cat-file", "blob", spec)[1].decode()
    except UnicodeDecodeError:
        return ""


def _labelled(text: str, ours: str, theirs: str, ours_label: str, theirs_label: str) -> str:
    """Marker lines name the sides as people know them, not by commit id."""
    text = re.sub(rf"^<<<<<<< {re.escape(ours)}(?=$|:)", f"<<<<<<< {ours_label}", text, flags=re.M)
    return re.sub(rf"^>>>>>>> {re.escape(theirs)}(?=$|:)", f">>>>>>> {theirs_label}", text, flags=re.M)


def resolve(repo: ShadowRepo, outcome: MergeOutcome, choices: Mapping[str, str | bytes | None]) -> str:
    """The merged tree with each conflicted path settled: ``"ours"``,
    ``"theirs"``, the file's new bytes, or None to delete it. Every conflicted
    path needs a choice (ValueError names the ones missing)."""
    missing = [p for p in outcome.paths if p not in choices]
    if missing:
        raise ValueError(f"no decision for {', '.join(missing)}")
    index = repo.git_dir / f"index-resolve-{uuid.uuid4().hex}"
    git = repo.git(index=index)
    try:
        git.run("read-tree", outcome.tree)
        by_path = {c.path: c for c in outcome.conflicts}
        lines = []
        for path, choice in choices.items():
            conflict = by_path.get(path)
            if isinstance(choice, bytes):
                oid = git.run("hash-object", "-w", "--stdin", input=choice)
                mode = (conflict.theirs or conflict.ours or ("100644", ""))[0] if conflict else "100644"
                lines.append(f"{mode} {oid}\t{path}")
                continue
            side = None
            if conflict is not None and choice in (OURS, THEIRS):
                side = conflict.ours if choice == OURS else conflict.theirs
            # Mode 0 removes the entry: the chosen side deleted the file.
            lines.append(f"{side[0]} {side[1]}\t{path}" if side else f"0 {'0' * 40}\t{path}")
        # --index-info works in a bare repository, where --force-remove does not.
        git.run("update-index", "--index-info", input=("\n".join(lines) + "\n").encode())
        return git.run("write-tree")
    finally:
        index.unlink(missing_ok=True)
