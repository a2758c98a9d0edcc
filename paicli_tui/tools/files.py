"""read_file, write_file and edit_file (P-6.2, P-6.3)."""

from __future__ import annotations

import difflib
import os
import stat
from pathlib import Path
from typing import Any, BinaryIO

from paicli_tui.tools import safe_fs
from paicli_tui.tools.base import Tool, ToolContext, ToolError, ToolResult, object_schema, plural
from paicli_tui.tools.confinement import display_path, looks_binary, resolve_in_workspace

READ_CAP_BYTES = 256 * 1024
BINARY_SNIFF_BYTES = 8192
#: Lines are read in pieces of at most this much, so one giant line never
#: sits whole in memory.
LINE_PIECE_BYTES = 64 * 1024
#: The largest old content write_file reads to show a diff.
DIFF_CAP_BYTES = 2 * 1024 * 1024
#: The largest file edit_file works on (it holds it in memory twice).
EDIT_CAP_BYTES = 10 * 1024 * 1024
PATH_PROPERTY = {"type": "string", "minLength": 1, "description": "Path relative to the workspace root."}


def _located(workspace: Path, raw: str) -> str:
    """How ``raw`` is named in messages; refuses plain escapes early. The
    file is then opened by safe_fs, which does not trust this check."""
    return display_path(workspace, resolve_in_workspace(workspace, raw))


def read_text(workspace: Path, raw: str, shown: str) -> str:
    """The whole file as UTF-8 text, refusing directories, binary data and
    files over EDIT_CAP_BYTES."""
    with safe_fs.open_file(workspace, raw, shown) as handle:
        size = os.fstat(handle.fileno()).st_size
        data = handle.read(EDIT_CAP_BYTES + 1)
    if max(size, len(data)) > EDIT_CAP_BYTES:
        raise ToolError(f"{shown} is {size} bytes; edit_file works on files up to {EDIT_CAP_BYTES // 2**20} MiB "
                        "(use write_file to replace it whole)")
    if looks_binary(data[:BINARY_SNIFF_BYTES]):
        raise ToolError(f"{shown} looks like a binary file; refusing to treat it as text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolError(f"{shown} is not valid UTF-8 text (byte {exc.start})") from None


def unified_diff(before: str, after: str, shown: str) -> str:
    diff = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                fromfile=f"a/{shown}", tofile=f"b/{shown}")
    return "".join(line if line.endswith("\n") else line + "\n" for line in diff)


class ReadFile(Tool):
    name = "read_file"
    description = (
        "Read a UTF-8 text file in the workspace. Optional 1-based inclusive start_line/end_line select a range; "
        f"output is capped at {READ_CAP_BYTES // 1024} KB. Set line_numbers to prefix each line with its number."
    )
    parameters = object_schema({
        "path": PATH_PROPERTY,
        "start_line": {"type": "integer", "minimum": 1, "description": "First line to return (1-based)."},
        "end_line": {"type": "integer", "minimum": 1, "description": "Last line to return (inclusive)."},
        "line_numbers": {"type": "boolean", "description": "Prefix lines with their numbers (default false)."},
    }, ["path"])

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        shown = _located(self.workspace, args["path"])
        start = args.get("start_line", 1)
        end = args.get("end_line")
        if end is not None and end < start:
            raise ToolError(f"end_line {end} is before start_line {start}")
        with safe_fs.open_file(self.workspace, args["path"], shown, "; use list_dir") as handle:
            if looks_binary(handle.read(BINARY_SNIFF_BYTES)):
                raise ToolError(f"{shown} looks like a binary file; refusing to read it as text")
            handle.seek(0)
            lines, total, truncated = _select_lines(handle, start, end)
        if not lines and start > 1 and total < start:
            raise ToolError(f"{shown} has {plural(total, 'line')}; start_line {start} is past the end")
        width = len(str(start + len(lines)))
        body = "".join(
            f"{start + i:>{width}}\t{line}" if args.get("line_numbers") else line for i, line in enumerate(lines)
        )
        last = start + len(lines) - 1
        if truncated:
            body += (f"\n[truncated at {READ_CAP_BYTES // 1024} KB: showed lines {start}-{last}; "
                     f"read further with start_line={last + 1}]")
        return ToolResult(True, body, f"read {plural(len(lines), 'line')} of {shown}")


def _select_lines(handle: BinaryIO, start: int, end: int | None) -> tuple[list[str], int, bool]:
    """Lines start..end decoded leniently, stopping at the byte cap; memory
    stays within the cap however long a line is. Returns (lines, lines seen,
    truncated)."""
    lines: list[str] = []
    size = 0
    number = _skip_lines(handle, start - 1)
    while end is None or number < end:
        selecting = number + 1 >= start
        # A selected line cut at the cap ends the read, so only skipped lines
        # need the rest of them read past.
        raw = (_next_line(handle, READ_CAP_BYTES - size + 1, drain=False) if selecting
               else _next_line(handle, LINE_PIECE_BYTES, drain=True))
        if raw is None:
            break
        number += 1
        if not selecting:
            continue
        size += len(raw)
        if size > READ_CAP_BYTES:
            if not lines:  # one enormous line (minified code): show its start
                lines.append(raw[:READ_CAP_BYTES].decode("utf-8", errors="replace") + "\n")
            return lines, number, True
        lines.append(raw.decode("utf-8", errors="replace"))
    return lines, number, False


SKIP_BLOCK_BYTES = 1 << 20


def _skip_lines(handle: BinaryIO, count: int) -> int:
    """Move past ``count`` lines by counting newlines in 1 MiB blocks (no
    per-line work, whatever the lines' length); returns the lines skipped,
    fewer when the file ends first."""
    skipped = 0
    partial = False  # the bytes read so far end inside a line
    while skipped < count:
        block = handle.read(SKIP_BLOCK_BYTES)
        if not block:
            return skipped + partial  # a last line without a newline is a line
        partial = not block.endswith(b"\n")
        found = block.count(b"\n")
        if skipped + found < count:
            skipped += found
            continue
        position = -1
        for _ in range(count - skipped):
            position = block.index(b"\n", position + 1)
        handle.seek(position + 1 - len(block), 1)
        return count
    return skipped


def _next_line(handle: BinaryIO, keep: int, drain: bool) -> bytes | None:
    """The next line with at most ``keep`` bytes of it kept, or None at the
    end of the file. With ``drain`` the rest of a longer line is read in
    bounded pieces and dropped, so the next call starts on the next line."""
    head = handle.readline(keep)
    if not head:
        return None
    if drain and not head.endswith(b"\n"):
        while piece := handle.readline(LINE_PIECE_BYTES):
            if piece.endswith(b"\n"):
                break
    return head


class WriteFile(Tool):
    name = "write_file"
    description = ("Create or overwrite a text file in the workspace with the given content (atomic). "
                   "Parent directories are created. Prefer edit_file for small changes to existing files.")
    parameters = object_schema({
        "path": PATH_PROPERTY,
        "content": {"type": "string", "description": "The complete new file content."},
    }, ["path", "content"])
    read_only = False

    def changed_paths(self, args: dict[str, Any]) -> list[str]:
        return [args["path"]]

    def preview(self, args: dict[str, Any]) -> str:
        shown = _located(self.workspace, args["path"])
        found = safe_fs.stat_file(self.workspace, args["path"], shown)
        if found is None:
            return unified_diff("", args["content"], shown)
        if stat.S_ISDIR(found.st_mode):
            raise ToolError(f"{shown} is a directory")
        if found.st_size > DIFF_CAP_BYTES:
            return _replacing(f"a {found.st_size}-byte file (too large to diff)", args["content"], shown)
        with safe_fs.open_file(self.workspace, args["path"], shown) as handle:
            data = handle.read(DIFF_CAP_BYTES + 1)
        if len(data) > DIFF_CAP_BYTES:  # it grew since the stat
            return _replacing(f"a file of over {DIFF_CAP_BYTES} bytes (too large to diff)", args["content"], shown)
        if looks_binary(data[:BINARY_SNIFF_BYTES]):
            return _replacing(f"a binary file ({len(data)} bytes)", args["content"], shown)
        try:
            before = data.decode("utf-8")
        except UnicodeDecodeError:
            return _replacing(f"a non-UTF-8 file ({len(data)} bytes)", args["content"], shown)
        return unified_diff(before, args["content"], shown)

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        shown = _located(self.workspace, args["path"])
        existed = safe_fs.replace_file(self.workspace, args["path"], shown, args["content"].encode("utf-8"))
        count = len(args["content"].splitlines())
        verb = "overwrote" if existed else "created"
        return ToolResult(True, f"{verb} {shown} ({plural(count, 'line')})", f"{verb} {shown}, {plural(count, 'line')}")


def _replacing(what: str, content: str, shown: str) -> str:
    """A preview for old content that cannot be shown as a diff: a note, then
    the new content as added lines."""
    return f"replaces {what}\n" + unified_diff("", content, shown)


class EditFile(Tool):
    name = "edit_file"
    description = ("Replace old_string with new_string in a workspace file. old_string must match exactly "
                   "(whitespace included) and occur exactly once; include surrounding lines to make it unique.")
    parameters = object_schema({
        "path": PATH_PROPERTY,
        "old_string": {"type": "string", "minLength": 1, "description": "Exact text to replace (must be unique)."},
        "new_string": {"type": "string", "description": "Replacement text."},
    }, ["path", "old_string", "new_string"])
    read_only = False

    def changed_paths(self, args: dict[str, Any]) -> list[str]:
        return [args["path"]]

    def _prepare(self, args: dict[str, Any]) -> tuple[str, str, str]:
        shown = _located(self.workspace, args["path"])
        before = read_text(self.workspace, args["path"], shown)
        count = before.count(args["old_string"])
        if count != 1:
            hint = ("check whitespace, indentation and line endings" if count == 0
                    else "include more surrounding lines to make it unique")
            raise ToolError(f"old_string occurs {plural(count, 'time')} in {shown}; it must occur exactly once ({hint})")
        after = before.replace(args["old_string"], args["new_string"], 1)
        return shown, before, after

    def preview(self, args: dict[str, Any]) -> str:
        shown, before, after = self._prepare(args)
        return unified_diff(before, after, shown)

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        shown, before, after = self._prepare(args)
        safe_fs.replace_file(self.workspace, args["path"], shown, after.encode("utf-8"))
        removed = len(args["old_string"].splitlines()) or 1
        added = len(args["new_string"].splitlines())
        line = before[: before.index(args["old_string"])].count("\n") + 1
        return ToolResult(True, f"edited {shown} at line {line}: -{removed} +{added} lines",
                          f"edited {shown}: -{removed} +{added} lines")
